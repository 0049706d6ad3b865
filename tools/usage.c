// SPDX-License-Identifier: GPL-2.0
/*
 * Usage errors: what every command does with a bad command line (one line
 * on stderr, EXIT_USAGE, nothing sent to the kernel). Apart from
 * smartioctl.c so that the netlink plumbing (nl.c) and the test programs
 * linking it can check arguments too.
 */
#include <stdarg.h>
#include <string.h>

#include "smartioctl.h"

bool is_help(const char *arg)
{
	return strcmp(arg, "help") == 0 || strcmp(arg, "-h") == 0 ||
	       strcmp(arg, "--help") == 0;
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("smartioctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (try \"smartioctl help\")\n", stderr);
	return EXIT_USAGE;
}

int cmd_args(const char *what, int argc, char **argv,
	     struct arg_spec *spec, size_t n)
{
	char msg[128];

	if (parse_args(argc, argv, spec, n, msg, sizeof(msg)) < 0)
		return usage_error("%s: %s", what, msg);
	return EXIT_OK;
}
