// SPDX-License-Identifier: GPL-2.0
/*
 * smartioctl node: the remote nodes this one reaches (peers whose link is
 * up), and round trips to them over the kernel's messaging channel.
 *
 *   node 2: adapter 0 port 1 joined
 *   node 2: 10000 round trips, 10000 received, time 5.123 s, ...
 */
#include <stdint.h>

#include "nl.h"

static void print_node(const struct nl_obj *n)
{
	printf("node %llu: adapter %llu port %llu %s\n",
	       nl_uint(n, SMARTIO_A_NODE_NODE_ID),
	       nl_uint(n, SMARTIO_A_NODE_ADAPTER),
	       nl_uint(n, SMARTIO_A_NODE_PORT),
	       nl_str(n, SMARTIO_A_NODE_STATE));
}

static int node_list(int argc, char **argv)
{
	return nl_dump("node list", argc, argv, SMARTIO_CMD_NODE_GET,
		       NL_SET(smartio_nl_node_attrs), print_node);
}

/*
 * The reply has node-id, received and time-ns but not the count asked
 * for; this attribute carries it so that -j prints it among them, in the
 * spec's order, like any other.
 */
struct count_attr {
	struct nlattr nla;
	uint32_t count;
};

static int ping_reply(const struct nl_obj *reply, void *arg)
{
	struct count_attr *count = arg;
	struct nl_obj r = *reply;
	unsigned long long received, ns;

	if (opts.json) {
		r.tb[SMARTIO_A_PING_COUNT] = &count->nla;
		nl_json(stdout, &r);
		putchar('\n');
		return MNL_CB_OK;
	}
	received = nl_uint(&r, SMARTIO_A_PING_RECEIVED);
	ns = nl_uint(&r, SMARTIO_A_PING_TIME_NS);
	printf("node %llu: %u round trips, %llu received, time %.3f s",
	       nl_uint(&r, SMARTIO_A_PING_NODE_ID), count->count, received,
	       ns / 1e9);
	/* Rates of nothing, or of no time, are not numbers. */
	if (received && ns)
		printf(", %.0f round trips/s, rtt avg %.1f us",
		       received / (ns / 1e9), ns / 1e3 / received);
	putchar('\n');
	return MNL_CB_OK;
}

static int node_ping(int argc, char **argv)
{
	/* Ranges as netlink/smartio.yaml's ping attribute set checks them. */
	struct arg_spec args[] = {
		{ .name = "NODE", .min = 1, .max = UINT16_MAX,
		  .positional = true },
		{ .name = "count", .min = 1, .max = 1000000, .val = 1 },
		{ .name = "size", .min = 0, .max = 4072 },
	};
	struct count_attr count;
	struct nlmsghdr *req;
	struct nl nl;
	int ret;

	ret = cmd_args("node ping", argc, argv, args, ARRAY_SIZE(args));
	if (ret)
		return ret;
	count.nla.nla_type = SMARTIO_A_PING_COUNT;
	count.nla.nla_len = sizeof(count);
	count.count = (uint32_t)args[1].val;

	ret = nl_open(&nl, "node ping %llu", args[0].val);
	if (ret)
		return ret;
	req = nl_request(&nl, SMARTIO_CMD_NODE_PING, NLM_F_ACK);
	mnl_attr_put_u16(req, SMARTIO_A_PING_NODE_ID, (uint16_t)args[0].val);
	mnl_attr_put_u32(req, SMARTIO_A_PING_COUNT, count.count);
	mnl_attr_put_u32(req, SMARTIO_A_PING_SIZE, (uint32_t)args[2].val);
	ret = nl_run(&nl, req, NL_SET(smartio_nl_ping_attrs), ping_reply,
		     &count);
	nl_close(&nl);
	return ret;
}

static const struct object cmds[] = {
	{ "list", NULL, "list the remote nodes", node_list },
	{ "ping", "NODE [count N] [size BYTES]", "round trips to a node",
	  node_ping },
};

int do_node(int argc, char **argv)
{
	return run_commands("node", cmds, ARRAY_SIZE(cmds), argc, argv);
}
