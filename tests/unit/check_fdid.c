// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for fabric device ids (lib/fdid.c, include/smartio/fdid.h).
 */
#include <stdio.h>
#include <string.h>

#include <smartio/fdid.h>

#include "unit.h"

#define SENTINEL	0xdeadbeefU

/* ---- make / node / index / valid ---- */

START_TEST(test_make_split)
{
	ck_assert_uint_eq(smartio_fdid_make(8, 0), 0x80000);
	ck_assert_uint_eq(smartio_fdid_make(8, 2), 0x80002);
	ck_assert_uint_eq(smartio_fdid_make(1, 0xffff), 0x1ffff);
	ck_assert_uint_eq(smartio_fdid_make(0xffff, 0), 0xffff0000U);
	ck_assert_uint_eq(smartio_fdid_make(0xffff, 0xffff), 0xffffffffU);
	ck_assert_uint_eq(smartio_fdid_make(0, 0xffff), 0xffff);

	ck_assert_uint_eq(smartio_fdid_node(0xffffffffU), 0xffff);
	ck_assert_uint_eq(smartio_fdid_index(0xffffffffU), 0xffff);
	ck_assert_uint_eq(smartio_fdid_node(0x1ffff), 1);
	ck_assert_uint_eq(smartio_fdid_index(0x1ffff), 0xffff);
	ck_assert_uint_eq(smartio_fdid_node(0xffff0000U), 0xffff);
	ck_assert_uint_eq(smartio_fdid_index(0xffff0000U), 0);
	ck_assert_uint_eq(smartio_fdid_node(0x12345678), 0x1234);
	ck_assert_uint_eq(smartio_fdid_index(0x12345678), 0x5678);
}
END_TEST

START_TEST(test_make_split_loop)
{
	unsigned int node, index;

	for (node = 0; node <= 0xffff; node += 0x101) {
		for (index = 0; index <= 0xffff; index += 0xff) {
			u32 f = smartio_fdid_make(node, index);

			if (f != (node << 16 | index) ||
			    smartio_fdid_node(f) != node ||
			    smartio_fdid_index(f) != index ||
			    smartio_fdid_valid(f) != (node != 0))
				ck_abort_msg("node %#x index %#x -> %#x",
					     node, index, f);
		}
	}
}
END_TEST

START_TEST(test_valid)
{
	ck_assert(!smartio_fdid_valid(0));
	ck_assert(!smartio_fdid_valid(0xffff));
	ck_assert(smartio_fdid_valid(0x10000));
	ck_assert(smartio_fdid_valid(0x80000));
	ck_assert(smartio_fdid_valid(0xffff0000U));
	ck_assert(smartio_fdid_valid(0xffffffffU));
	ck_assert(!smartio_fdid_valid(smartio_fdid_make(0, 0xffff)));
	ck_assert(smartio_fdid_valid(smartio_fdid_make(1, 0)));
}
END_TEST

/* ---- parse ---- */

static const struct {
	const char *s;
	u32 want;
} parse_ok[] = {
	{ "80000", 0x80000 },
	{ "80002", 0x80002 },
	{ "0x80000", 0x80000 },
	{ "0X80002", 0x80002 },
	{ "10000", 0x10000 },		/* smallest valid fdid */
	{ "1ffff", 0x1ffff },		/* index 0xffff */
	{ "ffff0000", 0xffff0000U },	/* node 0xffff */
	{ "ffffffff", 0xffffffffU },	/* 8 digits, all ones */
	{ "FFFFFFFF", 0xffffffffU },
	{ "0xffffffff", 0xffffffffU },
	{ "0XFFFFFFFF", 0xffffffffU },
	{ "00010000", 0x10000 },	/* 8 digits incl. leading zeros */
	{ "0x00010000", 0x10000 },
	{ "abcdef01", 0xabcdef01U },
	{ "ABCDEF01", 0xabcdef01U },
	{ "aBcDeF01", 0xabcdef01U },
	{ "12345678", 0x12345678 },
	{ "9abcdef0", 0x9abcdef0U },
};

START_TEST(test_parse_ok)
{
	u32 got = SENTINEL;
	int ret;

	ret = smartio_fdid_parse(parse_ok[_i].s, &got);
	ck_assert_msg(ret == 0, "parse(\"%s\") = %d, want 0",
		      parse_ok[_i].s, ret);
	ck_assert_msg(got == parse_ok[_i].want,
		      "parse(\"%s\") gave %#x, want %#x",
		      parse_ok[_i].s, got, parse_ok[_i].want);
}
END_TEST

