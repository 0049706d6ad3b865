// SPDX-License-Identifier: GPL-2.0
/*
 * smartioctl monitor: node and link events as they happen, one line each,
 * flushed at once so that a pipe or file sees every event when it occurs.
 *
 *   node 2 joined: adapter 0 port 1
 *   link down: adapter 0 port 1
 */
#include <stdint.h>

#include "nl.h"

struct monitor {
	unsigned long long left;	/* events to print; 0: no limit */
};

/* The events we print; a newer module's others are skipped. */
static const struct {
	const char *text;
	bool node;	/* about a node: "node ID TEXT", else just "TEXT" */
} events[] = {
	[SMARTIO_CMD_NODE_JOIN_NTF] = { "joined", true },
	[SMARTIO_CMD_NODE_LEAVE_NTF] = { "left", true },
	[SMARTIO_CMD_LINK_UP_NTF] = { "link up", false },
	[SMARTIO_CMD_LINK_DOWN_NTF] = { "link down", false },
};

static int print_event(const struct nl_obj *ev, void *arg)
{
	struct monitor *m = arg;
	bool first = true;

	if (ev->cmd >= ARRAY_SIZE(events) || !events[ev->cmd].text)
		return MNL_CB_OK;
	if (opts.json) {
		putchar('{');
		json_key(stdout, "event", &first);
		json_string(stdout, smartio_nl_cmd_names[ev->cmd]);
		nl_json_members(stdout, ev, &first);
		puts("}");
	} else {
		if (events[ev->cmd].node)
			printf("node %llu ",
			       nl_uint(ev, SMARTIO_A_NODE_NODE_ID));
		printf("%s: adapter %llu port %llu\n", events[ev->cmd].text,
		       nl_uint(ev, SMARTIO_A_NODE_ADAPTER),
		       nl_uint(ev, SMARTIO_A_NODE_PORT));
	}
	fflush(stdout);
	if (m->left && --m->left == 0)
		return MNL_CB_STOP;
	return MNL_CB_OK;
}

static int monitor(int argc, char **argv)
{
	struct arg_spec args[] = {
		{ .name = "count", .min = 1, .max = UINT32_MAX },
	};
	struct monitor m;
	struct nl nl;
	int ret;

	ret = cmd_args("monitor", argc, argv, args, ARRAY_SIZE(args));
	if (ret)
		return ret;
	m.left = args[0].val;
	ret = nl_open(&nl, "monitor");
	if (ret)
		return ret;
	ret = nl_monitor(&nl, NL_SET(smartio_nl_node_attrs), print_event, &m);
	nl_close(&nl);
	return ret;
}

/* No commands, only arguments: the help is the one usage line. */
int do_monitor(int argc, char **argv)
{
	if (argc > 0 && is_help(argv[0])) {
		printf("Usage: smartioctl [-j] monitor [count N]\n"
		       "Print node and link events as they happen; with count, exit after N\n"
		       "events (1..4294967295).\n");
		return EXIT_OK;
	}
	return monitor(argc, argv);
}
