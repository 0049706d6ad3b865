// SPDX-License-Identifier: GPL-2.0
/*
 * smartioctl adapter: this node's NTB adapters and their peer ports.
 *
 *   adapter 0: node 1 port 0 pci 0000:00:03.0
 *     peer 0: port 1 node 2 joined
 */
#include <stdint.h>

#include "nl.h"

static void print_peer(const struct nl_obj *peer, void *arg)
{
	(void)arg;
	printf("  peer %llu: port %llu node %llu %s\n",
	       nl_uint(peer, SMARTIO_A_PEER_INDEX),
	       nl_uint(peer, SMARTIO_A_PEER_PORT),
	       nl_uint(peer, SMARTIO_A_PEER_NODE_ID),
	       nl_str(peer, SMARTIO_A_PEER_STATE));
}

static void print_adapter(const struct nl_obj *a)
{
	printf("adapter %llu: node %llu port %llu pci %s\n",
	       nl_uint(a, SMARTIO_A_ADAPTER_INDEX),
	       nl_uint(a, SMARTIO_A_ADAPTER_NODE_ID),
	       nl_uint(a, SMARTIO_A_ADAPTER_PORT),
	       nl_str(a, SMARTIO_A_ADAPTER_PCI_NAME));
	nl_foreach(a, SMARTIO_A_ADAPTER_PEERS, print_peer, NULL);
}

static int adapter_list(int argc, char **argv)
{
	return nl_dump("adapter list", argc, argv, SMARTIO_CMD_ADAPTER_GET,
		       NL_SET(smartio_nl_adapter_attrs), print_adapter);
}

/* Adapter indexes are u32 (netlink/smartio.yaml). */
#define INDEX_ARG { .name = "INDEX", .max = UINT32_MAX, .positional = true }

static int adapter_show(int argc, char **argv)
{
	struct arg_spec args[] = { INDEX_ARG };
	struct nlmsghdr *req;
	struct nl nl;
	int ret;

	ret = cmd_args("adapter show", argc, argv, args, ARRAY_SIZE(args));
	if (ret)
		return ret;
	ret = nl_open(&nl, "adapter show %llu", args[0].val);
	if (ret)
		return ret;
	req = nl_request(&nl, SMARTIO_CMD_ADAPTER_GET, NLM_F_ACK);
	mnl_attr_put_u32(req, SMARTIO_A_ADAPTER_INDEX, (uint32_t)args[0].val);
	ret = nl_list(&nl, req, NL_SET(smartio_nl_adapter_attrs),
		      print_adapter);
	nl_close(&nl);
	return ret;
}

static int adapter_set(int argc, char **argv)
{
	struct arg_spec args[] = {
		INDEX_ARG,
		/* node-id: u16, 1..65534 in the spec (65535 is every node) */
		{ .name = "node-id", .min = 1, .max = UINT16_MAX - 1,
		  .required = true },
	};
	struct nlmsghdr *req;
	struct nl nl;
	int ret;

	ret = cmd_args("adapter set", argc, argv, args, ARRAY_SIZE(args));
	if (ret)
		return ret;
	ret = nl_open(&nl, "adapter set %llu", args[0].val);
	if (ret)
		return ret;
	req = nl_request(&nl, SMARTIO_CMD_ADAPTER_SET, NLM_F_ACK);
	mnl_attr_put_u32(req, SMARTIO_A_ADAPTER_INDEX, (uint32_t)args[0].val);
	mnl_attr_put_u16(req, SMARTIO_A_ADAPTER_NODE_ID,
			 (uint16_t)args[1].val);
	/* Nothing to print on success, as ip(8); the ACK is the answer. */
	ret = nl_run(&nl, req, NL_SET(smartio_nl_adapter_attrs), NULL, NULL);
	nl_close(&nl);
	return ret;
}

static const struct object cmds[] = {
	{ "list", NULL, "list the adapters and their peer ports",
	  adapter_list },
	{ "show", "INDEX", "show one adapter", adapter_show },
	{ "set", "INDEX node-id NODE_ID", "set this node's id on the adapter",
	  adapter_set },
};

int do_adapter(int argc, char **argv)
{
	return run_commands("adapter", cmds, ARRAY_SIZE(cmds), argc, argv);
}
