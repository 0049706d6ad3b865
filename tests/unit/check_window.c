// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the NTB window manager (lib/window.c,
 * include/smartio/window.h).
 */
#include <stdio.h>
#include <string.h>

#include <smartio/window.h>

#include "unit.h"

#define N_ELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

#define PAGE		0x1000ULL
#define MAX_SLOTS	64
#define SENTINEL64	0xdeadbeefcafef00dULL
#define SENTINEL32	0xdeadbeefU
#define U64_ALL		(~0ULL)

/*
 * A fake LUT, kept by the notify callback: what the hardware would hold.
 * It checks that every claim hits an unprogrammed entry and every free a
 * programmed one, so a missed or doubled notification fails the test.
 */
struct fake_lut {
	struct {
		bool valid;
		u16 peer;
		u64 base;
	} e[MAX_SLOTS];
	unsigned int programs;
	unsigned int clears;
};

static struct fake_lut lut;

static void lut_notify(void *data, u32 slot,
		       const struct smartio_window_slot *s)
{
	struct fake_lut *l = data;

	ck_assert_ptr_eq(l, &lut);
	ck_assert_uint_lt(slot, MAX_SLOTS);
	if (s->refs) {
		ck_assert_msg(s->refs == 1, "slot %u claimed with refs %u",
			      slot, s->refs);
		ck_assert_msg(!l->e[slot].valid, "slot %u programmed twice",
			      slot);
		l->e[slot].valid = true;
		l->e[slot].peer = s->peer;
		l->e[slot].base = s->base;
		l->programs++;
	} else {
		ck_assert_msg(l->e[slot].valid, "slot %u cleared twice", slot);
		ck_assert_uint_eq(l->e[slot].peer, s->peer);
		ck_assert_uint_eq(l->e[slot].base, s->base);
		l->e[slot].valid = false;
		l->clears++;
	}
}

static struct smartio_window_slot slots[MAX_SLOTS];
static struct smartio_window_map wm;

/* A fresh map of @count slots of @slot_size, with the fake LUT attached. */
static void setup_map(u32 count, u64 slot_size)
{
	ck_assert_uint_le(count, MAX_SLOTS);
	memset(slots, 0xa5, sizeof(slots));
	memset(&lut, 0, sizeof(lut));
	ck_assert_int_eq(smartio_window_map_init(&wm, slots, count, slot_size),
			 0);
	smartio_window_set_notify(&wm, lut_notify, &lut);
}

/* The fake LUT holds exactly the slots in use. */
static void check_lut(void)
{
	u32 i;

	for (i = 0; i < wm.count; i++) {
		if (!slots[i].refs) {
			ck_assert_msg(!lut.e[i].valid, "free slot %u in LUT", i);
			continue;
		}
		ck_assert_msg(lut.e[i].valid, "used slot %u not in LUT", i);
		ck_assert_uint_eq(lut.e[i].peer, slots[i].peer);
		ck_assert_uint_eq(lut.e[i].base, slots[i].base);
	}
}

static void check_slot(u32 i, u16 peer, u64 base, u32 refs)
{
	ck_assert_msg(slots[i].refs == refs, "slot %u refs %u, want %u",
		      i, slots[i].refs, refs);
	if (!refs)
		return;
	ck_assert_msg(slots[i].peer == peer, "slot %u peer %u, want %u",
		      i, slots[i].peer, peer);
	ck_assert_msg(slots[i].base == base, "slot %u base %#llx, want %#llx",
		      i, (unsigned long long)slots[i].base,
		      (unsigned long long)base);
}

struct mapping {
	u16 peer;
	u64 addr;
	u64 size;
	u64 offset;
	u32 first;
	u32 n;
};

/* Get that must succeed with the given placement. */
static struct mapping get_ok(u16 peer, u64 addr, u64 size, u32 want_first,
			     u32 want_n, u64 want_offset)
{
	struct mapping m = { .peer = peer, .addr = addr, .size = size };
	int ret;

	ret = smartio_window_get(&wm, peer, addr, size, &m.offset, &m.first,
				 &m.n);
	ck_assert_msg(ret == 0, "get(%u, %#llx, %#llx) = %d", peer,
		      (unsigned long long)addr, (unsigned long long)size, ret);
	ck_assert_msg(m.first == want_first && m.n == want_n &&
		      m.offset == want_offset,
		      "get(%u, %#llx, %#llx) gave slots %u+%u offset %#llx, want %u+%u offset %#llx",
		      peer, (unsigned long long)addr, (unsigned long long)size,
		      m.first, m.n, (unsigned long long)m.offset, want_first,
		      want_n, (unsigned long long)want_offset);
	check_lut();
	return m;
}

static void put(const struct mapping *m)
{
	smartio_window_put(&wm, m->first, m->n);
	check_lut();
}

static bool slots_eq(const struct smartio_window_slot *a,
		     const struct smartio_window_slot *b, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (a[i].refs != b[i].refs || a[i].peer != b[i].peer ||
		    a[i].base != b[i].base)
			return false;
	return true;
}

