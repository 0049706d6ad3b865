// SPDX-License-Identifier: GPL-2.0
/*
 * smartioctl segment: the memory segments this node knows of, its own
 * and those it is connected to.
 *
 *   segment 7: node 2 size 67108864 local exported
 *   segment 3: node 1 size 1048576 remote lost
 */
#include <linux/smartio_dev.h>

#include "nl.h"

static void print_segment(const struct nl_obj *s)
{
	unsigned long long flags = nl_uint(s, SMARTIO_A_SEGMENT_FLAGS);

	printf("segment %llu: node %llu size %llu %s%s%s\n",
	       nl_uint(s, SMARTIO_A_SEGMENT_SEGMENT_ID),
	       nl_uint(s, SMARTIO_A_SEGMENT_NODE_ID),
	       nl_uint(s, SMARTIO_A_SEGMENT_SIZE),
	       flags & SMARTIO_SEGMENT_REMOTE ? "remote" : "local",
	       flags & SMARTIO_SEGMENT_EXPORTED ? " exported" : "",
	       flags & SMARTIO_SEGMENT_LOST ? " lost" : "");
}

static int segment_list(int argc, char **argv)
{
	return nl_dump("segment list", argc, argv, SMARTIO_CMD_SEGMENT_GET,
		       NL_SET(smartio_nl_segment_attrs), print_segment);
}

static const struct object cmds[] = {
	{ "list", NULL, "list the known segments", segment_list },
};

int do_segment(int argc, char **argv)
{
	return run_commands("segment", cmds, ARRAY_SIZE(cmds), argc, argv);
}
