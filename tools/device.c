// SPDX-License-Identifier: GPL-2.0
/*
 * smartioctl device: the PCIe functions registered for lending, this
 * node's and those of the nodes it reaches; lending them (add, available,
 * unavailable, reclaim, remove) and borrowing them (borrow, return, also
 * top-level verbs: "smartioctl borrow 80000").
 *
 *   80000: 0000:00:04.0 [1b36:0010] class 010802 node 8 available
 *   80001: 0000:00:05.0 [1b36:0010] class 010802 node 8 borrowed by 9 as 0001:00:00.0
 *
 * Fdids are hex, as Dolphin's smartio_tool prints them (lib/fdid.c), in
 * the text and in -j's JSON alike.
 */
#include <ctype.h>
#include <stdint.h>

#include "smartio/fdid.h"
#include "nl.h"

static const char *fdid_text(const struct nl_obj *d,
			     char buf[SMARTIO_FDID_STR_MAX])
{
	smartio_fdid_format((uint32_t)nl_uint(d, SMARTIO_A_DEVICE_FDID), buf,
			    SMARTIO_FDID_STR_MAX);
	return buf;
}

static void print_device(const struct nl_obj *d)
{
	char fdid[SMARTIO_FDID_STR_MAX];

	printf("%s: %s [%04llx:%04llx] class %06llx node %llu %s",
	       fdid_text(d, fdid),
	       nl_str(d, SMARTIO_A_DEVICE_PCI_NAME),
	       nl_uint(d, SMARTIO_A_DEVICE_VENDOR),
	       nl_uint(d, SMARTIO_A_DEVICE_DEVICE),
	       nl_uint(d, SMARTIO_A_DEVICE_CLASS),
	       nl_uint(d, SMARTIO_A_DEVICE_NODE_ID),
	       nl_str(d, SMARTIO_A_DEVICE_STATE));
	/* Sent only while borrowed, and by this node. */
	if (d->tb[SMARTIO_A_DEVICE_BORROWER])
		printf(" by %llu", nl_uint(d, SMARTIO_A_DEVICE_BORROWER));
	if (d->tb[SMARTIO_A_DEVICE_LOCAL_NAME])
		printf(" as %s", nl_str(d, SMARTIO_A_DEVICE_LOCAL_NAME));
	putchar('\n');
}

/* As nl_json, but the fdid is the string the text prints, not a number. */
static void json_device(FILE *out, const struct nl_obj *d)
{
	char fdid[SMARTIO_FDID_STR_MAX];
	struct nl_obj rest = *d;
	bool first = true;

	fputc('{', out);
	if (d->tb[SMARTIO_A_DEVICE_FDID]) {
		json_key(out, d->set[SMARTIO_A_DEVICE_FDID].name, &first);
		json_string(out, fdid_text(d, fdid));
		rest.tb[SMARTIO_A_DEVICE_FDID] = NULL;
	}
	nl_json_members(out, &rest, &first);
	fputc('}', out);
}

/* The device a do answers with (show, add, borrow): one line or object. */
static int print_reply(const struct nl_obj *d, void *arg)
{
	(void)arg;
	if (opts.json) {
		json_device(stdout, d);
		putchar('\n');
	} else {
		print_device(d);
	}
	return MNL_CB_OK;
}

/* Puts the arguments given as the attributes they stand for. */
static void put_args(struct nlmsghdr *req, const struct arg_spec *args,
		     size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!args[i].given)
			continue;
		switch (args[i].kind) {
		case ARG_FDID:
			mnl_attr_put_u32(req, SMARTIO_A_DEVICE_FDID,
					 (uint32_t)args[i].val);
			break;
		case ARG_PCI_NAME:
			mnl_attr_put_strz(req, SMARTIO_A_DEVICE_PCI_NAME,
					  args[i].str);
			break;
		case ARG_FLAG:	/* force, the only flag */
			mnl_attr_put(req, SMARTIO_A_DEVICE_FORCE, 0, NULL);
			break;
		case ARG_NUMBER:
			break;	/* no device command takes one */
		}
	}
}

/*
 * Runs device command WHAT: its arguments ARGC, ARGV checked against
 * ARGS, then sent. Without arguments (list), CMD is a dump; with, a do,
 * and the device it answers with is printed (remove, available and the
 * others answer with nothing and print nothing on success, as ip(8)).
 */
static int device_do(const char *what, uint8_t cmd, int argc, char **argv,
		     struct arg_spec *args, size_t n)
{
	struct nlmsghdr *req;
	struct nl nl;
	int ret;