/* Get that must fail with @want, changing nothing at all. */
static void get_fails(u16 peer, u64 addr, u64 size, int want)
{
	struct smartio_window_slot before[MAX_SLOTS];
	unsigned int programs = lut.programs, clears = lut.clears;
	u64 offset = SENTINEL64;
	u32 first = SENTINEL32, n = SENTINEL32;
	int ret;

	memcpy(before, slots, sizeof(before));
	ret = smartio_window_get(&wm, peer, addr, size, &offset, &first, &n);
	ck_assert_msg(ret == want, "get(%u, %#llx, %#llx) = %d, want %d",
		      peer, (unsigned long long)addr,
		      (unsigned long long)size, ret, want);
	ck_assert_msg(slots_eq(before, slots, MAX_SLOTS),
		      "failed get changed the slots");
	ck_assert_uint_eq(offset, SENTINEL64);
	ck_assert_uint_eq(first, SENTINEL32);
	ck_assert_uint_eq(n, SENTINEL32);
	ck_assert_uint_eq(lut.programs, programs);
	ck_assert_uint_eq(lut.clears, clears);
}

/* ---- init ---- */

static const struct {
	u32 count;
	u64 slot_size;
	u32 shift;	/* 0: -EINVAL expected */
} init_cases[] = {
	{ 1, 4096, 12 },
	{ 16, 4096, 12 },
	{ 64, 8192, 13 },
	{ 3, 1ULL << 20, 20 },
	{ 4, 1ULL << 62, 62 },		/* aperture is exactly 2^64 */
	{ 2, 1ULL << 63, 63 },
	{ 5, 1ULL << 62, 0 },		/* aperture beyond 2^64 */
	{ 3, 1ULL << 63, 0 },
	{ 0, 4096, 0 },			/* no slots */
	{ 1, 0, 0 },
	{ 1, 1, 0 },
	{ 1, 2048, 0 },			/* power of two below 4096 */
	{ 1, 4095, 0 },
	{ 1, 4097, 0 },
	{ 1, 6144, 0 },
	{ 1, 12288, 0 },
	{ 1, (1ULL << 63) + 4096, 0 },
	{ 1, U64_ALL, 0 },
};

START_TEST(test_init)
{
	struct smartio_window_map m, m0;
	struct smartio_window_slot s[MAX_SLOTS], s0[MAX_SLOTS];
	u32 i;
	int ret;

	memset(&m, 0x5a, sizeof(m));
	memset(s, 0xa5, sizeof(s));
	memcpy(&m0, &m, sizeof(m));
	memcpy(s0, s, sizeof(s));

	ret = smartio_window_map_init(&m, s, init_cases[_i].count,
				      init_cases[_i].slot_size);
	if (!init_cases[_i].shift) {
		ck_assert_int_eq(ret, -EINVAL);
		ck_assert(!memcmp(&m, &m0, sizeof(m)));
		ck_assert(!memcmp(s, s0, sizeof(s)));
		return;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_ptr_eq(m.slots, s);
	ck_assert_uint_eq(m.count, init_cases[_i].count);
	ck_assert_uint_eq(m.slot_shift, init_cases[_i].shift);
	ck_assert_uint_eq(smartio_window_slot_size(&m),
			  init_cases[_i].slot_size);
	ck_assert_ptr_null(m.notify);
	ck_assert_uint_eq(smartio_window_slots_used(&m), 0);
	for (i = 0; i < init_cases[_i].count; i++) {
		ck_assert_uint_eq(s[i].refs, 0);
		ck_assert_uint_eq(s[i].peer, 0);
		ck_assert_uint_eq(s[i].base, 0);
	}
	/* Nothing past count is touched. */
	for (i = init_cases[_i].count; i < MAX_SLOTS; i++)
		ck_assert(slots_eq(&s[i], &s0[i], 1));
}
END_TEST

START_TEST(test_init_null)
{
	struct smartio_window_map m;
	struct smartio_window_slot s[1];

	ck_assert_int_eq(smartio_window_map_init(NULL, s, 1, 4096), -EINVAL);
	ck_assert_int_eq(smartio_window_map_init(&m, NULL, 1, 4096), -EINVAL);
}
END_TEST

/* ---- placement and boundaries ---- */

START_TEST(test_single_slot)
{
	struct mapping a, b;

	setup_map(8, PAGE);
	a = get_ok(1, 0x10000123, 0x10, 0, 1, 0x123);
	check_slot(0, 1, 0x10000000, 1);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 1);
	ck_assert_uint_eq(lut.programs, 1);

	/* The next page is another slot: the next one, lowest free. */
	b = get_ok(1, 0x10001fff, 1, 1, 1, PAGE + 0xfff);
	check_slot(1, 1, 0x10001000, 1);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 2);

	put(&a);
	check_slot(0, 0, 0, 0);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 1);
	put(&b);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 0);
	ck_assert_uint_eq(lut.programs, 2);
	ck_assert_uint_eq(lut.clears, 2);
}
END_TEST

