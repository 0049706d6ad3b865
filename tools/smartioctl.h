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
#include <stddef.h>
#include <stdio.h>

#include "smartio/pci_addr.h"

/* Exit codes, documented in smartioctl(8). */
enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,	/* the operation was tried and failed */
	EXIT_USAGE = 2,		/* bad command line: nothing was tried */
	EXIT_NO_MODULE = 3,	/* the smartio kernel module is not loaded */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct smartioctl_opts {
	bool json;
};

extern struct smartioctl_opts opts;

/*
 * An object of smartioctl, or a command of an object: both are found by
 * unambiguous prefix and both tables print as help. ARGS is the command's
 * argument synopsis (NULL for objects, which list their own commands).
 */
struct object {
	const char *name;
	const char *args;
	const char *summary;
	int (*run)(int argc, char **argv);
};

/* What an argument's value is, and how it is checked. */
enum arg_kind {
	ARG_NUMBER,	/* decimal in [MIN, MAX] */
	ARG_FDID,	/* fabric device id in hex ("80000", lib/fdid.c) */
	ARG_PCI_NAME,	/* PCI address "[DDDD:]BB:DD.F" (lib/pci_addr.c) */
	ARG_FLAG,	/* a keyword alone, or "--keyword": no value */
};

/* Room for an argument's value as text: the longer of a PCI name, an fdid. */
#define ARG_STR_MAX SMARTIO_PCI_ADDR_STR_MAX

/*
 * A command-line argument: positional (NAME in capitals, given in table
 * order, always required) or "keyword VALUE" in any order; a flag is a
 * keyword without a value, also accepted as "--keyword". Numbers are
 * decimal in [MIN, MAX]. VAL holds the default until the argument is
 * given, then the number, the fdid, or 1 for a flag; STR holds an fdid
 * or PCI name as normalised text ("80000"; "0000:00:04.0", with its
 * domain and in lower case). NAME comes first: find_name() relies on it.
 */
struct arg_spec {
	const char *name;
	unsigned long long min;
	unsigned long long max;
	bool positional;
	bool required;
	enum arg_kind kind;
	unsigned long long val;
	bool given;
	char str[ARG_STR_MAX];
};

/* Pure helpers, unit tested (args.c, errname.c, json.c). */
bool matches(const char *arg, const char *keyword);
int find_name(const void *tab, size_t n, size_t size, const char *arg);
#define FIND_NAME(tab, n, arg) find_name((tab), (n), sizeof(*(tab)), (arg))
int parse_number(const char *s, unsigned long long min,
		 unsigned long long max, unsigned long long *val);
int parse_args(int argc, char **argv, struct arg_spec *spec, size_t n,
	       char *msg, size_t msglen);
const char *errno_name(int err, char *buf, size_t len);
void describe_errno(int err, char *buf, size_t len);
void json_string(FILE *out, const char *s);
void json_key(FILE *out, const char *key, bool *first);
void json_elem(FILE *out, bool *first);
void json_array_end(FILE *out, bool first);

/* Usage errors (usage.c). */
bool is_help(const char *arg);
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cmd_args(const char *what, int argc, char **argv,
	     struct arg_spec *spec, size_t n);

/* Runs an object's commands (smartioctl.c). */
int run_commands(const char *object, const struct object *cmds, size_t n,
		 int argc, char **argv);

/* Objects. */
int do_version(int argc, char **argv);
int do_adapter(int argc, char **argv);
int do_node(int argc, char **argv);
int do_segment(int argc, char **argv);
int do_device(int argc, char **argv);
int do_borrow(int argc, char **argv);
int do_return(int argc, char **argv);
int do_monitor(int argc, char **argv);

#endif /* SMARTIOCTL_H */
