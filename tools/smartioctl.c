// SPDX-License-Identifier: GPL-2.0
/*
 * smartioctl: command-line front end to smartio.
 *
 * Parses global options, then hands OBJECT's arguments to its handler.
 * Objects are matched by unambiguous prefix, as in ip(8).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "smartio/version.h"
#include "smartioctl.h"

struct smartioctl_opts opts;

static int do_help(int argc, char **argv);

static const struct object objects[] = {
	{ "adapter", NULL, "NTB adapters and their peer ports", do_adapter },
	{ "node", NULL, "remote nodes; ping them", do_node },
	{ "segment", NULL, "memory segments", do_segment },
	{ "device", NULL, "PCIe devices for lending; borrow, return them",
	  do_device },
	{ "borrow", "FDID", "borrow a device (device borrow)", do_borrow },
	{ "return", "FDID", "return a borrowed device (device return)",
	  do_return },
	{ "monitor", NULL, "print node and link events", do_monitor },
	{ "version", NULL, "show tool and kernel module versions", do_version },
	{ "help", NULL, "show this help", do_help },
};

#define N_OBJECTS ARRAY_SIZE(objects)

static void print_commands(FILE *out, const char *object,
			   const struct object *cmds, size_t n)
{
	char synopsis[64];
	size_t i;

	fprintf(out, "Usage: smartioctl [-j] %s [COMMAND [ARGS]]\n"
		"\n"
		"Commands (the first is the default):\n", object);
	for (i = 0; i < n; i++) {
		snprintf(synopsis, sizeof(synopsis), "%s%s%s", cmds[i].name,
			 cmds[i].args ? " " : "",
			 cmds[i].args ? cmds[i].args : "");
		fprintf(out, "  %-34s %s\n", synopsis, cmds[i].summary);
	}
	fprintf(out, "  %-34s %s\n", "help", "show this help");
}

/*
 * Runs OBJECT's command named by argv[0], the first of CMDS when there is
 * none. "help" in place of the command or of its arguments prints the
 * object's help.
 */
int run_commands(const char *object, const struct object *cmds, size_t n,
		 int argc, char **argv)
{
	int i;

	if (argc == 0)
		return cmds[0].run(0, argv);
	if (is_help(argv[0]) || (argc > 1 && is_help(argv[1]))) {
		print_commands(stdout, object, cmds, n);
		return EXIT_OK;
	}
	i = FIND_NAME(cmds, n, argv[0]);
	if (i < 0)
		return usage_error("%s: unknown or ambiguous command \"%s\"",
				   object, argv[0]);
	return cmds[i].run(argc - 1, argv + 1);
}

/* The objects, or the top-level verbs (those with arguments: borrow). */
static void print_objects(FILE *out, bool verbs)
{
	char synopsis[32];
	size_t i;

	for (i = 0; i < N_OBJECTS; i++) {
		if (!objects[i].args != !verbs)
			continue;
		snprintf(synopsis, sizeof(synopsis), "%s%s%s", objects[i].name,
			 verbs ? " " : "", verbs ? objects[i].args : "");
		fprintf(out, "  %-12s %s\n", synopsis, objects[i].summary);
	}
}

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: smartioctl [OPTIONS] OBJECT [COMMAND [ARGS]]\n"
		"       smartioctl [OPTIONS] { borrow | return } FDID\n"
		"       smartioctl OBJECT help\n"
		"\n"
		"Options:\n"
		"  -j, --json      print JSON\n"
		"  -V, --version   print the version and exit\n"
		"  -h, --help      print this help and exit\n"
		"\n"
		"Objects:\n");
	print_objects(out, false);
	fprintf(out, "\nCommands:\n");
	print_objects(out, true);
}

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	print_usage(stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, i;

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
	/* Objects are matched by unambiguous prefix, as in ip(8). */
	i = FIND_NAME(objects, N_OBJECTS, argv[0]);
	if (i < 0)
		return usage_error("unknown or ambiguous object \"%s\"", argv[0]);
	return objects[i].run(argc - 1, argv + 1);
}