START_TEST(test_straddle)
{
	setup_map(8, PAGE);
	get_ok(3, 0x10000ff0, 0x20, 0, 2, 0xff0);
	check_slot(0, 3, 0x10000000, 1);
	check_slot(1, 3, 0x10001000, 1);
	check_slot(2, 0, 0, 0);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 2);
	ck_assert_uint_eq(lut.programs, 2);
}
END_TEST

static const struct {
	u64 slot_size;
	u64 addr;
	u64 size;
	u32 n;
} boundary[] = {
	{ PAGE, 0x0, 0x1000, 1 },	/* ends exactly at a page end */
	{ PAGE, 0x0, 0x1001, 2 },	/* one byte more */
	{ PAGE, 0x0, 1, 1 },
	{ PAGE, 0xfff, 1, 1 },		/* last byte of a page */
	{ PAGE, 0xfff, 2, 2 },
	{ PAGE, 0x1000, 1, 1 },		/* first byte of a page */
	{ PAGE, 0x800, 0x800, 1 },
	{ PAGE, 0x800, 0x801, 2 },
	{ PAGE, 0x1000, 0x3000, 3 },
	{ PAGE, 0x1000, 0x3001, 4 },
	{ PAGE, 0x1001, 0x2fff, 3 },
	{ PAGE, 0x1001, 0x3000, 4 },
	{ PAGE, 0xfff, 0x2001, 3 },
	{ PAGE, 0xfff, 0x2002, 4 },
	{ PAGE, 0x7fff000, 0x8000, 8 },	/* all 8 slots */
	{ 0x10000, 0xffff, 1, 1 },
	{ 0x10000, 0xffff, 2, 2 },
	{ 0x10000, 0x10000, 0x10000, 1 },
	{ 0x10000, 0x10000, 0x10001, 2 },
	{ 0x10000, 0x1fff0, 0x10, 1 },
	{ 0x10000, 0x1fff0, 0x11, 2 },
	{ 0x10000, 0x12345, 0x70000, 8 },
};

START_TEST(test_boundary)
{
	u64 ss = boundary[_i].slot_size;
	u64 first = boundary[_i].addr & ~(ss - 1);
	u32 k;

	setup_map(8, ss);
	get_ok(1, boundary[_i].addr, boundary[_i].size, 0, boundary[_i].n,
	       boundary[_i].addr - first);
	for (k = 0; k < boundary[_i].n; k++)
		check_slot(k, 1, first + k * ss, 1);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), boundary[_i].n);
	ck_assert_uint_eq(lut.programs, boundary[_i].n);
}
END_TEST

START_TEST(test_too_big)
{
	setup_map(8, PAGE);
	get_ok(1, 0x1000, 0x8000, 0, 8, 0);
	put(&(struct mapping){ .first = 0, .n = 8 });
	get_fails(1, 0x1000, 0x8001, -ENOSPC);		/* 9 pages */
	get_fails(1, 0x1001, 0x8000, -ENOSPC);
	get_fails(1, 0, U64_ALL, -ENOSPC);
}
END_TEST

START_TEST(test_big_slots)
{
	setup_map(4, 0x10000);
	get_ok(1, 0x12345, 1, 0, 1, 0x2345);
	get_ok(1, 0x5ffff, 2, 1, 2, 0x10000 + 0xffff);
	check_slot(1, 1, 0x50000, 1);
	check_slot(2, 1, 0x60000, 1);
	get_ok(1, 0x6fff0, 0x10, 2, 1, 0x20000 + 0xfff0);
	get_ok(2, 0x60000, 0x10000, 3, 1, 0x30000);
	get_fails(2, 0x60000, 0x10001, -ENOSPC);
}
END_TEST

/* ---- sharing ---- */

START_TEST(test_share_same_page)
{
	struct mapping a, b;

	setup_map(8, PAGE);
	a = get_ok(1, 0x5010, 0x100, 0, 1, 0x10);
	b = get_ok(1, 0x5800, 0x800, 0, 1, 0x800);	/* up to page end */
	check_slot(0, 1, 0x5000, 2);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 1);
	ck_assert_uint_eq(lut.programs, 1);

	/* The first put keeps the slot, the last frees it. */
	put(&b);
	check_slot(0, 1, 0x5000, 1);
	ck_assert_uint_eq(lut.clears, 0);
	put(&a);
	check_slot(0, 0, 0, 0);
	ck_assert_uint_eq(lut.clears, 1);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 0);
}
END_TEST