static const struct {
	const char *s;
	int want;
} parse_bad[] = {
	{ NULL, -EINVAL },
	{ "", -EINVAL },
	{ "0x", -EINVAL },
	{ "0X", -EINVAL },
	{ "x", -EINVAL },
	{ "x80000", -EINVAL },
	{ "0x0x80000", -EINVAL },
	{ "00x80000", -EINVAL },
	{ " 80000", -EINVAL },
	{ "80000 ", -EINVAL },
	{ "\t80000", -EINVAL },
	{ "80000\n", -EINVAL },
	{ "0x 80000", -EINVAL },
	{ "8000 0", -EINVAL },
	{ "+80000", -EINVAL },
	{ "-80000", -EINVAL },
	{ "0x-1", -EINVAL },
	{ "8000g", -EINVAL },
	{ "g0000", -EINVAL },
	{ "80_000", -EINVAL },
	{ "8.0000", -EINVAL },
	{ "0o10000", -EINVAL },
	{ "0t10000", -EINVAL },
	{ "0h10000", -EINVAL },
	{ "80000h", -EINVAL },
	{ "123456789z", -EINVAL },	/* syntax beats range */
	{ "0", -EINVAL },		/* node 0 */
	{ "0x0", -EINVAL },
	{ "1", -EINVAL },
	{ "ffff", -EINVAL },		/* node 0, index 0xffff */
	{ "0000ffff", -EINVAL },
	{ "0x0000ffff", -EINVAL },
	{ "00000000", -EINVAL },
	{ "fffffffff", -ERANGE },	/* 9 digits */
	{ "100000000", -ERANGE },
	{ "000010000", -ERANGE },	/* 9 digits, value fits */
	{ "0x100000000", -ERANGE },
	{ "0x000010000", -ERANGE },
	{ "1234567890abcdef", -ERANGE },
};

START_TEST(test_parse_bad)
{
	u32 got = SENTINEL;
	int ret;

	ret = smartio_fdid_parse(parse_bad[_i].s, &got);
	ck_assert_msg(ret == parse_bad[_i].want, "parse(\"%s\") = %d, want %d",
		      parse_bad[_i].s ? parse_bad[_i].s : "(null)", ret,
		      parse_bad[_i].want);
	ck_assert_msg(got == SENTINEL, "parse(\"%s\") clobbered output: %#x",
		      parse_bad[_i].s ? parse_bad[_i].s : "(null)", got);
}
END_TEST

START_TEST(test_parse_null_out)
{
	ck_assert_int_eq(smartio_fdid_parse("80000", NULL), -EINVAL);
	ck_assert_int_eq(smartio_fdid_parse(NULL, NULL), -EINVAL);
}
END_TEST

START_TEST(test_parse_digit_limit)
{
	char s[16];
	u32 got;
	int n;

	/* "1", "10", ... "10000000" (8 digits) parse; 9 digits do not. */
	for (n = 1; n <= 9; n++) {
		memset(s, '0', sizeof(s));
		s[0] = '1';
		s[n] = '\0';
		got = SENTINEL;
		if (n < 5) {
			ck_assert_int_eq(smartio_fdid_parse(s, &got), -EINVAL);
			ck_assert_uint_eq(got, SENTINEL);
		} else if (n <= 8) {
			ck_assert_int_eq(smartio_fdid_parse(s, &got), 0);
			ck_assert_uint_eq(got, 1U << (4 * (n - 1)));
		} else {
			ck_assert_int_eq(smartio_fdid_parse(s, &got), -ERANGE);
			ck_assert_uint_eq(got, SENTINEL);
		}
	}
}
END_TEST

/* ---- format ---- */

static const struct {
	u32 fdid;
	const char *want;
} format_ok[] = {
	{ 0, "0" },
	{ 0x1, "1" },
	{ 0xf, "f" },
	{ 0x10, "10" },
	{ 0xffff, "ffff" },
	{ 0x10000, "10000" },
	{ 0x80000, "80000" },
	{ 0x80002, "80002" },
	{ 0x1ffff, "1ffff" },
	{ 0x0fffffff, "fffffff" },
	{ 0x10000000, "10000000" },
	{ 0xabcdef01U, "abcdef01" },
	{ 0xffff0000U, "ffff0000" },
	{ 0xffffffffU, "ffffffff" },
};

START_TEST(test_format_ok)
{
	char buf[SMARTIO_FDID_STR_MAX];
	int ret;

	memset(buf, 'X', sizeof(buf));
	ret = smartio_fdid_format(format_ok[_i].fdid, buf, sizeof(buf));
	ck_assert_int_eq(ret, (int)strlen(format_ok[_i].want));
	ck_assert_str_eq(buf, format_ok[_i].want);
}
END_TEST

