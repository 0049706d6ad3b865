// SPDX-License-Identifier: GPL-2.0
/*
 * Command-line parsing for smartioctl: prefix matching of names, strict
 * numbers and "KEYWORD VALUE" argument lists. Pure (no output, no exit),
 * so the unit tests link it; the caller turns a failure's message into a
 * usage error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "smartioctl.h"

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

/* Parses ARG as SPEC's value; on failure says why in MSG. */
static int parse_value(struct arg_spec *spec, const char *arg,
		       char *msg, size_t msglen)
{
	int ret = parse_number(arg, spec->min, spec->max, &spec->val);

	if (ret == -EINVAL)
		snprintf(msg, msglen, "%s \"%s\" is not a number",
			 spec->name, arg);
	else if (ret == -ERANGE)
		snprintf(msg, msglen, "%s %s is out of range %llu..%llu",
			 spec->name, arg, spec->min, spec->max);
	else
		spec->given = true;
	return ret;
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
	for (; i < argc; i += 2) {
		k = find_name(spec, n, sizeof(*spec), argv[i]);
		if (k < 0 || spec[k].positional) {
			snprintf(msg, msglen,
				 "unknown or ambiguous argument \"%s\"", argv[i]);
			return -EINVAL;
		}
		s = &spec[k];
		if (s->given) {
			snprintf(msg, msglen, "%s given twice", s->name);
			return -EINVAL;
		}
		if (i + 1 >= argc) {
			snprintf(msg, msglen, "%s needs a value", s->name);
			return -EINVAL;
		}
		ret = parse_value(s, argv[i + 1], msg, msglen);
		if (ret)
			return ret;
	}
	for (j = 0; j < n; j++) {
		if (spec[j].required && !spec[j].given) {
			snprintf(msg, msglen, "missing %s", spec[j].name);
			return -EINVAL;
		}
	}
	return 0;
}