START_TEST(test_adjacent_extends)
{
	setup_map(8, PAGE);
	get_ok(1, 0x5000, 0x1000, 0, 1, 0);
	/* Shares page 0x5000 (slot 0) and claims the free slot 1. */
	get_ok(1, 0x5800, 0x1000, 0, 2, 0x800);
	check_slot(0, 1, 0x5000, 2);
	check_slot(1, 1, 0x6000, 1);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 2);
	ck_assert_uint_eq(lut.programs, 2);

	/* Extending backwards cannot share: page 0x4000 would be slot -1. */
	get_ok(1, 0x4800, 0x1000, 2, 2, 2 * PAGE + 0x800);
	check_slot(2, 1, 0x4000, 1);
	check_slot(3, 1, 0x5000, 1);
	check_slot(0, 1, 0x5000, 2);

	/* A request covering slots 2..3 and 0..1 exactly shares the lowest. */
	get_ok(1, 0x5000, 0x2000, 0, 2, 0);
	check_slot(0, 1, 0x5000, 3);
	check_slot(1, 1, 0x6000, 2);
	check_slot(3, 1, 0x5000, 1);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 4);
}
END_TEST

START_TEST(test_adjacent_blocked)
{
	setup_map(8, PAGE);
	get_ok(1, 0x5000, 0x1000, 0, 1, 0);
	get_ok(2, 0x6000, 0x1000, 1, 1, PAGE);	/* other peer, next page */
	get_ok(1, 0x9000, 0x1000, 2, 1, 2 * PAGE);	/* same peer, far page */

	/* Slot 1 is taken: a fresh run elsewhere, slot 0 not shared. */
	get_ok(1, 0x5800, 0x1000, 3, 2, 3 * PAGE + 0x800);
	check_slot(0, 1, 0x5000, 1);
	check_slot(1, 2, 0x6000, 1);
	check_slot(3, 1, 0x5000, 1);
	check_slot(4, 1, 0x6000, 1);

	/* Slot 2 maps another page of the same peer: blocked too. */
	get_ok(1, 0x8800, 0x1000, 5, 2, 5 * PAGE + 0x800);
	check_slot(2, 1, 0x9000, 1);
	check_slot(5, 1, 0x8000, 1);
	check_slot(6, 1, 0x9000, 1);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 7);
}
END_TEST

START_TEST(test_prefer_shared)
{
	struct mapping x;

	setup_map(8, PAGE);
	x = get_ok(1, 0x100000, 0x3000, 0, 3, 0);
	get_ok(1, 0x5000, 0x1000, 3, 1, 3 * PAGE);
	put(&x);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 1);

	/* Run 2..3 shares slot 3: it beats the lower, all-free run 0..1. */
	get_ok(1, 0x4000, 0x2000, 2, 2, 2 * PAGE);
	check_slot(2, 1, 0x4000, 1);
	check_slot(3, 1, 0x5000, 2);
	/* Run 3..4 shares slot 3 and claims slot 4. */
	get_ok(1, 0x5000, 0x2000, 3, 2, 3 * PAGE);
	check_slot(3, 1, 0x5000, 3);
	check_slot(4, 1, 0x6000, 1);
	/* Run 2..4 shares all three. */
	get_ok(1, 0x4fff, 0x1002, 2, 3, 2 * PAGE + 0xfff);
	check_slot(2, 1, 0x4000, 2);
	check_slot(3, 1, 0x5000, 4);
	check_slot(4, 1, 0x6000, 2);
	/* A new page of the same peer goes to the lowest free slot. */
	get_ok(1, 0x20000, 1, 0, 1, 0);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 4);
}
END_TEST

START_TEST(test_peers_never_share)
{
	struct mapping a, b;

	setup_map(4, PAGE);
	a = get_ok(1, 0x5000, 0x1000, 0, 1, 0);
	b = get_ok(2, 0x5000, 0x1000, 1, 1, PAGE);
	get_ok(2, 0x5400, 0x10, 1, 1, PAGE + 0x400);
	get_ok(1, 0x5400, 0x10, 0, 1, 0x400);
	check_slot(0, 1, 0x5000, 2);
	check_slot(1, 2, 0x5000, 2);
	/* Peer 0 is a peer like any other, not "free". */
	get_ok(0, 0x5000, 1, 2, 1, 2 * PAGE);
	check_slot(2, 0, 0x5000, 1);
	get_ok(0, 0x5000, 1, 2, 1, 2 * PAGE);
	check_slot(2, 0, 0x5000, 2);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 3);
	put(&a);
	put(&b);
	check_slot(0, 1, 0x5000, 1);
	check_slot(1, 2, 0x5000, 1);
}
END_TEST

START_TEST(test_refs_saturated)
{
	setup_map(4, PAGE);
	get_ok(1, 0x5000, 1, 0, 1, 0);
	/* A slot shared REFS_MAX times cannot be shared again. */
	slots[0].refs = SMARTIO_WINDOW_REFS_MAX - 1;
	get_ok(1, 0x5000, 1, 0, 1, 0);
	ck_assert_uint_eq(slots[0].refs, SMARTIO_WINDOW_REFS_MAX);
	get_ok(1, 0x5000, 1, 1, 1, PAGE);
	check_slot(1, 1, 0x5000, 1);
	check_slot(0, 1, 0x5000, SMARTIO_WINDOW_REFS_MAX);
}
END_TEST

/* ---- exhaustion ---- */

