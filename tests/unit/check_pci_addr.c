// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for PCI addresses (lib/pci_addr.c, include/smartio/pci_addr.h).
 */
#include <stdio.h>
#include <string.h>

#include <smartio/pci_addr.h>

#include "unit.h"

#define N_ELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct smartio_pci_addr sentinel = {
	.domain = 0xdeadbeefU, .bus = 0xa5, .dev = 0x5a, .fn = 0xee,
};

static int addr_eq(const struct smartio_pci_addr *a,
		   const struct smartio_pci_addr *b)
{
	return a->domain == b->domain && a->bus == b->bus &&
	       a->dev == b->dev && a->fn == b->fn;
}

/* ---- parse ---- */

static const struct {
	const char *s;
	struct smartio_pci_addr want;
} parse_ok[] = {
	{ "0000:00:00.0", { 0, 0, 0, 0 } },
	{ "00:00.0", { 0, 0, 0, 0 } },
	{ "0000:3b:00.1", { 0, 0x3b, 0, 1 } },
	{ "3b:00.1", { 0, 0x3b, 0, 1 } },
	{ "0000:ff:1f.7", { 0, 0xff, 0x1f, 7 } },	/* all maxima */
	{ "ff:1f.7", { 0, 0xff, 0x1f, 7 } },
	{ "FF:1F.7", { 0, 0xff, 0x1f, 7 } },
	{ "0000:00:1f.0", { 0, 0, 0x1f, 0 } },
	{ "0000:00:00.7", { 0, 0, 0, 7 } },
	{ "0:01:02.3", { 0, 1, 2, 3 } },		/* 1-digit domain */
	{ "1:01:02.3", { 1, 1, 2, 3 } },
	{ "abc:01:02.3", { 0xabc, 1, 2, 3 } },
	{ "ffff:80:10.4", { 0xffff, 0x80, 0x10, 4 } },
	{ "10000:00:00.0", { 0x10000, 0, 0, 0 } },	/* VMD domain */
	{ "10001:e1:00.0", { 0x10001, 0xe1, 0, 0 } },
	{ "00000000:00:00.0", { 0, 0, 0, 0 } },		/* 8 digits */
	{ "ffffffff:ff:1f.7", { 0xffffffffU, 0xff, 0x1f, 7 } },
	{ "FFFFFFFF:FF:1F.7", { 0xffffffffU, 0xff, 0x1f, 7 } },
	{ "AbCd:eF:0a.5", { 0xabcd, 0xef, 0x0a, 5 } },
};

START_TEST(test_parse_ok)
{
	struct smartio_pci_addr got = sentinel;
	const struct smartio_pci_addr *w = &parse_ok[_i].want;
	int ret;

	ret = smartio_pci_addr_parse(parse_ok[_i].s, &got);
	ck_assert_msg(ret == 0, "parse(\"%s\") = %d, want 0",
		      parse_ok[_i].s, ret);
	ck_assert_msg(addr_eq(&got, w),
		      "parse(\"%s\") gave %x:%x:%x.%x, want %x:%x:%x.%x",
		      parse_ok[_i].s, got.domain, got.bus, got.dev, got.fn,
		      w->domain, w->bus, w->dev, w->fn);
}
END_TEST