	ret = cmd_args(what, argc, argv, args, n);
	if (ret)
		return ret;
	/* Named by the argument as normalised: "device show 80000". */
	ret = nl_open(&nl, "%s%s%s", what, n ? " " : "", n ? args[0].str : "");
	if (ret)
		return ret;
	req = nl_request(&nl, cmd, n ? NLM_F_ACK : NLM_F_DUMP);
	put_args(req, args, n);
	if (n)
		ret = nl_run(&nl, req, NL_SET(smartio_nl_device_attrs),
			     print_reply, NULL);
	else
		ret = nl_list_as(&nl, req, NL_SET(smartio_nl_device_attrs),
				 print_device, json_device);
	nl_close(&nl);
	return ret;
}

#define FDID_ARG { .name = "FDID", .kind = ARG_FDID, .positional = true }

/* The commands whose one argument is the device's fdid. */
static int fdid_do(const char *what, uint8_t cmd, int argc, char **argv)
{
	struct arg_spec args[] = { FDID_ARG };

	return device_do(what, cmd, argc, argv, args, ARRAY_SIZE(args));
}

static int device_list(int argc, char **argv)
{
	return device_do("device list", SMARTIO_CMD_DEVICE_GET, argc, argv,
			 NULL, 0);
}

static int device_show(int argc, char **argv)
{
	return fdid_do("device show", SMARTIO_CMD_DEVICE_GET, argc, argv);
}

static int device_add(int argc, char **argv)
{
	struct arg_spec args[] = {
		{ .name = "BDF", .kind = ARG_PCI_NAME, .positional = true },
	};

	return device_do("device add", SMARTIO_CMD_DEVICE_ADD, argc, argv,
			 args, ARRAY_SIZE(args));
}

static int device_remove(int argc, char **argv)
{
	return fdid_do("device remove", SMARTIO_CMD_DEVICE_REMOVE, argc, argv);
}

static int device_available(int argc, char **argv)
{
	struct arg_spec args[] = {
		FDID_ARG,
		{ .name = "force", .kind = ARG_FLAG },
	};

	return device_do("device available", SMARTIO_CMD_DEVICE_AVAILABLE,
			 argc, argv, args, ARRAY_SIZE(args));
}

static int device_unavailable(int argc, char **argv)
{
	return fdid_do("device unavailable", SMARTIO_CMD_DEVICE_UNAVAILABLE,
		       argc, argv);
}

static int device_reclaim(int argc, char **argv)
{
	return fdid_do("device reclaim", SMARTIO_CMD_DEVICE_RECLAIM,
		       argc, argv);
}

static int device_borrow(int argc, char **argv)
{
	return fdid_do("device borrow", SMARTIO_CMD_DEVICE_BORROW, argc, argv);
}

static int device_return(int argc, char **argv)
{
	return fdid_do("device return", SMARTIO_CMD_DEVICE_RETURN, argc, argv);
}

static const struct object cmds[] = {
	{ "list", NULL, "list devices here and on reachable nodes",
	  device_list },
	{ "show", "FDID", "show one device", device_show },
	{ "add", "BDF", "register a local PCI function for lending",
	  device_add },
	{ "remove", "FDID", "unregister an unavailable local device",
	  device_remove },
	{ "available", "FDID [force]", "take a local device from its driver",
	  device_available },
	{ "unavailable", "FDID", "give a local device back to its driver",
	  device_unavailable },
	{ "reclaim", "FDID", "take a local device back from its borrower",
	  device_reclaim },
	{ "borrow", "FDID", "borrow a device; prints its local PCI name",
	  device_borrow },
	{ "return", "FDID", "return a borrowed device", device_return },
};

int do_device(int argc, char **argv)
{
	return run_commands("device", cmds, ARRAY_SIZE(cmds), argc, argv);
}

/*
 * "smartioctl borrow FDID" and "smartioctl return FDID": the device
 * commands NAME as verbs of their own, named so in errors, with the
 * device help's line as their help.
 */
static int verb(const char *name, uint8_t cmd, int argc, char **argv)
{
	const struct object *c = &cmds[FIND_NAME(cmds, ARRAY_SIZE(cmds), name)];

	if (argc > 0 && is_help(argv[0])) {
		printf("Usage: smartioctl [-j] %s %s\n"
		       "%c%s.\nThe same as \"smartioctl device %s\".\n",
		       name, c->args, toupper((unsigned char)c->summary[0]),
		       c->summary + 1, name);
		return EXIT_OK;
	}
	return fdid_do(name, cmd, argc, argv);
}

int do_borrow(int argc, char **argv)
{
	return verb("borrow", SMARTIO_CMD_DEVICE_BORROW, argc, argv);
}

int do_return(int argc, char **argv)
{
	return verb("return", SMARTIO_CMD_DEVICE_RETURN, argc, argv);
}