START_TEST(test_enospc)
{
	setup_map(4, PAGE);
	get_ok(1, 0x10000, 0x3000, 0, 3, 0);
	get_fails(1, 0x20000, 0x2000, -ENOSPC);		/* 2 pages, 1 free */
	get_fails(2, 0x10000, 0x2000, -ENOSPC);		/* other peer */
	get_fails(1, 0x13000, 0x2000, -ENOSPC);		/* would need 3, 4 */
	get_ok(1, 0x20000, 0x1000, 3, 1, 3 * PAGE);	/* exact fit */
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 4);

	/* Full: any new page fails, but sharing needs no free slot. */
	get_fails(1, 0x30000, 1, -ENOSPC);
	get_fails(2, 0x10000, 1, -ENOSPC);
	get_fails(1, 0x12fff, 2, -ENOSPC);	/* 0x13000 is not mapped */
	get_ok(1, 0x11000, 0x2000, 1, 2, PAGE);
	get_ok(1, 0x10000, 0x3000, 0, 3, 0);
	get_ok(1, 0x20fff, 1, 3, 1, 3 * PAGE + 0xfff);
	check_slot(0, 1, 0x10000, 2);
	check_slot(1, 1, 0x11000, 3);
	check_slot(2, 1, 0x12000, 3);
	check_slot(3, 1, 0x20000, 2);
}
END_TEST

START_TEST(test_fragmentation)
{
	struct mapping m[6];
	u32 i;

	setup_map(6, PAGE);
	for (i = 0; i < 6; i++)
		m[i] = get_ok(1, 0x100000ULL * (i + 1), 1, i, 1, i * PAGE);
	put(&m[1]);
	put(&m[3]);
	put(&m[5]);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 3);
	/* Three free slots, no two consecutive. */
	get_fails(1, 0x900000, 0x2000, -ENOSPC);
	get_fails(1, 0x900800, 0x1000, -ENOSPC);
	get_ok(1, 0x900000, 0x1000, 1, 1, PAGE);
	get_ok(1, 0xa00000, 1, 3, 1, 3 * PAGE);

	/* Only the last run of the aperture is free: usable (loop bound). */
	put(&m[4]);
	get_ok(1, 0x900000, 0x2000, 4, 2, 4 * PAGE);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 6);
	get_fails(1, 0xb00000, 1, -ENOSPC);
}
END_TEST

/* ---- put ---- */

START_TEST(test_put)
{
	struct mapping a, b, c;

	setup_map(4, PAGE);
	a = get_ok(1, 0x5000, 0x2000, 0, 2, 0);
	b = get_ok(1, 0x6000, 0x10, 1, 1, PAGE);
	c = get_ok(1, 0x5ff0, 0x20, 0, 2, 0xff0);
	check_slot(0, 1, 0x5000, 2);
	check_slot(1, 1, 0x6000, 3);

	put(&a);
	check_slot(0, 1, 0x5000, 1);
	check_slot(1, 1, 0x6000, 2);
	ck_assert_uint_eq(lut.clears, 0);
	put(&c);
	check_slot(0, 0, 0, 0);
	check_slot(1, 1, 0x6000, 1);
	ck_assert_uint_eq(lut.clears, 1);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 1);

	/* Out of range, empty and already free ranges do nothing. */
	smartio_window_put(&wm, 4, 1);
	smartio_window_put(&wm, 3, 2);
	smartio_window_put(&wm, 1, 4);		/* one past the end */
	smartio_window_put(&wm, 0, 5);
	smartio_window_put(&wm, 1, SENTINEL32);
	smartio_window_put(&wm, SENTINEL32, 2);
	smartio_window_put(&wm, 1, 0);
	smartio_window_put(&wm, 2, 2);
	smartio_window_put(NULL, 1, 1);
	check_slot(1, 1, 0x6000, 1);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 1);
	check_lut();

	put(&b);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 0);
	ck_assert_uint_eq(lut.programs, 2);
	ck_assert_uint_eq(lut.clears, 2);
}
END_TEST

/* ---- link loss ---- */

START_TEST(test_clear_peer)
{
	setup_map(8, PAGE);
	get_ok(1, 0x5000, 0x2000, 0, 2, 0);
	get_ok(2, 0x5000, 0x1000, 2, 1, 2 * PAGE);
	get_ok(1, 0x5000, 0x10, 0, 1, 0);		/* slot 0 refs 2 */
	get_ok(1, 0x80000, 0x1000, 3, 1, 3 * PAGE);
	get_ok(2, 0x9000, 0x2000, 4, 2, 4 * PAGE);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 6);

	ck_assert_uint_eq(smartio_window_clear_peer(&wm, 1), 3);
	check_lut();
	ck_assert_uint_eq(lut.clears, 3);
	check_slot(0, 0, 0, 0);
	check_slot(1, 0, 0, 0);
	check_slot(3, 0, 0, 0);
	check_slot(2, 2, 0x5000, 1);
	check_slot(4, 2, 0x9000, 1);
	check_slot(5, 2, 0xa000, 1);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 3);

	ck_assert_uint_eq(smartio_window_clear_peer(&wm, 1), 0);
	ck_assert_uint_eq(smartio_window_clear_peer(&wm, 3), 0);
	ck_assert_uint_eq(smartio_window_clear_peer(NULL, 2), 0);
	ck_assert_uint_eq(lut.clears, 3);

	/* The freed slots are reused, lowest first; stale data is ignored. */
	get_ok(1, 0x5000, 0x10, 0, 1, 0);
	check_slot(0, 1, 0x5000, 1);
	get_ok(3, 0x6000, 0x10, 1, 1, PAGE);

	ck_assert_uint_eq(smartio_window_clear_peer(&wm, 2), 3);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 2);
	check_lut();
}
END_TEST

