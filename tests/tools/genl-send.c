// SPDX-License-Identifier: GPL-2.0
/*
 * smartio-genl-send: send the smartio family one request built by hand,
 * attribute by attribute, and report the kernel's answer as smartioctl
 * does. Tests use it for what smartioctl never sends: malformed requests.
 *
 *	smartio-genl-send [-r] CMD [TYPE:KIND:VALUE]...
 *	smartio-genl-send -l
 *
 * CMD is a command number (SMARTIO_CMD_*); each attribute is its type
 * number, its kind (u8, u16, u32, u64 or str) and its value. -r sets the
 * generic netlink header's reserved byte. Exit codes as smartioctl's; on
 * success, replies print as JSON. -l lists the commands a request may
 * carry, a line each: number, name, and "admin" if the spec says it needs
 * CAP_NET_ADMIN, "-" if not.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "nl.h"

struct smartioctl_opts opts = { .json = true };

static int usage(void)
{
	fprintf(stderr, "usage: smartio-genl-send [-r] CMD [TYPE:KIND:VALUE]...\n"
			"       smartio-genl-send -l\n");
	return EXIT_USAGE;
}

static int list_commands(void)
{
	size_t i;

	for (i = 0; i < SMARTIO_NL_ARRAY_SIZE(smartio_nl_cmds); i++) {
		const struct smartio_nl_cmd *c = &smartio_nl_cmds[i];

		printf("%u %s %s\n", c->cmd, smartio_nl_cmd_names[c->cmd],
		       c->admin ? "admin" : "-");
	}
	return EXIT_SUCCESS;
}

static bool put_attr(struct nlmsghdr *req, char *spec)
{
	char *kind = strchr(spec, ':'), *value, *end;
	unsigned long long type, v = 0;

	if (!kind)
		return false;
	*kind++ = '\0';
	value = strchr(kind, ':');
	if (!value)
		return false;
	*value++ = '\0';
	type = strtoull(spec, &end, 0);
	if (*end || type > 0xffff)
		return false;
	if (strcmp(kind, "str") == 0) {
		mnl_attr_put_strz(req, (uint16_t)type, value);
		return true;
	}
	v = strtoull(value, &end, 0);
	if (*end)
		return false;
	if (strcmp(kind, "u8") == 0)
		mnl_attr_put_u8(req, (uint16_t)type, (uint8_t)v);
	else if (strcmp(kind, "u16") == 0)
		mnl_attr_put_u16(req, (uint16_t)type, (uint16_t)v);
	else if (strcmp(kind, "u32") == 0)
		mnl_attr_put_u32(req, (uint16_t)type, (uint32_t)v);
	else if (strcmp(kind, "u64") == 0)
		mnl_attr_put_u64(req, (uint16_t)type, v);
	else
		return false;
	return true;
}

static int print_reply(const struct nl_obj *msg, void *arg)
{
	(void)arg;
	nl_json(stdout, msg);
	putchar('\n');
	return MNL_CB_OK;
}

int main(int argc, char **argv)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *req;
	bool reserved = false;
	unsigned long cmd;
	struct nl nl;
	char *end;
	int c, i, ret;

	while ((c = getopt(argc, argv, "lr")) != -1) {
		if (c == 'l')
			return optind == argc ? list_commands() : usage();
		if (c != 'r')
			return usage();
		reserved = true;
	}
	if (optind >= argc)
		return usage();
	cmd = strtoul(argv[optind], &end, 0);
	if (*end || cmd > 0xff)
		return usage();

	ret = nl_open(&nl, "command %lu", cmd);
	if (ret)
		return ret;
	req = nl_request(&nl, (uint8_t)cmd, NLM_F_ACK);
	genl = mnl_nlmsg_get_payload(req);
	if (reserved)
		genl->reserved = 1;
	for (i = optind + 1; i < argc; i++) {
		if (!put_attr(req, argv[i])) {
			nl_close(&nl);
			return usage();
		}
	}
	/* Replies of any command: print what the generic table knows. */
	ret = nl_run(&nl, req, NL_SET(smartio_nl_adapter_attrs), print_reply,
		     NULL);
	nl_close(&nl);
	return ret;
}