START_TEST(test_format_str_max)
{
	char buf[SMARTIO_FDID_STR_MAX];

	ck_assert_int_eq(SMARTIO_FDID_STR_MAX, 9);
	/* The longest fdid fills the buffer exactly. */
	ck_assert_int_eq(smartio_fdid_format(0xffffffffU, buf, sizeof(buf)),
			 SMARTIO_FDID_STR_MAX - 1);
	ck_assert_int_eq(smartio_fdid_format(0xffffffffU, buf,
					     sizeof(buf) - 1), -ENOSPC);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_format_exact_and_short)
{
	char buf[32], want[16];
	size_t need, i;
	u32 v = format_ok[_i].fdid;
	int ret;

	need = (size_t)snprintf(want, sizeof(want), "%x", v) + 1;

	/* Exactly the needed size works. */
	memset(buf, 'X', sizeof(buf));
	ret = smartio_fdid_format(v, buf, need);
	ck_assert_int_eq(ret, (int)need - 1);
	ck_assert_str_eq(buf, want);
	for (i = need; i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 'X');

	/* One byte short fails, NUL-terminated, nothing written past len. */
	memset(buf, 'X', sizeof(buf));
	ret = smartio_fdid_format(v, buf, need - 1);
	ck_assert_int_eq(ret, -ENOSPC);
	ck_assert_int_eq(buf[0], '\0');
	for (i = need - 1; i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 'X');

	/* len 0 touches nothing, NULL buffer is fine then. */
	memset(buf, 'X', sizeof(buf));
	ck_assert_int_eq(smartio_fdid_format(v, buf, 0), -ENOSPC);
	ck_assert_int_eq(buf[0], 'X');
	ck_assert_int_eq(smartio_fdid_format(v, NULL, 0), -ENOSPC);
}
END_TEST

START_TEST(test_format_null_buf)
{
	ck_assert_int_eq(smartio_fdid_format(0x80000, NULL, 9), -EINVAL);
}
END_TEST

/* ---- round trip ---- */

static void roundtrip_one(u32 v)
{
	char buf[SMARTIO_FDID_STR_MAX], want[16], pfx[16];
	u32 got = SENTINEL;
	int ret, want_len;

	want_len = snprintf(want, sizeof(want), "%x", v);
	ret = smartio_fdid_format(v, buf, sizeof(buf));
	if (ret != want_len || strcmp(buf, want))
		ck_abort_msg("format(%#x) = %d \"%s\", want %d \"%s\"",
			     v, ret, buf, want_len, want);

	ret = smartio_fdid_parse(buf, &got);
	if (smartio_fdid_valid(v)) {
		if (ret || got != v)
			ck_abort_msg("parse(\"%s\") = %d %#x, want 0 %#x",
				     buf, ret, got, v);
	} else if (ret != -EINVAL || got != SENTINEL) {
		ck_abort_msg("parse(\"%s\") = %d %#x, want -EINVAL",
			     buf, ret, got);
	}

	/* Same value, uppercase with prefix and full 8-digit width. */
	snprintf(pfx, sizeof(pfx), "0X%08X", v);
	got = SENTINEL;
	ret = smartio_fdid_parse(pfx, &got);
	if (smartio_fdid_valid(v) ? (ret || got != v) :
	    (ret != -EINVAL || got != SENTINEL))
		ck_abort_msg("parse(\"%s\") = %d %#x", pfx, ret, got);
}

START_TEST(test_roundtrip_edges)
{
	unsigned int k;

	/* Every digit-count boundary: 2^4k - 1 and 2^4k, plus all bits. */
	for (k = 0; k < 32; k++) {
		roundtrip_one((1U << k) - 1);
		roundtrip_one(1U << k);
		roundtrip_one(~0U >> k);
		roundtrip_one(~0U << k);
	}
	roundtrip_one(0xffffffffU);
}
END_TEST

START_TEST(test_roundtrip_many)
{
	u32 x = 2463534242U;	/* xorshift32 seed */
	unsigned int node, index, i;

	for (node = 0; node <= 0xffff; node += 0x3f)
		for (index = 0; index <= 0xffff; index += 0x7f)
			roundtrip_one(smartio_fdid_make(node, index));
	for (i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		roundtrip_one(x);
		roundtrip_one(x >> (i % 32));
	}
}
END_TEST

#define N_ELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

Suite *fdid_suite(void)
{
	Suite *s = suite_create("fdid");
	TCase *tc;

	tc = tcase_create("layout");
	tcase_add_test(tc, test_make_split);
	tcase_add_test(tc, test_make_split_loop);
	tcase_add_test(tc, test_valid);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_loop_test(tc, test_parse_ok, 0, N_ELEM(parse_ok));
	tcase_add_loop_test(tc, test_parse_bad, 0, N_ELEM(parse_bad));
	tcase_add_test(tc, test_parse_null_out);
	tcase_add_test(tc, test_parse_digit_limit);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	tcase_add_loop_test(tc, test_format_ok, 0, N_ELEM(format_ok));
	tcase_add_test(tc, test_format_str_max);
	tcase_add_loop_test(tc, test_format_exact_and_short, 0,
			    N_ELEM(format_ok));
	tcase_add_test(tc, test_format_null_buf);
	suite_add_tcase(s, tc);

	tc = tcase_create("roundtrip");
	tcase_add_test(tc, test_roundtrip_edges);
	tcase_add_test(tc, test_roundtrip_many);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	return s;
}