/* ---- argument checks and 64-bit ends ---- */

START_TEST(test_einval)
{
	u64 off;
	u32 first, n;

	setup_map(8, PAGE);
	get_fails(1, 0x5000, 0, -EINVAL);
	get_fails(1, U64_ALL, 2, -EINVAL);		/* wraps by one byte */
	get_fails(1, U64_ALL - 0xfff, 0x1001, -EINVAL);
	get_fails(1, 2, U64_ALL, -EINVAL);
	get_fails(1, U64_ALL, U64_ALL, -EINVAL);
	get_fails(1, 1ULL << 63, 1ULL << 63 | 1, -EINVAL);
	/* Ending exactly at 2^64 is fine: too big here, but no -EINVAL. */
	get_fails(1, 1, U64_ALL, -ENOSPC);
	get_fails(1, 1ULL << 63, 1ULL << 63, -ENOSPC);

	ck_assert_int_eq(smartio_window_get(NULL, 1, 0, 1, &off, &first, &n),
			 -EINVAL);
	ck_assert_int_eq(smartio_window_get(&wm, 1, 0, 1, NULL, &first, &n),
			 -EINVAL);
	ck_assert_int_eq(smartio_window_get(&wm, 1, 0, 1, &off, NULL, &n),
			 -EINVAL);
	ck_assert_int_eq(smartio_window_get(&wm, 1, 0, 1, &off, &first, NULL),
			 -EINVAL);
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 0);
	ck_assert_uint_eq(smartio_window_slots_used(NULL), 0);
}
END_TEST

START_TEST(test_high_addresses)
{
	setup_map(8, PAGE);
	get_ok(1, U64_ALL, 1, 0, 1, 0xfff);
	check_slot(0, 1, U64_ALL - 0xfff, 1);
	get_ok(1, U64_ALL - 0x7ff, 0x800, 0, 1, 0x800);
	check_slot(0, 1, U64_ALL - 0xfff, 2);
	/* The page below cannot share slot 0 (it would sit at slot -1). */
	get_ok(1, U64_ALL - 0x17ff, 0x1800, 1, 2, PAGE + 0x800);
	check_slot(1, 1, U64_ALL - 0x1fff, 1);
	check_slot(2, 1, U64_ALL - 0xfff, 1);
	/* Ending exactly at 2^64, shares slots 1..2. */
	get_ok(1, U64_ALL - 0x1fff, 0x2000, 1, 2, PAGE);
	check_slot(1, 1, U64_ALL - 0x1fff, 2);
	check_slot(2, 1, U64_ALL - 0xfff, 2);
	/* Top bit set, bottom bits clear: not confused with low pages. */
	get_ok(1, 1ULL << 63, 0x1000, 3, 1, 3 * PAGE);
	get_ok(1, 0, 0x1000, 4, 1, 4 * PAGE);
	check_slot(3, 1, 1ULL << 63, 1);
	check_slot(4, 1, 0, 1);
}
END_TEST

START_TEST(test_huge_slots)
{
	setup_map(2, 1ULL << 63);
	get_ok(1, (1ULL << 63) + 5, (1ULL << 63) - 5, 0, 1, 5);
	check_slot(0, 1, 1ULL << 63, 1);
	get_fails(1, (1ULL << 63) - 1, 2, -ENOSPC);
	smartio_window_put(&wm, 0, 1);
	get_ok(1, (1ULL << 63) - 1, 2, 0, 2, (1ULL << 63) - 1);
	check_slot(0, 1, 0, 1);
	check_slot(1, 1, 1ULL << 63, 1);
	get_ok(1, 0, U64_ALL, 0, 2, 0);
	check_slot(0, 1, 0, 2);
	check_slot(1, 1, 1ULL << 63, 2);
}
END_TEST

/* ---- randomized, against a reference model ---- */

#define RND_LIVE	256
#define RND_OPS		5000
#define RND_PEERS	3

static u32 rnd_state;

static u32 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static struct mapping live[RND_LIVE];
static unsigned int nlive;

/* The model's view of slot @i, from the live mappings alone. */
static void model_slot(u32 i, u32 *refs, u16 *peer, u64 *base)
{
	u64 ss = smartio_window_slot_size(&wm);
	unsigned int j;

	*refs = 0;
	for (j = 0; j < nlive; j++) {
		const struct mapping *m = &live[j];

		if (i < m->first || i >= m->first + m->n)
			continue;
		(*refs)++;
		*peer = m->peer;
		*base = (m->addr & ~(ss - 1)) + (u64)(i - m->first) * ss;
	}
}

