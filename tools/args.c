// SPDX-License-Identifier: GPL-2.0
/*
 * Command-line parsing for smartioctl: prefix matching of names, strict
 * numbers, fdids and PCI names, and "KEYWORD VALUE" argument lists. Pure
 * (no output, no exit), so the unit tests link it; the caller turns a
 * failure's message into a usage error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "smartio/fdid.h"
#include "smartio/hex.h"
#include "smartioctl.h"

_Static_assert(ARG_STR_MAX >= SMARTIO_FDID_STR_MAX,
	       "an fdid's text does not fit in struct arg_spec");

bool matches(const char *arg, const char *keyword)
{
	size_t len = strlen(arg);

	return len > 0 && strncmp(arg, keyword, len) == 0;
}

int find_name(const void *tab, size_t n, size_t size, const char *arg)
{
	int found = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *name = *(const char * const *)
				   ((const char *)tab + i * size);

		if (strcmp(arg, name) == 0)
			return (int)i;
		if (matches(arg, name)) {
			if (found >= 0)
				return -1;	/* ambiguous */
			found = (int)i;
		}
	}
	return found;
}

/*
 * Decimal only, nothing around the digits: strtoull alone would take
 * " 1", "+1", "-1" (as a huge number) and "0x1", none of which a user
 * typing a node id means.
 */
int parse_number(const char *s, unsigned long long min,
		 unsigned long long max, unsigned long long *val)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*val = v;
	return 0;
}

static int parse_decimal(struct arg_spec *spec, const char *arg,
			 char *msg, size_t msglen)
{
	int ret = parse_number(arg, spec->min, spec->max, &spec->val);

	if (ret == -EINVAL)
		snprintf(msg, msglen, "%s \"%s\" is not a number",
			 spec->name, arg);
	else if (ret == -ERANGE)
		snprintf(msg, msglen, "%s %s is out of range %llu..%llu",
			 spec->name, arg, spec->min, spec->max);
	return ret;
}

/* Whether S is hex as smartio_fdid_parse() reads it, whatever its value. */
static bool hex_syntax(const char *s)
{
	u32 v;
	size_t n;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = smartio_hex_scan(s, &v);
	return n > 0 && s[n] == '\0';
}

/*
 * An fdid as "smartio_tool list" prints it. Too many digits and the
 * reserved lender node 0 are both out of the range the kernel takes.
 */
static int parse_fdid(struct arg_spec *spec, const char *arg,
		      char *msg, size_t msglen)
{
	u32 fdid;
	int ret = smartio_fdid_parse(arg, &fdid);

	if (ret == -EINVAL && hex_syntax(arg))
		ret = -ERANGE;			/* node 0 */
	if (ret == -EINVAL) {
		snprintf(msg, msglen,
			 "%s \"%s\" is not a hex fabric device id like 80000",
			 spec->name, arg);
	} else if (ret == -ERANGE) {
		snprintf(msg, msglen, "%s %s is out of range 10000..ffffffff",
			 spec->name, arg);
	} else {
		spec->val = fdid;
		smartio_fdid_format(fdid, spec->str, sizeof(spec->str));
	}
	return ret;
}

/* A PCI address, kept as the kernel names the function: "0000:00:04.0". */
static int parse_pci_name(struct arg_spec *spec, const char *arg,
			  char *msg, size_t msglen)
{
	struct smartio_pci_addr addr;
	int ret = smartio_pci_addr_parse(arg, &addr);

	if (ret == -EINVAL)
		snprintf(msg, msglen,
			 "%s \"%s\" is not a PCI address [DDDD:]BB:DD.F",
			 spec->name, arg);
	else if (ret == -ERANGE)
		snprintf(msg, msglen,
			 "%s %s is out of range: domain 0..ffffffff, device 00..1f, function 0..7",
			 spec->name, arg);
	else
		smartio_pci_addr_format(&addr, spec->str, sizeof(spec->str));
	return ret;
}

/* Parses ARG as SPEC's value; on failure says why in MSG. */
static int parse_value(struct arg_spec *spec, const char *arg,
		       char *msg, size_t msglen)
{
	int ret;

	switch (spec->kind) {
	case ARG_FDID:
		ret = parse_fdid(spec, arg, msg, msglen);
		break;
	case ARG_PCI_NAME:
		ret = parse_pci_name(spec, arg, msg, msglen);
		break;
	default:
		ret = parse_decimal(spec, arg, msg, msglen);
	}
	if (!ret)
		spec->given = true;
	return ret;
}

/* The keyword ARG names: by prefix, or a flag by "--flag"; -1 if none. */
static int find_keyword(const struct arg_spec *spec, size_t n,
			const char *arg)
{
	size_t j;
	int k;

	if (strncmp(arg, "--", 2) == 0) {
		for (j = 0; j < n; j++) {
			if (spec[j].kind == ARG_FLAG &&
			    strcmp(arg + 2, spec[j].name) == 0)
				return (int)j;
		}
		return -1;
	}
	k = find_name(spec, n, sizeof(*spec), arg);
	return k >= 0 && !spec[k].positional ? k : -1;
}

int parse_args(int argc, char **argv, struct arg_spec *spec, size_t n,
	       char *msg, size_t msglen)
{
	struct arg_spec *s;
	int i = 0, k, ret;
	size_t j;

	for (j = 0; j < n; j++) {
		if (!spec[j].positional)
			continue;
		if (i >= argc) {
			snprintf(msg, msglen, "missing %s", spec[j].name);
			return -EINVAL;
		}
		ret = parse_value(&spec[j], argv[i++], msg, msglen);
		if (ret)
			return ret;
	}
	while (i < argc) {
		k = find_keyword(spec, n, argv[i]);
		if (k < 0) {
			snprintf(msg, msglen,
				 "unknown or ambiguous argument \"%s\"", argv[i]);
			return -EINVAL;
		}
		s = &spec[k];
		if (s->given) {
			snprintf(msg, msglen, "%s given twice", s->name);
			return -EINVAL;
		}
		if (s->kind == ARG_FLAG) {
			s->val = 1;
			s->given = true;
			i++;
			continue;
		}
		if (i + 1 >= argc) {
			snprintf(msg, msglen, "%s needs a value", s->name);
			return -EINVAL;
		}
		ret = parse_value(s, argv[i + 1], msg, msglen);
		if (ret)
			return ret;
		i += 2;
	}
	for (j = 0; j < n; j++) {
		if (spec[j].required && !spec[j].given) {
			snprintf(msg, msglen, "missing %s", spec[j].name);
			return -EINVAL;
		}
	}
	return 0;
}