static const struct {
	const char *s;
	int want;
} parse_bad[] = {
	{ NULL, -EINVAL },
	{ "", -EINVAL },
	{ ":", -EINVAL },
	{ ".", -EINVAL },
	{ "00", -EINVAL },
	{ "00:00", -EINVAL },
	{ "0000:00:00", -EINVAL },
	{ "0000:00:00.", -EINVAL },
	{ "00:00.", -EINVAL },
	{ ":00:00.0", -EINVAL },		/* empty domain */
	{ ":00.0", -EINVAL },			/* empty bus */
	{ "0000::00.0", -EINVAL },
	{ "0000:00:.0", -EINVAL },
	{ "::00.0", -EINVAL },
	{ "0000:0:00.0", -EINVAL },		/* bus: 1 digit */
	{ "0000:000:00.0", -EINVAL },		/* bus: 3 digits */
	{ "0000:100:00.0", -EINVAL },
	{ "0:00", -EINVAL },
	{ "0000:00:0.0", -EINVAL },		/* dev: 1 digit */
	{ "0000:00:000.0", -EINVAL },		/* dev: 3 digits */
	{ "0000:00:01f.0", -EINVAL },
	{ "0000:00:00.00", -EINVAL },		/* fn: 2 digits */
	{ "0000:00:00.07", -EINVAL },
	{ "00:00.00", -EINVAL },
	{ " 0000:00:00.0", -EINVAL },
	{ "0000:00:00.0 ", -EINVAL },
	{ "0000:00:00.0\n", -EINVAL },
	{ "0000: 00:00.0", -EINVAL },
	{ "0x0000:00:00.0", -EINVAL },
	{ "0000:0x0:00.0", -EINVAL },
	{ "+000:00:00.0", -EINVAL },
	{ "-1:00:00.0", -EINVAL },
	{ "0000:00:00.-1", -EINVAL },
	{ "0000-00-00.0", -EINVAL },
	{ "0000:00.00.0", -EINVAL },
	{ "0000:00:00:0", -EINVAL },
	{ "0000:00:00:00.0", -EINVAL },
	{ "0:0000:00:00.0", -EINVAL },
	{ "0000:00:00.0.0", -EINVAL },
	{ "0000:00:00.0:", -EINVAL },
	{ "g000:00:00.0", -EINVAL },
	{ "0000:0g:00.0", -EINVAL },
	{ "0000:00:1g.0", -EINVAL },
	{ "0000:00:00.g", -EINVAL },
	{ "0000:00:20.0 ", -EINVAL },		/* syntax beats range */
	{ "000000000:00:00.0x", -EINVAL },
	{ "0000:00:20.0", -ERANGE },		/* dev 0x20 */
	{ "00:20.0", -ERANGE },
	{ "0000:00:ff.0", -ERANGE },
	{ "0000:00:00.8", -ERANGE },		/* fn 8 */
	{ "00:00.8", -ERANGE },
	{ "0000:00:00.f", -ERANGE },
	{ "000000000:00:00.0", -ERANGE },	/* domain: 9 digits */
	{ "100000000:00:00.0", -ERANGE },
	{ "fffffffff:ff:1f.7", -ERANGE },
};

START_TEST(test_parse_bad)
{
	struct smartio_pci_addr got = sentinel;
	const char *s = parse_bad[_i].s;
	int ret;

	ret = smartio_pci_addr_parse(s, &got);
	ck_assert_msg(ret == parse_bad[_i].want, "parse(\"%s\") = %d, want %d",
		      s ? s : "(null)", ret, parse_bad[_i].want);
	ck_assert_msg(addr_eq(&got, &sentinel),
		      "parse(\"%s\") clobbered output", s ? s : "(null)");
}
END_TEST

START_TEST(test_parse_null_out)
{
	ck_assert_int_eq(smartio_pci_addr_parse("0000:00:00.0", NULL),
			 -EINVAL);
}
END_TEST

START_TEST(test_parse_limits)
{
	struct smartio_pci_addr got;
	char s[32];
	unsigned int v;

	/* Every device number: 0x00..0x1f accepted, 0x20..0xff rejected. */
	for (v = 0; v <= 0xff; v++) {
		snprintf(s, sizeof(s), "0000:00:%02x.0", v);
		got = sentinel;
		if (v <= 0x1f) {
			ck_assert_int_eq(smartio_pci_addr_parse(s, &got), 0);
			ck_assert_uint_eq(got.dev, v);
		} else {
			ck_assert_int_eq(smartio_pci_addr_parse(s, &got),
					 -ERANGE);
			ck_assert(addr_eq(&got, &sentinel));
		}
	}
	/* Every function number: 0..7 accepted, 8..f rejected. */
	for (v = 0; v <= 0xf; v++) {
		snprintf(s, sizeof(s), "00:00.%x", v);
		got = sentinel;
		if (v <= 7) {
			ck_assert_int_eq(smartio_pci_addr_parse(s, &got), 0);
			ck_assert_uint_eq(got.fn, v);
		} else {
			ck_assert_int_eq(smartio_pci_addr_parse(s, &got),
					 -ERANGE);
			ck_assert(addr_eq(&got, &sentinel));
		}
	}
	/* Domain: 1..8 digits accepted, 9 rejected. */
	for (v = 1; v <= 9; v++) {
		memset(s, 'f', v);
		strcpy(s + v, ":ff:1f.7");
		got = sentinel;
		if (v <= 8) {
			ck_assert_int_eq(smartio_pci_addr_parse(s, &got), 0);
			ck_assert_uint_eq(got.domain,
					  0xffffffffU >> (32 - 4 * v));
			ck_assert_uint_eq(got.bus, 0xff);
		} else {
			ck_assert_int_eq(smartio_pci_addr_parse(s, &got),
					 -ERANGE);
			ck_assert(addr_eq(&got, &sentinel));
		}
	}
}
END_TEST