/* Map state: refs == number of live mappings covering each slot, etc. */
static void check_model(void)
{
	u64 ss = smartio_window_slot_size(&wm);
	u32 i, used = 0;
	unsigned int j;

	for (i = 0; i < wm.count; i++) {
		u32 refs;
		u16 peer = 0;
		u64 base = 0;

		model_slot(i, &refs, &peer, &base);
		check_slot(i, peer, base, refs);
		used += refs != 0;
	}
	for (j = 0; j < nlive; j++) {
		const struct mapping *m = &live[j];
		u64 first = m->addr & ~(ss - 1);

		ck_assert_uint_eq(m->offset,
				  m->first * ss + (m->addr - first));
		ck_assert_uint_eq(m->n,
				  (m->addr + m->size - 1 - first) / ss + 1);
		for (i = 0; i < m->n; i++)
			check_slot(m->first + i, m->peer, first + i * ss,
				   slots[m->first + i].refs);
	}
	ck_assert_uint_eq(smartio_window_slots_used(&wm), used);
	check_lut();
}

/*
 * Brute force placement from the model: -1 if no run fits, else the start
 * of the run sharing the most slots, lowest first.
 */
static long model_place(u16 peer, u64 addr, u64 size)
{
	u64 ss = smartio_window_slot_size(&wm);
	u64 first = addr & ~(ss - 1);
	u64 n = (addr + size - 1 - first) / ss + 1;
	long best = -1;
	u64 s, k, best_shared = 0;

	for (s = 0; s + n <= wm.count; s++) {
		u64 shared = 0;
		bool fits = true;

		for (k = 0; k < n && fits; k++) {
			u32 refs;
			u16 p = 0;
			u64 b = 0;

			model_slot(s + k, &refs, &p, &b);
			if (!refs)
				continue;
			if (p == peer && b == first + k * ss)
				shared++;
			else
				fits = false;
		}
		if (fits && (best < 0 || shared > best_shared)) {
			best = (long)s;
			best_shared = shared;
		}
	}
	return best;
}

static u64 rnd_size(u64 ss, u64 off)
{
	switch (rnd() % 6) {
	case 0:
		return 1;
	case 1:
		return ss - off;		/* up to the page end */
	case 2:
		return ss - off + 1;		/* one byte into the next */
	case 3:
		return (1 + rnd() % 3) * ss;
	default:
		return 1 + rnd() % (3 * ss);
	}
}

static u64 rnd_offset(u64 ss)
{
	switch (rnd() % 4) {
	case 0:
		return 0;
	case 1:
		return ss - 1;
	default:
		return rnd() % ss;
	}
}

static void rnd_remove(unsigned int j)
{
	live[j] = live[--nlive];
}

static const struct {
	u32 count;
	u64 slot_size;
	u64 page_base;
	u32 seed;
} rnd_cases[] = {
	{ 16, PAGE, 0x80000000ULL, 2463534242U },
	{ 24, 0x10000, 0, 88172645U },
	{ 12, PAGE, 0ULL - 16 * PAGE, 1234567U },	/* top of 2^64 */
};

START_TEST(test_random)
{
	u64 ss = rnd_cases[_i].slot_size;
	unsigned int op, j, gets = 0, shares = 0, nospc = 0, clears = 0;

	setup_map(rnd_cases[_i].count, ss);
	rnd_state = rnd_cases[_i].seed;
	nlive = 0;

	for (op = 0; op < RND_OPS; op++) {
		u32 r = rnd() % 100;

		if (r < 2) {
			/* Link loss of one peer. */
			u16 peer = 1 + rnd() % RND_PEERS;
			u32 want = 0, i;

			for (i = 0; i < wm.count; i++)
				want += slots[i].refs && slots[i].peer == peer;
			ck_assert_uint_eq(smartio_window_clear_peer(&wm, peer),
					  want);
			for (j = nlive; j-- > 0;)
				if (live[j].peer == peer)
					rnd_remove(j);
			clears++;
		} else if (r < 50 && nlive) {
			j = rnd() % nlive;
			put(&live[j]);
			rnd_remove(j);
		} else if (nlive < RND_LIVE) {
			struct mapping m;
			u16 peer = 1 + rnd() % RND_PEERS;
			u64 page = rnd() % 12;
			u64 off = rnd_offset(ss);
			u64 addr = rnd_cases[_i].page_base + page * ss + off;
			u64 size = rnd_size(ss, off);
			long want;
			unsigned int programs = lut.programs;

			if (addr + size - 1 < addr)	/* keep it valid */
				size = U64_ALL - addr + 1;
			want = model_place(peer, addr, size);
			if (want < 0) {
				get_fails(peer, addr, size, -ENOSPC);
				nospc++;
			} else {
				u64 first = addr & ~(ss - 1);
				u32 n = (addr + size - 1 - first) / ss + 1;

				m = get_ok(peer, addr, size, (u32)want, n,
					   (u64)want * ss + (addr - first));
				live[nlive++] = m;
				gets++;
				if (lut.programs - programs < n)
					shares++;
			}
		}
		check_model();
	}

	/* Put everything left: no slot may leak. */
	while (nlive) {
		j = rnd() % nlive;
		put(&live[j]);
		rnd_remove(j);
		check_model();
	}
	ck_assert_uint_eq(smartio_window_slots_used(&wm), 0);
	ck_assert_uint_eq(lut.programs, lut.clears);
	check_lut();

	/* The sequence exercised what it should. */
	ck_assert_uint_gt(gets, RND_OPS / 4);
	ck_assert_uint_gt(shares, RND_OPS / 20);
	ck_assert_uint_gt(nospc, RND_OPS / 50);
	ck_assert_uint_gt(clears, 20);
}
END_TEST

