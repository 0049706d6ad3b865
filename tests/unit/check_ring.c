// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the SPSC record ring (lib/ring.c, include/smartio/ring.h).
 */
#include <stdio.h>
#include <string.h>

#include <smartio/ring.h>

#include "unit.h"

#define N_ELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

#define POISON	0xa5

static const struct smartio_ring_slot slot_sentinel = {
	0xdeadbeefU, 0xdeadbeefU, 0xdeadbeefU, 0xdeadbeefU, 0xdeadbeefU,
};
static const struct smartio_ring_rec rec_sentinel = {
	0xdeadbeefU, 0xdeadbeefU, 0xdeadbeefU,
};

static int slot_eq(const struct smartio_ring_slot *a,
		   const struct smartio_ring_slot *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static int rec_eq(const struct smartio_ring_rec *a,
		  const struct smartio_ring_rec *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static u32 xorshift32(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* ---- geometry ---- */

static const struct {
	u32 size;
	bool valid;
} sizes[] = {
	{ 0, false }, { 1, false }, { 8, false }, { 16, false },
	{ 31, false }, { 32, true }, { 33, false }, { 48, false },
	{ 64, true }, { 4096, true }, { 4097, false }, { 6144, false },
	{ 0x40000000U, true }, { 0x80000000U, true }, { 0x80000008U, false },
	{ 0xc0000000U, false }, { 0xffffffffU, false },
};

START_TEST(test_size_valid)
{
	ck_assert_msg(smartio_ring_size_valid(sizes[_i].size) ==
		      sizes[_i].valid, "size %#x", sizes[_i].size);
}
END_TEST

START_TEST(test_rec_len)
{
	ck_assert_uint_eq(smartio_ring_rec_len(0), 8);
	ck_assert_uint_eq(smartio_ring_rec_len(1), 16);
	ck_assert_uint_eq(smartio_ring_rec_len(7), 16);
	ck_assert_uint_eq(smartio_ring_rec_len(8), 16);
	ck_assert_uint_eq(smartio_ring_rec_len(9), 24);
	ck_assert_uint_eq(smartio_ring_rec_len(24), 32);
	ck_assert_uint_eq(smartio_ring_rec_len(4096), 4104);
	ck_assert_uint_eq(smartio_ring_rec_len(0x7ffffff8U), 0x80000000U);
	ck_assert_uint_eq(smartio_ring_max_payload(32), 8);
	ck_assert_uint_eq(smartio_ring_max_payload(4096), 2040);
	ck_assert_uint_eq(smartio_ring_max_payload(0x80000000U), 0x3ffffff8U);
	ck_assert_uint_eq(smartio_ring_offset(64, 0xffffffc0U), 0);
	ck_assert_uint_eq(smartio_ring_offset(64, 0xfffffff8U), 56);
	ck_assert_uint_eq(smartio_ring_offset(64, 0x108), 8);
}
END_TEST

START_TEST(test_used_free)
{
	ck_assert_uint_eq(smartio_ring_used(100, 100), 0);
	ck_assert_uint_eq(smartio_ring_free(64, 100, 100), 64);
	ck_assert_uint_eq(smartio_ring_used(164, 100), 64);
	ck_assert_uint_eq(smartio_ring_free(64, 164, 100), 0);
	ck_assert_uint_eq(smartio_ring_free(64, 156, 100), 8);
	/* Across 2^32. */
	ck_assert_uint_eq(smartio_ring_used(0x10, 0xfffffff0U), 0x20);
	ck_assert_uint_eq(smartio_ring_free(64, 0x10, 0xfffffff0U), 0x20);
	ck_assert_uint_eq(smartio_ring_used(0x30, 0xfffffff0U), 64);
	ck_assert_uint_eq(smartio_ring_free(64, 0x30, 0xfffffff0U), 0);
	/* Corrupt: more than size apart, or tail ahead of head. */
	ck_assert_uint_eq(smartio_ring_free(64, 0x38, 0xfffffff0U), 0);
	ck_assert_uint_eq(smartio_ring_free(64, 100, 108), 0);
}
END_TEST

/* ---- reserve ---- */

START_TEST(test_reserve_args)
{
	struct smartio_ring_slot s = slot_sentinel;

	ck_assert_int_eq(smartio_ring_reserve(48, 0, 0, 0, &s), -EINVAL);
	ck_assert_int_eq(smartio_ring_reserve(16, 0, 0, 0, &s), -EINVAL);
	ck_assert_int_eq(smartio_ring_reserve(64, 0, 0, 0, NULL), -EINVAL);
	ck_assert_int_eq(smartio_ring_reserve(64, 0, 0, 25, &s), -EMSGSIZE);
	ck_assert_int_eq(smartio_ring_reserve(64, 0, 0, 0xffffffffU, &s),
			 -EMSGSIZE);
	/* Corrupt counters. */
	ck_assert_int_eq(smartio_ring_reserve(64, 72, 0, 0, &s), -EIO);
	ck_assert_int_eq(smartio_ring_reserve(64, 0, 8, 0, &s), -EIO);
	ck_assert_int_eq(smartio_ring_reserve(64, 4, 0, 0, &s), -EIO);
	ck_assert_int_eq(smartio_ring_reserve(64, 8, 4, 0, &s), -EIO);
	ck_assert_int_eq(smartio_ring_reserve(64, 0x38, 0xfffffff0U, 0, &s),
			 -EIO);
	ck_assert(slot_eq(&s, &slot_sentinel));
}
END_TEST

START_TEST(test_reserve_empty_full)
{
	struct smartio_ring_slot s = slot_sentinel;
	u32 h = 0x1000;

	/* Empty: a max-size record (32 bytes = size / 2) at offset 0. */
	ck_assert_int_eq(smartio_ring_reserve(64, h, h, 24, &s), 0);
	ck_assert_uint_eq(s.pad_len, 0);
	ck_assert_uint_eq(s.off, 0);
	ck_assert_uint_eq(s.rec_len, 32);
	ck_assert_uint_eq(s.next_head, h + 32);
	h = s.next_head;

	/* Second record exactly fills the ring to its end: full, no pad. */
	ck_assert_int_eq(smartio_ring_reserve(64, h, 0x1000, 17, &s), 0);
	ck_assert_uint_eq(s.pad_len, 0);
	ck_assert_uint_eq(s.off, 32);
	ck_assert_uint_eq(s.rec_len, 32);
	ck_assert_uint_eq(s.next_head, 0x1040);
	h = s.next_head;
	ck_assert_uint_eq(smartio_ring_free(64, h, 0x1000), 0);

	/* Full: not even an empty record; untouched slot. */
	s = slot_sentinel;
	ck_assert_int_eq(smartio_ring_reserve(64, h, 0x1000, 0, &s), -EAGAIN);
	ck_assert(slot_eq(&s, &slot_sentinel));

	/* 8 bytes free: an empty record fits, a 1-byte one does not. */
	ck_assert_int_eq(smartio_ring_reserve(64, h, 0x1008, 1, &s), -EAGAIN);
	ck_assert_int_eq(smartio_ring_reserve(64, h, 0x1008, 0, &s), 0);
	ck_assert_uint_eq(s.pad_len, 0);
	ck_assert_uint_eq(s.off, 0);
	ck_assert_uint_eq(s.rec_len, 8);
	ck_assert_uint_eq(s.next_head, 0x1048);
}
END_TEST

/* Size 256, head at offset 192: 64 bytes to the end. */
START_TEST(test_reserve_exact_end_and_pad)
{
	struct smartio_ring_slot s = slot_sentinel;
	u32 h = 0x100 + 192, t;

	/* 56 payload bytes: 64-byte record reaches the end exactly. */
	ck_assert_int_eq(smartio_ring_reserve(256, h, h, 56, &s), 0);
	ck_assert_uint_eq(s.pad_len, 0);
	ck_assert_uint_eq(s.off, 192);
	ck_assert_uint_eq(s.rec_len, 64);
	ck_assert_uint_eq(s.next_head, h + 64);
	ck_assert_uint_eq(smartio_ring_offset(256, s.next_head), 0);

	/* One byte more: 72 bytes, PAD of 64 first, record at 0. */
	ck_assert_int_eq(smartio_ring_reserve(256, h, h, 57, &s), 0);
	ck_assert_uint_eq(s.pad_off, 192);
	ck_assert_uint_eq(s.pad_len, 64);
	ck_assert_uint_eq(s.off, 0);
	ck_assert_uint_eq(s.rec_len, 72);
	ck_assert_uint_eq(s.next_head, h + 136);

	/* The PAD counts against the free space: 136 needed. */
	t = h + 136 - 256;		/* free = 136 */
	ck_assert_int_eq(smartio_ring_reserve(256, h, t, 57, &s), 0);
	ck_assert_uint_eq(s.next_head, t + 256);
	s = slot_sentinel;
	ck_assert_int_eq(smartio_ring_reserve(256, h, t - 8, 57, &s),
			 -EAGAIN);	/* free = 128 */
	ck_assert(slot_eq(&s, &slot_sentinel));
	/* ...while with 64 free the exact-fit record still goes in. */
	ck_assert_int_eq(smartio_ring_reserve(256, h, h + 64 - 256, 56, &s),
			 0);
	ck_assert_int_eq(smartio_ring_reserve(256, h, h + 56 - 256, 56, &s),
			 -EAGAIN);
}
END_TEST

/* Once the ring is empty, a max-size record fits at every offset. */
START_TEST(test_reserve_progress)
{
	static const u32 rsizes[] = { 32, 64, 256, 4096 };
	struct smartio_ring_slot s;
	u32 size = rsizes[_i], off, max = smartio_ring_max_payload(size);

	for (off = 0; off < size; off += 8) {
		u32 h = 0U - size + off;	/* offset off, below 2^32 */
		int ret = smartio_ring_reserve(size, h, h, max, &s);

		ck_assert_msg(ret == 0, "size %u off %u: %d", size, off, ret);
		ck_assert_uint_eq(s.rec_len, size / 2);
		ck_assert(s.pad_len + s.rec_len <= size);
		ck_assert(s.off + s.rec_len <= size);
		ck_assert_uint_eq(s.pad_len,
				  size - off < size / 2 ? size - off : 0);
		ck_assert_int_eq(smartio_ring_reserve(size, h, h, max + 1, &s),
				 -EMSGSIZE);
	}
}
END_TEST

/* ---- peek ---- */

static u8 ring[256];

static void put_hdr(u32 off, u32 type, u32 len)
{
	smartio_ring_hdr_encode(ring + off, type, len);
}

START_TEST(test_hdr_encode)
{
	static const u8 want[8] = { 0x78, 0x56, 0x34, 0x12, 0x02, 0, 0, 0 };
	u8 buf[10];

	memset(buf, POISON, sizeof(buf));
	smartio_ring_hdr_encode(buf + 1, SMARTIO_RING_REC_PAD, 0x12345678);
	ck_assert_mem_eq(buf + 1, want, 8);
	ck_assert_uint_eq(buf[0], POISON);
	ck_assert_uint_eq(buf[9], POISON);
}
END_TEST

START_TEST(test_peek_basic)
{
	struct smartio_ring_rec r = rec_sentinel;
	u32 t = 0x100 + 192;

	memset(ring, POISON, sizeof(ring));
	ck_assert_int_eq(smartio_ring_peek(ring, 256, t, t, &r), -EAGAIN);
	ck_assert(rec_eq(&r, &rec_sentinel));

	/* A 56-byte record reaching the end exactly. */
	put_hdr(192, SMARTIO_RING_REC_DATA, 56);
	ck_assert_int_eq(smartio_ring_peek(ring, 256, t + 64, t, &r), 0);
	ck_assert_uint_eq(r.off, 200);
	ck_assert_uint_eq(r.len, 56);
	ck_assert_uint_eq(r.next_tail, t + 64);
	/* Not all of it published yet: corrupt. */
	r = rec_sentinel;
	ck_assert_int_eq(smartio_ring_peek(ring, 256, t + 56, t, &r),
			 -EBADMSG);
	ck_assert(rec_eq(&r, &rec_sentinel));

	/* PAD at 192, then a 57-byte record at 0. */
	put_hdr(192, SMARTIO_RING_REC_PAD, 56);
	put_hdr(0, SMARTIO_RING_REC_DATA, 57);
	ck_assert_int_eq(smartio_ring_peek(ring, 256, t + 136, t, &r), 0);
	ck_assert_uint_eq(r.off, 8);
	ck_assert_uint_eq(r.len, 57);
	ck_assert_uint_eq(r.next_tail, t + 136);
	ck_assert_uint_eq(smartio_ring_offset(256, r.next_tail), 72);
	r = rec_sentinel;
	ck_assert_int_eq(smartio_ring_peek(ring, 256, t + 128, t, &r),
			 -EBADMSG);
	ck_assert(rec_eq(&r, &rec_sentinel));

	/* Empty record, counters across 2^32 (tail 0xfffffff8, offset 248). */
	put_hdr(248, SMARTIO_RING_REC_DATA, 0);
	ck_assert_int_eq(smartio_ring_peek(ring, 256, 0, 0xfffffff8U, &r), 0);
	ck_assert_uint_eq(r.off, 256);
	ck_assert_uint_eq(r.len, 0);
	ck_assert_uint_eq(r.next_tail, 0);
}
END_TEST

static const struct {
	const char *what;
	u32 tail_off;		/* tail's offset; tail = 0x1000 + tail_off */
	u32 used;
	u32 type, len;		/* header at tail_off */
	u32 type0, len0;	/* header at 0 (after a PAD) */
	int want;
} peek_cases[] = {
#define D SMARTIO_RING_REC_DATA
#define P SMARTIO_RING_REC_PAD
	{ "data ok", 64, 24, D, 10, 0, 0, 0 },
	{ "data len past used", 64, 16, D, 9, 0, 0, -EBADMSG },
	{ "data len 0xffffffff", 64, 256, D, 0xffffffffU, 0, 0, -EBADMSG },
	{ "data len max", 0, 128, D, 120, 0, 0, 0 },
	{ "data len max+1", 0, 136, D, 121, 0, 0, -EBADMSG },
	{ "data across the end", 224, 64, D, 40, 0, 0, -EBADMSG },
	{ "type 0", 64, 24, 0, 10, 0, 0, -EBADMSG },
	{ "type 3", 64, 24, 3, 10, 0, 0, -EBADMSG },
	{ "pad ok", 224, 48, P, 24, D, 8, 0 },
	{ "pad len short", 224, 48, P, 16, D, 8, -EBADMSG },
	{ "pad len long", 224, 48, P, 32, D, 8, -EBADMSG },
	{ "pad alone", 224, 32, P, 24, D, 8, -EBADMSG },
	{ "pad, record past used", 224, 40, P, 24, D, 8, -EBADMSG },
	{ "pad, pad", 224, 48, P, 24, P, 8, -EBADMSG },
	{ "pad, type 0", 224, 48, P, 24, 0, 8, -EBADMSG },
	{ "pad at 0", 0, 256, P, 248, D, 8, -EBADMSG },
	{ "pad of 8 at 248", 248, 24, P, 0, D, 8, 0 },
	{ "full ring, data", 0, 256, D, 120, 0, 0, 0 },
#undef D
#undef P
};

START_TEST(test_peek_cases)
{
	struct smartio_ring_rec r = rec_sentinel;
	u32 t = 0x1000 + peek_cases[_i].tail_off;
	int ret;

	memset(ring, POISON, sizeof(ring));
	put_hdr(peek_cases[_i].tail_off, peek_cases[_i].type,
		peek_cases[_i].len);
	if (peek_cases[_i].tail_off)
		put_hdr(0, peek_cases[_i].type0, peek_cases[_i].len0);

	ret = smartio_ring_peek(ring, 256, t + peek_cases[_i].used, t, &r);
	ck_assert_msg(ret == peek_cases[_i].want, "%s: peek = %d, want %d",
		      peek_cases[_i].what, ret, peek_cases[_i].want);
	if (ret)
		ck_assert(rec_eq(&r, &rec_sentinel));
	else
		ck_assert(r.next_tail - t <= peek_cases[_i].used);
}
END_TEST

START_TEST(test_peek_args)
{
	struct smartio_ring_rec r = rec_sentinel;

	memset(ring, POISON, sizeof(ring));
	put_hdr(0, SMARTIO_RING_REC_DATA, 0);
	ck_assert_int_eq(smartio_ring_peek(NULL, 256, 8, 0, &r), -EINVAL);
	ck_assert_int_eq(smartio_ring_peek(ring, 256, 8, 0, NULL), -EINVAL);
	ck_assert_int_eq(smartio_ring_peek(ring, 100, 8, 0, &r), -EINVAL);
	ck_assert_int_eq(smartio_ring_peek(ring, 256, 264, 0, &r), -EIO);
	ck_assert_int_eq(smartio_ring_peek(ring, 256, 0, 8, &r), -EIO);
	ck_assert_int_eq(smartio_ring_peek(ring, 256, 12, 4, &r), -EIO);
	ck_assert_int_eq(smartio_ring_peek(ring, 256, 9, 0, &r), -EIO);
	ck_assert(rec_eq(&r, &rec_sentinel));
	ck_assert_int_eq(smartio_ring_peek(ring, 256, 8, 0, &r), 0);
}
END_TEST

/* ---- producer/consumer simulation ---- */

/* Payload of record @n: its length and bytes derive from @n alone. */
static u32 sim_len(u32 n, u32 max)
{
	u32 x = n * 2654435761U + 1;

	xorshift32(&x);
	xorshift32(&x);
	/* Mostly small, sometimes up to the maximum, sometimes empty. */
	switch (x % 8) {
	case 0:
		return 0;
	case 1:
		return max - (x >> 8) % 9 % (max + 1);
	case 2:
	case 3:
		return (x >> 8) % (max + 1);
	default:
		return (x >> 8) % (max < 64 ? max + 1 : 64);
	}
}

static u8 sim_byte(u32 n, u32 i)
{
	return (u8)((n * 131 + i * 7) ^ (n >> 8) ^ (i >> 8));
}

static u8 sim_ring[4096];

static void sim_run(u32 size, u32 start, u32 seed, u32 records)
{
	u32 max = smartio_ring_max_payload(size);
	u32 head = start, tail = start, produced = 0, consumed = 0;
	u32 pads = 0, exact_ends = 0, fulls = 0, x = seed;
	struct smartio_ring_slot s;
	struct smartio_ring_rec r;
	u32 i;
	int ret;

	memset(sim_ring, POISON, size);
	while (consumed < records) {
		/* A burst of producing, then a burst of consuming. */
		u32 burst = xorshift32(&x) % 6;

		for (; burst && produced < records; burst--) {
			u32 len = sim_len(produced, max);
			u32 free = smartio_ring_free(size, head, tail);
			u32 off = smartio_ring_offset(size, head);
			u32 need = smartio_ring_rec_len(len);

			if (need > size - off)
				need += size - off;
			ret = smartio_ring_reserve(size, head, tail, len, &s);
			if (ret == -EAGAIN) {
				if (need <= free)
					ck_abort_msg("EAGAIN with %u free for %u",
						     free, need);
				fulls++;
				break;
			}
			if (ret)
				ck_abort_msg("reserve(%u) = %d", len, ret);
			if (s.next_head - head != need || need > free ||
			    s.off + s.rec_len > size)
				ck_abort_msg("bad slot for %u at %u", len, off);
			if (s.pad_len) {
				pads++;
				smartio_ring_hdr_encode(sim_ring + s.pad_off,
							SMARTIO_RING_REC_PAD,
							s.pad_len - 8);
			} else if (s.off + s.rec_len == size) {
				exact_ends++;
			}
			smartio_ring_hdr_encode(sim_ring + s.off,
						SMARTIO_RING_REC_DATA, len);
			for (i = 0; i < len; i++)
				sim_ring[s.off + 8 + i] = sim_byte(produced, i);
			head = s.next_head;
			produced++;
			if (smartio_ring_used(head, tail) > size)
				ck_abort_msg("used %u > size %u",
					     smartio_ring_used(head, tail), size);
		}

		burst = xorshift32(&x) % 6;
		for (; burst; burst--) {
			u32 len = sim_len(consumed, max);

			ret = smartio_ring_peek(sim_ring, size, head, tail, &r);
			if (ret == -EAGAIN) {
				if (head != tail)
					ck_abort_msg("EAGAIN, used %u",
						     head - tail);
				break;
			}
			if (ret || r.len != len)
				ck_abort_msg("record %u: peek %d len %u want %u",
					     consumed, ret, r.len, len);
			for (i = 0; i < len; i++)
				if (sim_ring[r.off + i] != sim_byte(consumed, i))
					ck_abort_msg("record %u byte %u",
						     consumed, i);
			/* Poison what was consumed, PAD included. */
			for (i = tail; i != r.next_tail; i++)
				sim_ring[smartio_ring_offset(size, i)] = POISON;
			tail = r.next_tail;
			consumed++;
		}
	}
	ck_assert_uint_eq(head, tail);
	ck_assert_uint_eq(produced, records);
	ck_assert_int_eq(smartio_ring_peek(sim_ring, size, head, tail, &r),
			 -EAGAIN);
	/* The interesting paths were all taken. */
	ck_assert_msg(pads > 0 && exact_ends > 0 && fulls > 0,
		      "size %u: pads %u exact ends %u fulls %u", size, pads,
		      exact_ends, fulls);
}

START_TEST(test_sim)
{
	static const struct {
		u32 size, start, records;
	} runs[] = {
		{ 32, 0xfffffff0U, 50000 },
		{ 64, 0xffffff00U, 50000 },
		{ 256, 0xfffffff0U, 100000 },
		{ 4096, 0xfffffff0U, 100000 },
		{ 4096, 0xfffe0000U, 50000 },	/* wraps 2^32 repeatedly */
	};

	sim_run(runs[_i].size, runs[_i].start, 2463534242U + _i,
		runs[_i].records);
}
END_TEST

/*
 * A peer writes what it likes into the ring and its counters: whatever the
 * bytes, peek returns a record that lies in the ring and in what the
 * producer published, or refuses. Headers are drawn near the valid ones
 * (types DATA and PAD, lengths around what fits) as often as at random,
 * so that both the checks and the records behind them are reached.
 */
START_TEST(test_peek_garbage)
{
	static u8 ring[256];
	const u32 size = sizeof(ring);
	u32 x = 2463534242U, i, n, head, tail, used, off, w;
	unsigned int records = 0, refused = 0, pads = 0;
	struct smartio_ring_rec r;
	int ret;

	for (n = 0; n < 200000; n++) {
		for (i = 0; i < size; i += 4) {
			w = xorshift32(&x);
			switch (w % 4) {
			case 0:	/* a length that may fit */
				w = (w >> 8) % (size / 2 + 16);
				break;
			case 1:	/* a type the scheme knows, or nearly */
				w = (w >> 8) % 4;
				break;
			}
			memcpy(ring + i, &w, 4);
		}
		tail = xorshift32(&x);
		if (xorshift32(&x) % 4)
			tail &= ~(u32)(SMARTIO_RING_ALIGN - 1);
		head = tail + xorshift32(&x) % (size + 16);
		if (xorshift32(&x) % 4)
			head &= ~(u32)(SMARTIO_RING_ALIGN - 1);
		/* Now and then a pad, valid, where the record would start. */
		off = smartio_ring_offset(size, tail);
		if (!(xorshift32(&x) % 4) && off)
			smartio_ring_hdr_encode(ring + off, SMARTIO_RING_REC_PAD,
						size - off - SMARTIO_RING_HDR_LEN);

		r = rec_sentinel;
		ret = smartio_ring_peek(ring, size, head, tail, &r);
		if (ret) {
			ck_assert_msg(ret == -EBADMSG || ret == -EIO ||
				      ret == -EAGAIN, "peek = %d", ret);
			ck_assert(rec_eq(&r, &rec_sentinel));
			refused++;
			continue;
		}
		used = smartio_ring_used(head, tail);
		ck_assert_msg(r.off >= SMARTIO_RING_HDR_LEN &&
			      r.off + r.len <= size &&
			      r.len <= smartio_ring_max_payload(size),
			      "record at %u of %u bytes in a ring of %u",
			      r.off, r.len, size);
		ck_assert_msg(r.next_tail - tail <= used &&
			      r.next_tail != tail &&
			      !(r.next_tail % SMARTIO_RING_ALIGN),
			      "next tail %u from %u, %u used", r.next_tail,
			      tail, used);
		if (r.off == SMARTIO_RING_HDR_LEN && off)
			pads++;
		records++;
	}
	ck_assert_msg(records > 1000 && refused > 1000 && pads > 100,
		      "records %u refused %u past a pad %u", records, refused,
		      pads);
}
END_TEST

Suite *ring_suite(void)
{
	Suite *s = suite_create("ring");
	TCase *tc;

	tc = tcase_create("geometry");
	tcase_add_loop_test(tc, test_size_valid, 0, N_ELEM(sizes));
	tcase_add_test(tc, test_rec_len);
	tcase_add_test(tc, test_used_free);
	suite_add_tcase(s, tc);

	tc = tcase_create("reserve");
	tcase_add_test(tc, test_reserve_args);
	tcase_add_test(tc, test_reserve_empty_full);
	tcase_add_test(tc, test_reserve_exact_end_and_pad);
	tcase_add_loop_test(tc, test_reserve_progress, 0, 4);
	suite_add_tcase(s, tc);

	tc = tcase_create("peek");
	tcase_add_test(tc, test_hdr_encode);
	tcase_add_test(tc, test_peek_basic);
	tcase_add_loop_test(tc, test_peek_cases, 0, N_ELEM(peek_cases));
	tcase_add_test(tc, test_peek_args);
	tcase_add_test(tc, test_peek_garbage);
	suite_add_tcase(s, tc);

	tc = tcase_create("simulation");
	tcase_add_loop_test(tc, test_sim, 0, 5);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	return s;
}