/* ---- format ---- */

static const struct {
	struct smartio_pci_addr a;
	const char *want;
} format_ok[] = {
	{ { 0, 0, 0, 0 }, "0000:00:00.0" },
	{ { 0, 0x3b, 0, 1 }, "0000:3b:00.1" },
	{ { 0, 0xff, 0x1f, 7 }, "0000:ff:1f.7" },
	{ { 1, 1, 2, 3 }, "0001:01:02.3" },
	{ { 0xabc, 0xa, 0xb, 5 }, "0abc:0a:0b.5" },
	{ { 0xffff, 0x80, 0x10, 4 }, "ffff:80:10.4" },
	{ { 0x10000, 0, 0, 0 }, "10000:00:00.0" },
	{ { 0xfffff, 0xe1, 0, 0 }, "fffff:e1:00.0" },
	{ { 0x100000, 0, 0, 0 }, "100000:00:00.0" },
	{ { 0x1000000, 0, 0, 0 }, "1000000:00:00.0" },
	{ { 0x10000000, 0, 0, 0 }, "10000000:00:00.0" },
	{ { 0xffffffffU, 0xff, 0x1f, 7 }, "ffffffff:ff:1f.7" },
};

START_TEST(test_format_ok)
{
	char buf[SMARTIO_PCI_ADDR_STR_MAX];
	int ret;

	memset(buf, 'X', sizeof(buf));
	ret = smartio_pci_addr_format(&format_ok[_i].a, buf, sizeof(buf));
	ck_assert_int_eq(ret, (int)strlen(format_ok[_i].want));
	ck_assert_str_eq(buf, format_ok[_i].want);
}
END_TEST

START_TEST(test_format_exact_and_short)
{
	const struct smartio_pci_addr *a = &format_ok[_i].a;
	size_t need = strlen(format_ok[_i].want) + 1, i;
	char buf[32];

	memset(buf, 'X', sizeof(buf));
	ck_assert_int_eq(smartio_pci_addr_format(a, buf, need),
			 (int)need - 1);
	ck_assert_str_eq(buf, format_ok[_i].want);
	for (i = need; i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 'X');

	memset(buf, 'X', sizeof(buf));
	ck_assert_int_eq(smartio_pci_addr_format(a, buf, need - 1), -ENOSPC);
	ck_assert_int_eq(buf[0], '\0');
	for (i = need - 1; i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 'X');

	memset(buf, 'X', sizeof(buf));
	ck_assert_int_eq(smartio_pci_addr_format(a, buf, 1), -ENOSPC);
	ck_assert_int_eq(buf[0], '\0');
	ck_assert_int_eq(buf[1], 'X');

	memset(buf, 'X', sizeof(buf));
	ck_assert_int_eq(smartio_pci_addr_format(a, buf, 0), -ENOSPC);
	ck_assert_int_eq(buf[0], 'X');
	ck_assert_int_eq(smartio_pci_addr_format(a, NULL, 0), -ENOSPC);
}
END_TEST

