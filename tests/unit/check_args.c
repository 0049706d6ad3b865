// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for smartioctl's pure helpers: command-line parsing
 * (tools/args.c: numbers, fdids, PCI names, flags), errno names
 * (tools/errname.c) and JSON output (tools/json.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/smartioctl.h"
#include "unit.h"

#define N_ELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define SENTINEL 0xa5a5a5a5ULL

/* ---- parse_number ---- */

static const struct {
	const char *s;
	unsigned long long min, max;
	int ret;
	unsigned long long want;	/* SENTINEL: left alone */
} numbers[] = {
	{ "0", 0, 10, 0, 0 },
	{ "10", 0, 10, 0, 10 },			/* max */
	{ "11", 0, 10, -ERANGE, SENTINEL },	/* max + 1 */
	{ "1", 1, 65535, 0, 1 },		/* min */
	{ "0", 1, 65535, -ERANGE, SENTINEL },	/* min - 1 */
	{ "65535", 1, 65535, 0, 65535 },
	{ "65536", 1, 65535, -ERANGE, SENTINEL },
	{ "007", 0, 10, 0, 7 },			/* leading zeros are decimal */
	{ "4294967295", 0, UINT32_MAX, 0, UINT32_MAX },
	{ "4294967296", 0, UINT32_MAX, -ERANGE, SENTINEL },
	{ "18446744073709551615", 0, ULLONG_MAX, 0, ULLONG_MAX },
	{ "18446744073709551616", 0, ULLONG_MAX, -ERANGE, SENTINEL },
	{ "99999999999999999999999", 0, ULLONG_MAX, -ERANGE, SENTINEL },
	{ "", 0, 10, -EINVAL, SENTINEL },
	{ "-1", 0, ULLONG_MAX, -EINVAL, SENTINEL },	/* strtoull: huge */
	{ "-0", 0, 10, -EINVAL, SENTINEL },
	{ "+1", 0, 10, -EINVAL, SENTINEL },
	{ " 1", 0, 10, -EINVAL, SENTINEL },
	{ "1 ", 0, 10, -EINVAL, SENTINEL },	/* trailing garbage */
	{ "1x", 0, 10, -EINVAL, SENTINEL },
	{ "0x1", 0, 10, -EINVAL, SENTINEL },	/* decimal only */
	{ "1.0", 0, 10, -EINVAL, SENTINEL },
	{ "x", 0, 10, -EINVAL, SENTINEL },
	{ "1e3", 0, 10000, -EINVAL, SENTINEL },
};

START_TEST(test_number)
{
	unsigned long long val = SENTINEL;
	int ret;

	ret = parse_number(numbers[_i].s, numbers[_i].min, numbers[_i].max,
			   &val);
	ck_assert_msg(ret == numbers[_i].ret,
		      "parse_number(\"%s\", %llu, %llu) = %d, want %d",
		      numbers[_i].s, numbers[_i].min, numbers[_i].max, ret,
		      numbers[_i].ret);
	ck_assert_msg(val == numbers[_i].want,
		      "parse_number(\"%s\") set %llu, want %llu",
		      numbers[_i].s, val, numbers[_i].want);
}
END_TEST

/* ---- matches, find_name ---- */

START_TEST(test_matches)
{
	ck_assert(matches("a", "adapter"));
	ck_assert(matches("adapter", "adapter"));
	ck_assert(!matches("adapters", "adapter"));
	ck_assert(!matches("", "adapter"));		/* no empty prefix */
	ck_assert(!matches("b", "adapter"));
	ck_assert(!matches("A", "adapter"));		/* case matters */
}
END_TEST

static const struct object cmds[] = {
	{ "list", NULL, "", NULL },
	{ "show", "INDEX", "", NULL },
	{ "set", "INDEX", "", NULL },
};

static const char * const kws[] = { "node", "node-id", "count" };

static const struct {
	const char *arg;
	int cmd, kw;		/* index found in cmds, in kws; -1: none */
} names[] = {
	{ "list", 0, -1 },
	{ "l", 0, -1 },
	{ "s", -1, -1 },		/* show or set: ambiguous */
	{ "sh", 1, -1 },
	{ "se", 2, -1 },
	{ "set", 2, -1 },
	{ "sets", -1, -1 },
	{ "", -1, -1 },
	{ "n", -1, -1 },		/* node or node-id */
	{ "no", -1, -1 },
	{ "node", -1, 0 },		/* exact beats a longer match */
	{ "node-", -1, 1 },
	{ "node-id", -1, 1 },
	{ "c", -1, 2 },
	{ "counts", -1, -1 },
};

START_TEST(test_find_name)
{
	int cmd = FIND_NAME(cmds, (size_t)N_ELEM(cmds), names[_i].arg);
	int kw = FIND_NAME(kws, (size_t)N_ELEM(kws), names[_i].arg);

	ck_assert_msg(cmd == names[_i].cmd, "\"%s\" found command %d, want %d",
		      names[_i].arg, cmd, names[_i].cmd);
	ck_assert_msg(kw == names[_i].kw, "\"%s\" found keyword %d, want %d",
		      names[_i].arg, kw, names[_i].kw);
}
END_TEST

/* ---- parse_args: the grammar of "node ping NODE [count N] [size B]" ---- */

enum { NODE, COUNT, SIZE, N_PING };

static void ping_spec(struct arg_spec *spec)
{
	const struct arg_spec s[N_PING] = {
		[NODE] = { .name = "NODE", .min = 1, .max = 65535,
			   .positional = true },
		[COUNT] = { .name = "count", .min = 1, .max = 1000000,
			    .val = 1 },
		[SIZE] = { .name = "size", .min = 0, .max = 4072 },
	};

	memcpy(spec, s, sizeof(s));
}

/* argv as parse_args sees it: words split at spaces, "" for none. */
static int split(char *line, char **argv)
{
	int argc = 0;
	char *w;

	for (w = strtok(line, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	return argc;
}

/* parse_args() on LINE, split as split() does on a copy of it. */
static int parse_line(const char *line, struct arg_spec *spec, size_t n,
		      char *msg, size_t msglen)
{
	char copy[128], *argv[16];

	snprintf(copy, sizeof(copy), "%s", line);
	return parse_args(split(copy, argv), argv, spec, n, msg, msglen);
}

/* A command line parse_args() refuses, and part of what it says. */
struct bad_line {
	const char *line;
	int ret;
	const char *msg;
};

static void check_bad(const struct bad_line *bad, struct arg_spec *spec,
		      size_t n)
{
	char msg[128] = "";
	int ret = parse_line(bad->line, spec, n, msg, sizeof(msg));

	ck_assert_msg(ret == bad->ret, "\"%s\": %d, want %d", bad->line, ret,
		      bad->ret);
	ck_assert_msg(strstr(msg, bad->msg),
		      "\"%s\": message \"%s\", want \"%s\"", bad->line, msg,
		      bad->msg);
}

static const struct {
	const char *line;
	unsigned long long node, count, size;
} ping_ok[] = {
	{ "2", 2, 1, 0 },			/* defaults */
	{ "1 count 1 size 0", 1, 1, 0 },	/* minima */
	{ "65535 count 1000000 size 4072", 65535, 1000000, 4072 },
	{ "2 size 8 count 10", 2, 10, 8 },	/* any order */
	{ "2 c 10 s 8", 2, 10, 8 },		/* prefixes */
};

START_TEST(test_args_ok)
{
	struct arg_spec spec[N_PING];
	char msg[128] = "";
	int ret;

	ping_spec(spec);
	ret = parse_line(ping_ok[_i].line, spec, N_PING, msg, sizeof(msg));
	ck_assert_msg(ret == 0, "\"%s\": %d (%s)", ping_ok[_i].line, ret, msg);
	ck_assert_uint_eq(spec[NODE].val, ping_ok[_i].node);
	ck_assert_uint_eq(spec[COUNT].val, ping_ok[_i].count);
	ck_assert_uint_eq(spec[SIZE].val, ping_ok[_i].size);
	ck_assert(spec[NODE].given);
}
END_TEST

static const struct bad_line ping_bad[] = {
	{ "", -EINVAL, "missing NODE" },
	{ "0", -ERANGE, "NODE 0 is out of range 1..65535" },
	{ "65536", -ERANGE, "NODE 65536 is out of range 1..65535" },
	{ "-1", -EINVAL, "NODE \"-1\" is not a number" },
	{ "2x", -EINVAL, "NODE \"2x\" is not a number" },
	{ "count 5", -EINVAL, "NODE \"count\" is not a number" },
	{ "2 count 0", -ERANGE, "count 0 is out of range 1..1000000" },
	{ "2 count 1000001", -ERANGE, "count 1000001 is out of range" },
	{ "2 size 4073", -ERANGE, "size 4073 is out of range 0..4072" },
	{ "2 size -1", -EINVAL, "size \"-1\" is not a number" },
	{ "2 count", -EINVAL, "count needs a value" },
	{ "2 count 1 count 2", -EINVAL, "count given twice" },
	{ "2 bogus 1", -EINVAL, "unknown or ambiguous argument \"bogus\"" },
	{ "2 NODE 3", -EINVAL, "unknown or ambiguous argument \"NODE\"" },
	{ "2 3", -EINVAL, "unknown or ambiguous argument \"3\"" },
};

START_TEST(test_args_bad)
{
	struct arg_spec spec[N_PING];

	ping_spec(spec);
	check_bad(&ping_bad[_i], spec, N_PING);
}
END_TEST

START_TEST(test_args_required)
{
	struct arg_spec spec[] = {
		{ .name = "INDEX", .max = UINT32_MAX, .positional = true },
		{ .name = "node-id", .min = 1, .max = 65535, .required = true },
	};
	char line[] = "0", msg[128] = "", *argv[4];
	int argc = split(line, argv);

	ck_assert_int_eq(parse_args(argc, argv, spec, 2, msg, sizeof(msg)),
			 -EINVAL);
	ck_assert_str_eq(msg, "missing node-id");
}
END_TEST

START_TEST(test_args_none)
{
	char *argv[] = { "x" };
	char msg[128] = "";

	ck_assert_int_eq(parse_args(0, argv, NULL, 0, msg, sizeof(msg)), 0);
	ck_assert_int_eq(parse_args(1, argv, NULL, 0, msg, sizeof(msg)),
			 -EINVAL);
	ck_assert_str_eq(msg, "unknown or ambiguous argument \"x\"");
}
END_TEST

/* ---- parse_args: fdids, PCI names and flags ---- */

/* "device available FDID [force] [count N]": every kind of argument. */
enum { FDID, FORCE, DCOUNT, N_DEV };

static void device_spec(struct arg_spec *spec)
{
	const struct arg_spec s[N_DEV] = {
		[FDID] = { .name = "FDID", .kind = ARG_FDID,
			   .positional = true },
		[FORCE] = { .name = "force", .kind = ARG_FLAG },
		[DCOUNT] = { .name = "count", .min = 1, .max = 9, .val = 1 },
	};

	memcpy(spec, s, sizeof(s));
}

static const struct {
	const char *line;
	unsigned long long fdid;
	const char *str;		/* the fdid as normalised */
	bool force;
	unsigned long long count;
} device_ok[] = {
	{ "80000", 0x80000, "80000", false, 1 },
	{ "10000", 0x10000, "10000", false, 1 },	/* node 1: the least */
	{ "1ffff", 0x1ffff, "1ffff", false, 1 },
	{ "ffffffff", 0xffffffff, "ffffffff", false, 1 },	/* 8 digits */
	{ "0x80000", 0x80000, "80000", false, 1 },
	{ "0X80000", 0x80000, "80000", false, 1 },
	{ "0xffffffff", 0xffffffff, "ffffffff", false, 1 },
	{ "A0002", 0xa0002, "a0002", false, 1 },	/* lower case */
	{ "00080000", 0x80000, "80000", false, 1 },	/* zeros: 8 digits */
	{ "80000 force", 0x80000, "80000", true, 1 },
	{ "80000 --force", 0x80000, "80000", true, 1 },
	{ "80000 f", 0x80000, "80000", true, 1 },	/* a prefix */
	{ "80000 fo", 0x80000, "80000", true, 1 },
	{ "80000 force count 3", 0x80000, "80000", true, 3 },
	{ "80000 count 3 --force", 0x80000, "80000", true, 3 },
	{ "80000 count 9", 0x80000, "80000", false, 9 },
};

START_TEST(test_device_ok)
{
	struct arg_spec spec[N_DEV];
	char msg[128] = "";
	int ret;

	device_spec(spec);
	ret = parse_line(device_ok[_i].line, spec, N_DEV, msg, sizeof(msg));
	ck_assert_msg(ret == 0, "\"%s\": %d (%s)", device_ok[_i].line, ret,
		      msg);
	ck_assert(spec[FDID].given);
	ck_assert_uint_eq(spec[FDID].val, device_ok[_i].fdid);
	ck_assert_str_eq(spec[FDID].str, device_ok[_i].str);
	ck_assert_int_eq(spec[FORCE].given, device_ok[_i].force);
	ck_assert_uint_eq(spec[FORCE].val, device_ok[_i].force);
	ck_assert_uint_eq(spec[DCOUNT].val, device_ok[_i].count);
}
END_TEST

static const struct bad_line device_bad[] = {
	{ "", -EINVAL, "missing FDID" },
	{ "ffff", -ERANGE, "FDID ffff is out of range 10000..ffffffff" },
	{ "0", -ERANGE, "FDID 0 is out of range" },		/* node 0 */
	{ "0x0ffff", -ERANGE, "FDID 0x0ffff is out of range" },
	{ "100000000", -ERANGE, "FDID 100000000 is out of range" }, /* 9 */
	{ "000080000", -ERANGE, "FDID 000080000 is out of range" },
	{ "xyz", -EINVAL, "FDID \"xyz\" is not a hex fabric device id" },
	{ "0x", -EINVAL, "FDID \"0x\" is not a hex" },
	{ "-80000", -EINVAL, "FDID \"-80000\" is not a hex" },
	{ "+80000", -EINVAL, "FDID \"+80000\" is not a hex" },
	{ "80000g", -EINVAL, "FDID \"80000g\" is not a hex" },
	{ "0x0x80000", -EINVAL, "FDID \"0x0x80000\" is not a hex" },
	{ "force", -EINVAL, "FDID \"force\" is not a hex" },
	{ "80000 force force", -EINVAL, "force given twice" },
	{ "80000 --force f", -EINVAL, "force given twice" },
	{ "80000 --f", -EINVAL, "unknown or ambiguous argument \"--f\"" },
	{ "80000 -force", -EINVAL, "unknown or ambiguous argument \"-force\"" },
	{ "80000 --forced", -EINVAL, "unknown or ambiguous argument" },
	{ "80000 forced", -EINVAL, "unknown or ambiguous argument" },
	{ "80000 --count 3", -EINVAL, "unknown or ambiguous argument" },
	{ "80000 --FDID", -EINVAL, "unknown or ambiguous argument" },
	{ "80000 force 1", -EINVAL, "unknown or ambiguous argument \"1\"" },
	{ "80000 count force", -EINVAL, "count \"force\" is not a number" },
	{ "80000 count", -EINVAL, "count needs a value" },
	{ "80000 count 10", -ERANGE, "count 10 is out of range 1..9" },
	{ "80000 80001", -EINVAL, "unknown or ambiguous argument \"80001\"" },
};

START_TEST(test_device_bad)
{
	struct arg_spec spec[N_DEV];

	device_spec(spec);
	check_bad(&device_bad[_i], spec, N_DEV);
}
END_TEST

/* "device add BDF": the name normalised as the kernel writes it. */
static const struct {
	const char *bdf;
	int ret;
	const char *want;	/* the name; for errors, in the message */
} bdfs[] = {
	{ "00:04.0", 0, "0000:00:04.0" },		/* domain added */
	{ "0000:00:04.0", 0, "0000:00:04.0" },
	{ "0:00:04.0", 0, "0000:00:04.0" },		/* domain padded */
	{ "1:02:03.4", 0, "0001:02:03.4" },
	{ "00:00.0", 0, "0000:00:00.0" },
	{ "FF:1F.7", 0, "0000:ff:1f.7" },		/* maxima, lower case */
	{ "0000:00:1f.7", 0, "0000:00:1f.7" },
	{ "10000:00:00.0", 0, "10000:00:00.0" },	/* 5-digit domain */
	{ "ffffffff:ff:1f.7", 0, "ffffffff:ff:1f.7" },	/* the longest */
	{ "00:20.0", -ERANGE, "BDF 00:20.0 is out of range" },	/* dev+1 */
	{ "00:1f.8", -ERANGE, "BDF 00:1f.8 is out of range" },	/* fn+1 */
	{ "100000000:00:00.0", -ERANGE, "is out of range" },	/* 9 digits */
	{ "", -EINVAL, "BDF \"\" is not a PCI address [DDDD:]BB:DD.F" },
	{ "00:04", -EINVAL, "BDF \"00:04\" is not a PCI address" },
	{ "0:04.0", -EINVAL, "is not a PCI address" },	/* bus: 2 digits */
	{ "000:04.0", -EINVAL, "is not a PCI address" },
	{ "00:4.0", -EINVAL, "is not a PCI address" },	/* device: 2 */
	{ "00:04.00", -EINVAL, "is not a PCI address" },	/* function: 1 */
	{ ":00:04.0", -EINVAL, "is not a PCI address" },
	{ "00:04.0x", -EINVAL, "is not a PCI address" },
	{ "0000:00:04.0:", -EINVAL, "is not a PCI address" },
	{ "0x0:00:04.0", -EINVAL, "is not a PCI address" },
	{ "80000", -EINVAL, "is not a PCI address" },	/* an fdid */
};

START_TEST(test_pci_name)
{
	struct arg_spec spec[] = {
		{ .name = "BDF", .kind = ARG_PCI_NAME, .positional = true },
	};
	char msg[128] = "", *argv[] = { (char *)bdfs[_i].bdf };
	int ret;

	memset(spec[0].str, 'x', sizeof(spec[0].str));
	ret = parse_args(1, argv, spec, 1, msg, sizeof(msg));
	ck_assert_msg(ret == bdfs[_i].ret, "\"%s\": %d, want %d (%s)",
		      bdfs[_i].bdf, ret, bdfs[_i].ret, msg);
	ck_assert_int_eq(spec[0].given, ret == 0);
	if (ret == 0)
		ck_assert_str_eq(spec[0].str, bdfs[_i].want);
	else
		ck_assert_msg(strstr(msg, bdfs[_i].want),
			      "\"%s\": message \"%s\", want \"%s\"",
			      bdfs[_i].bdf, msg, bdfs[_i].want);
}
END_TEST

START_TEST(test_str_fits)
{
	/* The longest PCI name and fdid, and the NUL, fit exactly. */
	ck_assert_uint_eq(ARG_STR_MAX, strlen("ffffffff:ff:1f.7") + 1);
	ck_assert_uint_ge(ARG_STR_MAX, strlen("ffffffff") + 1);
}
END_TEST

/* ---- errno names ---- */

static const struct {
	int err;
	const char *name;
} errnames[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ENODEV, "ENODEV" },
	{ EINVAL, "EINVAL" }, { EBUSY, "EBUSY" }, { ENOSPC, "ENOSPC" },
	{ ENOTCONN, "ENOTCONN" }, { EHOSTUNREACH, "EHOSTUNREACH" },
	{ ETIMEDOUT, "ETIMEDOUT" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	{ ENOMEM, "ENOMEM" }, { EINTR, "EINTR" }, { EAGAIN, "EAGAIN" },
	{ EEXIST, "EEXIST" }, { ERANGE, "ERANGE" }, { EMSGSIZE, "EMSGSIZE" },
	{ EPROTO, "EPROTO" }, { ENOBUFS, "ENOBUFS" }, { EIO, "EIO" },
	{ 0, "errno 0" }, { -1, "errno -1" }, { 4095, "errno 4095" },
	{ EDOM, "errno 33" },			/* one we cannot get */
};

START_TEST(test_errno_name)
{
	char buf[32];
	const char *got = errno_name(errnames[_i].err, buf, sizeof(buf));

	ck_assert_str_eq(got, errnames[_i].name);
}
END_TEST

START_TEST(test_describe_errno)
{
	char buf[64];

	describe_errno(EPERM, buf, sizeof(buf));
	ck_assert_str_eq(buf, "operation not permitted");
	describe_errno(ENOTCONN, buf, sizeof(buf));
	ck_assert_str_eq(buf, "transport endpoint is not connected");
	describe_errno(EPERM, buf, 4);		/* truncated, terminated */
	ck_assert_str_eq(buf, "ope");
}
END_TEST

/* ---- JSON ---- */

/* Runs FN with a memory stream and returns what it wrote (freed by caller). */
static char *capture(void (*fn)(FILE *out, const void *arg), const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(out);
	fn(out, arg);
	fclose(out);
	return text;
}

static void write_string(FILE *out, const void *arg)
{
	json_string(out, arg);
}

static const struct {
	const char *s, *json;
} strings[] = {
	{ "", "\"\"" },
	{ "0000:00:03.0", "\"0000:00:03.0\"" },
	{ "a\"b", "\"a\\\"b\"" },
	{ "a\\b", "\"a\\\\b\"" },
	{ "a\nb\tc", "\"a\\nb\\tc\"" },
	{ "\x01\x1f", "\"\\u0001\\u001f\"" },
	{ " ~\x7f", "\" ~\x7f\"" },		/* 0x20 and up as they are */
	{ "n\xc3\xb8" "de", "\"n\xc3\xb8" "de\"" },	/* UTF-8 untouched */
};

START_TEST(test_json_string)
{
	char *got = capture(write_string, strings[_i].s);

	ck_assert_str_eq(got, strings[_i].json);
	free(got);
}
END_TEST

/* An object of N members, and an array of N elements. */
static void write_object(FILE *out, const void *arg)
{
	int i, n = *(const int *)arg;
	bool first = true;

	fputc('{', out);
	for (i = 0; i < n; i++) {
		json_key(out, i ? "count" : "node-id", &first);
		fprintf(out, "%d", i);
	}
	fputc('}', out);
}

static void write_array(FILE *out, const void *arg)
{
	int i, n = *(const int *)arg;
	bool first = true;

	for (i = 0; i < n; i++) {
		json_elem(out, &first);
		fprintf(out, "%d", i);
	}
	json_array_end(out, first);
}

START_TEST(test_json_containers)
{
	static const int zero = 0, one = 1, two = 2;
	static const struct {
		void (*fn)(FILE *out, const void *arg);
		const int *n;
		const char *want;
	} cases[] = {
		{ write_object, &zero, "{}" },
		{ write_object, &one, "{\"node-id\":0}" },
		{ write_object, &two, "{\"node-id\":0,\"count\":1}" },
		{ write_array, &zero, "[]" },
		{ write_array, &one, "[0]" },
		{ write_array, &two, "[0,1]" },
	};
	int i;

	for (i = 0; i < N_ELEM(cases); i++) {
		char *got = capture(cases[i].fn, cases[i].n);

		ck_assert_str_eq(got, cases[i].want);
		free(got);
	}
}
END_TEST

Suite *args_suite(void)
{
	Suite *s = suite_create("args");
	TCase *tc;

	tc = tcase_create("number");
	tcase_add_loop_test(tc, test_number, 0, N_ELEM(numbers));
	suite_add_tcase(s, tc);

	tc = tcase_create("names");
	tcase_add_test(tc, test_matches);
	tcase_add_loop_test(tc, test_find_name, 0, N_ELEM(names));
	suite_add_tcase(s, tc);

	tc = tcase_create("args");
	tcase_add_loop_test(tc, test_args_ok, 0, N_ELEM(ping_ok));
	tcase_add_loop_test(tc, test_args_bad, 0, N_ELEM(ping_bad));
	tcase_add_test(tc, test_args_required);
	tcase_add_test(tc, test_args_none);
	suite_add_tcase(s, tc);

	tc = tcase_create("device-args");
	tcase_add_loop_test(tc, test_device_ok, 0, N_ELEM(device_ok));
	tcase_add_loop_test(tc, test_device_bad, 0, N_ELEM(device_bad));
	tcase_add_loop_test(tc, test_pci_name, 0, N_ELEM(bdfs));
	tcase_add_test(tc, test_str_fits);
	suite_add_tcase(s, tc);

	tc = tcase_create("errno");
	tcase_add_loop_test(tc, test_errno_name, 0, N_ELEM(errnames));
	tcase_add_test(tc, test_describe_errno);
	suite_add_tcase(s, tc);

	tc = tcase_create("json");
	tcase_add_loop_test(tc, test_json_string, 0, N_ELEM(strings));
	tcase_add_test(tc, test_json_containers);
	suite_add_tcase(s, tc);

	return s;
}