/* ---- smartio_range_within ---- */

static const struct {
	u64 addr, size, base, limit;
	bool within;
} within_cases[] = {
	{ 0x1000, 0x1000, 0x1000, 0x1000, true },	/* exactly */
	{ 0x1800, 0x800, 0x1000, 0x1000, true },	/* up to the end */
	{ 0x1800, 0x801, 0x1000, 0x1000, false },	/* one past the end */
	{ 0x0fff, 0x10, 0x1000, 0x1000, false },	/* starts before */
	{ 0x0800, 0x1000, 0x1000, 0x1000, false },	/* overlaps the start */
	{ 0x1800, 0x1000, 0x1000, 0x1000, false },	/* overlaps the end */
	{ 0x0000, 0x3000, 0x1000, 0x1000, false },	/* covers it */
	{ 0x2000, 0x1, 0x1000, 0x1000, false },		/* just after */
	{ 0x2000, 0, 0x1000, 0x1000, true },		/* a point at the end */
	{ 0x1000, 0x1001, 0x1000, 0x1000, false },	/* larger */
	/* Sums that would wrap: the range ends past 2^64. */
	{ U64_ALL - 0xfff, 0x2000, U64_ALL - 0x1fff, 0x2000, false },
	{ U64_ALL - 0xfff, 0x1000, U64_ALL - 0x1fff, 0x2000, true },
	{ 0x1000, U64_ALL, 0x1000, 0x1000, false },
	{ U64_ALL, 1, 0, U64_ALL, false },
	{ U64_ALL - 1, 1, 0, U64_ALL, true },
	{ 0, U64_ALL, 0, U64_ALL, true },
	{ 0x1000, 0x1000, U64_ALL - 0xfff, U64_ALL, false },
};

START_TEST(test_within)
{
	ck_assert_msg(smartio_range_within(within_cases[_i].addr,
					   within_cases[_i].size,
					   within_cases[_i].base,
					   within_cases[_i].limit) ==
		      within_cases[_i].within,
		      "%#llx+%#llx in %#llx+%#llx: want %d",
		      (unsigned long long)within_cases[_i].addr,
		      (unsigned long long)within_cases[_i].size,
		      (unsigned long long)within_cases[_i].base,
		      (unsigned long long)within_cases[_i].limit,
		      within_cases[_i].within);
}
END_TEST

Suite *window_suite(void)
{
	Suite *s = suite_create("window");
	TCase *tc;

	tc = tcase_create("init");
	tcase_add_loop_test(tc, test_init, 0, N_ELEM(init_cases));
	tcase_add_test(tc, test_init_null);
	suite_add_tcase(s, tc);

	tc = tcase_create("placement");
	tcase_add_test(tc, test_single_slot);
	tcase_add_test(tc, test_straddle);
	tcase_add_loop_test(tc, test_boundary, 0, N_ELEM(boundary));
	tcase_add_test(tc, test_too_big);
	tcase_add_test(tc, test_big_slots);
	suite_add_tcase(s, tc);

	tc = tcase_create("share");
	tcase_add_test(tc, test_share_same_page);
	tcase_add_test(tc, test_adjacent_extends);
	tcase_add_test(tc, test_adjacent_blocked);
	tcase_add_test(tc, test_prefer_shared);
	tcase_add_test(tc, test_peers_never_share);
	tcase_add_test(tc, test_refs_saturated);
	suite_add_tcase(s, tc);

	tc = tcase_create("exhaustion");
	tcase_add_test(tc, test_enospc);
	tcase_add_test(tc, test_fragmentation);
	suite_add_tcase(s, tc);

	tc = tcase_create("unmap");
	tcase_add_test(tc, test_put);
	tcase_add_test(tc, test_clear_peer);
	suite_add_tcase(s, tc);

	tc = tcase_create("range");
	tcase_add_test(tc, test_einval);
	tcase_add_test(tc, test_high_addresses);
	tcase_add_test(tc, test_huge_slots);
	tcase_add_loop_test(tc, test_within, 0, N_ELEM(within_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("random");
	tcase_add_loop_test(tc, test_random, 0, N_ELEM(rnd_cases));
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	return s;
}