START_TEST(test_format_str_max)
{
	const struct smartio_pci_addr max = { 0xffffffffU, 0xff, 0x1f, 7 };
	char buf[SMARTIO_PCI_ADDR_STR_MAX];

	ck_assert_int_eq(SMARTIO_PCI_ADDR_STR_MAX, 17);
	ck_assert_int_eq(smartio_pci_addr_format(&max, buf, sizeof(buf)),
			 SMARTIO_PCI_ADDR_STR_MAX - 1);
	ck_assert_str_eq(buf, "ffffffff:ff:1f.7");
	ck_assert_int_eq(smartio_pci_addr_format(&max, buf, sizeof(buf) - 1),
			 -ENOSPC);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_format_bad)
{
	struct smartio_pci_addr a = { 0, 0, 0x1f, 7 };
	char buf[SMARTIO_PCI_ADDR_STR_MAX];

	ck_assert_int_eq(smartio_pci_addr_format(&a, buf, sizeof(buf)), 12);
	a.dev = 0x20;
	memset(buf, 'X', sizeof(buf));
	ck_assert_int_eq(smartio_pci_addr_format(&a, buf, sizeof(buf)),
			 -EINVAL);
	ck_assert_str_eq(buf, "");
	a.dev = 0x1f;
	a.fn = 8;
	ck_assert_int_eq(smartio_pci_addr_format(&a, buf, sizeof(buf)),
			 -EINVAL);
	ck_assert_int_eq(smartio_pci_addr_format(NULL, buf, sizeof(buf)),
			 -EINVAL);
	ck_assert_int_eq(smartio_pci_addr_format(&a, NULL, 17), -EINVAL);
}
END_TEST

/* ---- round trip ---- */

static const u32 rt_domains[] = {
	0, 1, 0xf, 0x10, 0xfff, 0x1000, 0xffff, 0x10000, 0x12345, 0xfffff,
	0x100000, 0xffffff, 0x1000000, 0xfffffff, 0x10000000, 0x80000000U,
	0xfffffffeU, 0xffffffffU,
};

START_TEST(test_roundtrip)
{
	char buf[SMARTIO_PCI_ADDR_STR_MAX], want[32];
	struct smartio_pci_addr a, got;
	unsigned int bus, dev, fn;
	u32 domain = rt_domains[_i];
	int ret, want_len;

	/* All 65536 bus/device/function combinations in this domain. */
	for (bus = 0; bus <= 0xff; bus++) {
		for (dev = 0; dev <= 0x1f; dev++) {
			for (fn = 0; fn <= 7; fn++) {
				a.domain = domain;
				a.bus = bus;
				a.dev = dev;
				a.fn = fn;
				want_len = snprintf(want, sizeof(want),
						    "%04x:%02x:%02x.%x",
						    domain, bus, dev, fn);
				ret = smartio_pci_addr_format(&a, buf,
							      sizeof(buf));
				if (ret != want_len || strcmp(buf, want))
					ck_abort_msg("format = %d \"%s\", want %d \"%s\"",
						     ret, buf, want_len, want);

				got = sentinel;
				ret = smartio_pci_addr_parse(buf, &got);
				if (ret || !addr_eq(&got, &a))
					ck_abort_msg("parse(\"%s\") = %d", buf,
						     ret);

				/* Short form (no domain) when domain is 0. */
				if (domain)
					continue;
				got = sentinel;
				ret = smartio_pci_addr_parse(buf + 5, &got);
				if (ret || !addr_eq(&got, &a))
					ck_abort_msg("parse(\"%s\") = %d",
						     buf + 5, ret);
			}
		}
	}
}
END_TEST

Suite *pci_addr_suite(void)
{
	Suite *s = suite_create("pci_addr");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_loop_test(tc, test_parse_ok, 0, N_ELEM(parse_ok));
	tcase_add_loop_test(tc, test_parse_bad, 0, N_ELEM(parse_bad));
	tcase_add_test(tc, test_parse_null_out);
	tcase_add_test(tc, test_parse_limits);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	tcase_add_loop_test(tc, test_format_ok, 0, N_ELEM(format_ok));
	tcase_add_loop_test(tc, test_format_exact_and_short, 0,
			    N_ELEM(format_ok));
	tcase_add_test(tc, test_format_str_max);
	tcase_add_test(tc, test_format_bad);
	suite_add_tcase(s, tc);

	tc = tcase_create("roundtrip");
	tcase_add_loop_test(tc, test_roundtrip, 0, N_ELEM(rt_domains));
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	return s;
}
