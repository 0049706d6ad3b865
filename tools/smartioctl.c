// SPDX-License-Identifier: GPL-2.0
/*
 * smartioctl: command-line front end to smartio.
 *
 * Parses global options, then hands OBJECT's arguments to its handler.
 * Objects are matched by unambiguous prefix, as in ip(8).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "smartio/version.h"
#include "smartioctl.h"

struct smartioctl_opts opts;

static int do_help(int argc, char **argv);

static const struct object objects[] = {
	{ "version", "show tool and kernel module versions", do_version },
	{ "help", "show this help", do_help },
};

#define N_OBJECTS (sizeof(objects) / sizeof(objects[0]))

bool matches(const char *arg, const char *keyword)
{
	size_t len = strlen(arg);

	return len > 0 && strncmp(arg, keyword, len) == 0;
}

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

static void print_usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"Usage: smartioctl [OPTIONS] OBJECT [COMMAND [ARGS]]\n"
		"       smartioctl OBJECT help\n"
		"\n"
		"Options:\n"
		"  -j, --json      print JSON\n"
		"  -V, --version   print the version and exit\n"
		"  -h, --help      print this help and exit\n"
		"\n"
		"Objects:\n");
	for (i = 0; i < N_OBJECTS; i++)
		fprintf(out, "  %-10s %s\n", objects[i].name,
			objects[i].summary);
}

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	print_usage(stdout);
	return EXIT_OK;
}

/* Finds the object ARG names; NULL if none or if the prefix is ambiguous. */
static const struct object *find_object(const char *arg)
{
	const struct object *found = NULL;
	size_t i;

	for (i = 0; i < N_OBJECTS; i++) {
		if (strcmp(arg, objects[i].name) == 0)
			return &objects[i];
		if (matches(arg, objects[i].name)) {
			if (found)
				return NULL;
			found = &objects[i];
		}
	}
	return found;
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct object *obj;
	int c;

	opterr = 0;	/* one message per error: ours */
	/* "+": stop at the first non-option, it is the object. */
	while ((c = getopt_long(argc, argv, "+jVh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opts.json = true;
			break;
		case 'V':
			printf("smartioctl %s\n", SMARTIO_VERSION);
			return EXIT_OK;
		case 'h':
			print_usage(stdout);
			return EXIT_OK;
		default:
			return usage_error("unknown option \"%s\"",
					   argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;

	if (argc == 0) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	obj = find_object(argv[0]);
	if (!obj)
		return usage_error("unknown or ambiguous object \"%s\"", argv[0]);
	return obj->run(argc - 1, argv + 1);
}
