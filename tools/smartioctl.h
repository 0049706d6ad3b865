/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartioctl: the smartio command-line tool.
 *
 * Grammar, as iproute2's: smartioctl [OPTIONS] OBJECT [COMMAND [ARGS]].
 * Each object lives in a file of its own and exposes one handler; "help"
 * works at every level.
 */
#ifndef SMARTIOCTL_H
#define SMARTIOCTL_H

#include <stdbool.h>
#include <stdio.h>

/* Exit codes, documented in smartioctl(8). */
enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,	/* the operation was tried and failed */
	EXIT_USAGE = 2,		/* bad command line: nothing was tried */
	EXIT_NO_MODULE = 3,	/* the smartio kernel module is not loaded */
};

struct smartioctl_opts {
	bool json;
};

extern struct smartioctl_opts opts;

struct object {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

/* Shared helpers (smartioctl.c). */
bool matches(const char *arg, const char *keyword);
bool is_help(const char *arg);
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* JSON output (json.c): a minimal writer for flat objects. */
void json_string(FILE *out, const char *s);

/* Objects. */
int do_version(int argc, char **argv);

#endif /* SMARTIOCTL_H */
