// SPDX-License-Identifier: GPL-2.0
/*
 * smartioctl's generic netlink plumbing; see nl.h.
 *
 * Every reply is validated against its attribute set in netlink-gen.h
 * before an object sees it, so the object files only pick values out and
 * print them. Kernel errors come back with their extended ACK message,
 * printed as "smartioctl: WHAT: MESSAGE (ERRNO)".
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nl.h"

/*
 * Requests are built in and replies received into this one buffer. 32 KiB
 * is the most the kernel puts in one dump skb, so no reply is truncated
 * (recvfrom would fail with ENOSPC rather than lose it).
 */
static char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));

/* One exchange: where replies go, and how it failed. */
struct run_ctx {
	struct nl *nl;
	const struct smartio_nl_attr *set;
	unsigned int max;
	nl_msg_fn fn;
	void *arg;
	int err;		/* errno it failed with, 0 if it did not */
	char msg[256];		/* the kernel's message or ours, or "" */
};

static void report(const char *what, int err, const char *msg)
{
	char desc[128], name[32];

	if (!msg || !*msg) {
		describe_errno(err, desc, sizeof(desc));
		msg = desc;
	}
	fprintf(stderr, "smartioctl: %s: %s (%s)\n", what, msg,
		errno_name(err, name, sizeof(name)));
}

static int fail(struct run_ctx *ctx)
{
	report(ctx->nl->what, ctx->err, ctx->msg);
	return EXIT_FAILED;
}

/* ---- attributes ---- */

static int parse(struct nl_obj *obj, const struct smartio_nl_attr *set,
		 unsigned int max, const void *payload, size_t len);

static void parse_nest(const struct nl_obj *obj, const struct nlattr *attr,
		       struct nl_obj *nest)
{
	const struct smartio_nl_attr *a = &obj->set[mnl_attr_get_type(attr)];

	/* A nest without a set (none in the spec now) has nothing we know. */
	parse(nest, a->nested, a->nested ? a->nested_max : 0,
	      mnl_attr_get_payload(attr), mnl_attr_get_payload_len(attr));
}

static int parse_cb(const struct nlattr *attr, void *data)
{
	struct nl_obj *obj = data;
	unsigned int type = mnl_attr_get_type(attr);
	const struct smartio_nl_attr *a;
	struct nl_obj nest;

	/* A newer module's attribute: not ours to print. */
	if (type == 0 || type > obj->max || !obj->set[type].name)
		return MNL_CB_OK;
	a = &obj->set[type];
	if (mnl_attr_validate(attr, a->type) < 0) {
		obj->bad = a->name;
		return MNL_CB_ERROR;
	}
	if (a->nested) {
		parse_nest(obj, attr, &nest);
		if (nest.bad) {
			obj->bad = nest.bad;
			return MNL_CB_ERROR;
		}
	}
	if (!obj->tb[type])
		obj->tb[type] = attr;
	return MNL_CB_OK;
}

/* Fills OBJ from PAYLOAD; on failure OBJ->bad names the culprit. */
static int parse(struct nl_obj *obj, const struct smartio_nl_attr *set,
		 unsigned int max, const void *payload, size_t len)
{
	memset(obj, 0, sizeof(*obj));
	obj->set = set;
	obj->max = max;
	obj->payload = payload;
	obj->len = len;
	if (max > NL_MAX_ATTR) {
		obj->bad = "(beyond NL_MAX_ATTR)";	/* raise it */
		return -1;
	}
	if (mnl_attr_parse_payload(payload, len, parse_cb, obj) < 0) {
		if (!obj->bad)
			obj->bad = "?";
		return -1;
	}
	return 0;
}

unsigned long long nl_uint(const struct nl_obj *obj, unsigned int type)
{
	const struct nlattr *attr = type <= obj->max ? obj->tb[type] : NULL;

	if (!attr)
		return 0;
	switch (obj->set[type].type) {
	case MNL_TYPE_U8:
		return mnl_attr_get_u8(attr);
	case MNL_TYPE_U16:
		return mnl_attr_get_u16(attr);
	case MNL_TYPE_U32:
		return mnl_attr_get_u32(attr);
	case MNL_TYPE_U64:
		return mnl_attr_get_u64(attr);
	default:
		return 0;
	}
}

/* The name of enum attribute TYPE's value; NULL if it has none. */
static const char *enum_name(const struct nl_obj *obj, unsigned int type)
{
	const struct smartio_nl_attr *a = &obj->set[type];
	unsigned long long v = nl_uint(obj, type);

	if (!a->enum_names || v >= a->enum_count)
		return NULL;
	return a->enum_names[v];
}

const char *nl_str(const struct nl_obj *obj, unsigned int type)
{
	const char *name;

	if (type > obj->max || !obj->tb[type])
		return "-";
	if (obj->set[type].type == MNL_TYPE_NUL_STRING)
		return mnl_attr_get_str(obj->tb[type]);
	name = enum_name(obj, type);
	return name ? name : "unknown";
}

void nl_foreach(const struct nl_obj *obj, unsigned int type,
		void (*fn)(const struct nl_obj *nest, void *arg), void *arg)
{
	const char *end = (const char *)obj->payload + obj->len;
	const struct nlattr *attr;
	struct nl_obj nest;

	for (attr = obj->payload; mnl_attr_ok(attr, end - (const char *)attr);
	     attr = mnl_attr_next(attr)) {
		if (mnl_attr_get_type(attr) != type)
			continue;
		parse_nest(obj, attr, &nest);
		fn(&nest, arg);
	}
}

static void json_value(FILE *out, const struct nl_obj *obj,
		       unsigned int type)
{
	const char *name;
	struct nl_obj nest;

	switch (obj->set[type].type) {
	case MNL_TYPE_U8:
	case MNL_TYPE_U16:
	case MNL_TYPE_U32:
	case MNL_TYPE_U64:
		name = enum_name(obj, type);
		if (name)
			json_string(out, name);
		else
			fprintf(out, "%llu", nl_uint(obj, type));
		break;
	case MNL_TYPE_NUL_STRING:
		json_string(out, nl_str(obj, type));
		break;
	case MNL_TYPE_NESTED:
		parse_nest(obj, obj->tb[type], &nest);
		nl_json(out, &nest);
		break;
	case MNL_TYPE_FLAG:
		fputs("true", out);
		break;
	default:
		fputs("null", out);
	}
}

struct json_array {
	FILE *out;
	bool first;
};

static void json_elem_cb(const struct nl_obj *nest, void *arg)
{
	struct json_array *a = arg;

	json_elem(a->out, &a->first);
	nl_json(a->out, nest);
}

void nl_json_members(FILE *out, const struct nl_obj *obj, bool *first)
{
	const struct smartio_nl_attr *a;
	struct json_array array;
	unsigned int type;

	for (type = 1; type <= obj->max; type++) {
		a = &obj->set[type];
		/* Padding is no value; it is the only UNSPEC we have. */
		if (!obj->tb[type] || a->type == MNL_TYPE_UNSPEC)
			continue;
		json_key(out, a->name, first);
		if (!a->multi || !a->nested) {
			json_value(out, obj, type);
			continue;
		}
		array.out = out;
		array.first = true;
		nl_foreach(obj, type, json_elem_cb, &array);
		json_array_end(out, array.first);
	}
}

void nl_json(FILE *out, const struct nl_obj *obj)
{
	bool first = true;

	fputc('{', out);
	nl_json_members(out, obj, &first);
	fputc('}', out);
}

/* ---- messages ---- */

static struct nlmsghdr *put_request(struct nl *nl, uint16_t type,
				    uint8_t cmd, uint8_t version,
				    uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

struct nlmsghdr *nl_request(struct nl *nl, uint8_t cmd, uint16_t flags)
{
	return put_request(nl, nl->family, cmd, SMARTIO_FAMILY_VERSION, flags);
}

/*
 * The kernel failed with ERR; its extended ACK attributes, if any, start
 * OFF bytes into NLH's payload.
 */
static int kernel_error(struct run_ctx *ctx, int err,
			const struct nlmsghdr *nlh, size_t off)
{
	const struct nlattr *attr;

	ctx->err = err;
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) &&
	    off <= mnl_nlmsg_get_payload_len(nlh)) {
		mnl_attr_for_each(attr, nlh, off) {
			if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
			    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
				snprintf(ctx->msg, sizeof(ctx->msg), "%s",
					 mnl_attr_get_str(attr));
		}
	}
	/* Only admin-perm commands fail so bare; say what they need. */
	if (err == EPERM && !ctx->msg[0])
		snprintf(ctx->msg, sizeof(ctx->msg),
			 "operation not permitted: needs CAP_NET_ADMIN");
	/* So does generic netlink for a command the family does not have. */
	if (err == EOPNOTSUPP && !ctx->msg[0])
		snprintf(ctx->msg, sizeof(ctx->msg),
			 "not supported by the loaded smartio module, which may be older than smartioctl");
	return MNL_CB_ERROR;
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct run_ctx *ctx = data;
	size_t off = sizeof(*err);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err)) {
		ctx->err = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (err->error == 0)
		return MNL_CB_STOP;	/* the ACK of a do */
	/* Unless the kernel honoured NETLINK_CAP_ACK, our request follows. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
	    err->msg.nlmsg_len > sizeof(err->msg))
		off += err->msg.nlmsg_len - sizeof(err->msg);
	return kernel_error(ctx, err->error < 0 ? -err->error : err->error,
			    nlh, off);
}

/* A dump that fails half-way says so in its DONE: an errno, then TLVs. */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	int err = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err >= 0)
		return MNL_CB_STOP;
	return kernel_error(data, -err, nlh, sizeof(err));
}

/* Not const: mnl_cb_run2() takes a plain pointer. */
static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = error_cb,
	[NLMSG_DONE] = done_cb,
};

/* Validates a reply of our family and hands it to the caller's FN. */
static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	struct run_ctx *ctx = data;
	struct nl_obj obj;

	/* Not ours, or a reply the caller does not want (an empty do). */
	if (nlh->nlmsg_type != ctx->nl->family || !ctx->fn)
		return MNL_CB_OK;
	ctx->err = EPROTO;
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN) {
		snprintf(ctx->msg, sizeof(ctx->msg),
			 "truncated message from the kernel");
		return MNL_CB_ERROR;
	}
	if (parse(&obj, ctx->set, ctx->max,
		  mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN),
		  mnl_nlmsg_get_payload_len(nlh) - GENL_HDRLEN) < 0) {
		snprintf(ctx->msg, sizeof(ctx->msg),
			 "malformed attribute \"%s\" from the kernel", obj.bad);
		return MNL_CB_ERROR;
	}
	ctx->err = 0;
	obj.cmd = genl->cmd;
	return ctx->fn(&obj, ctx->arg);
}

/*
 * Receives until CB or the kernel stops (a do's ACK, a dump's DONE) or
 * fails. SEQ 0 is the monitor: no request, events until told to stop, and
 * events lost to a full socket buffer are worth a warning, not an end.
 * No timeout: a long ping legitimately keeps the kernel busy for minutes.
 */
static int receive(struct run_ctx *ctx, uint32_t seq, mnl_cb_t cb)
{
	struct nl *nl = ctx->nl;
	ssize_t n;
	int ret;

	for (;;) {
		n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (n < 0 && errno == ENOBUFS && !seq) {
			report(nl->what, ENOBUFS, "events were lost");
			continue;
		}
		if (n < 0) {
			ctx->err = errno;
			return -1;
		}
		ret = mnl_cb_run2(buf, n, seq, nl->portid, cb, ctx, ctl_cbs,
				  ARRAY_SIZE(ctl_cbs));
		if (ret < 0 && !ctx->err) {
			/* libmnl's own: ESRCH, or EINTR for NLM_F_DUMP_INTR */
			ctx->err = errno;
			if (errno == EINTR)
				snprintf(ctx->msg, sizeof(ctx->msg),
					 "the list changed while it was read; try again");
		}
		if (ret < 0)
			return -1;
		if (ret == MNL_CB_STOP)
			return 0;
	}
}

static int exchange(struct run_ctx *ctx, const struct nlmsghdr *req,
		    mnl_cb_t cb)
{
	if (mnl_socket_sendto(ctx->nl->sock, req, req->nlmsg_len) < 0) {
		ctx->err = errno;
		return -1;
	}
	return receive(ctx, req->nlmsg_seq, cb);
}

int nl_run(struct nl *nl, struct nlmsghdr *req,
	   const struct smartio_nl_attr *set, unsigned int max,
	   nl_msg_fn fn, void *arg)
{
	struct run_ctx ctx = {
		.nl = nl, .set = set, .max = max, .fn = fn, .arg = arg,
	};

	return exchange(&ctx, req, data_cb) < 0 ? fail(&ctx) : EXIT_OK;
}

struct list_ctx {
	nl_print_fn print;
	nl_json_fn json;
	bool first;
};

static int list_cb(const struct nl_obj *obj, void *arg)
{
	struct list_ctx *list = arg;

	if (opts.json) {
		json_elem(stdout, &list->first);
		list->json(stdout, obj);
	} else {
		list->print(obj);
	}
	return MNL_CB_OK;
}

int nl_list(struct nl *nl, struct nlmsghdr *req,
	    const struct smartio_nl_attr *set, unsigned int max,
	    nl_print_fn print)
{
	return nl_list_as(nl, req, set, max, print, nl_json);
}

int nl_list_as(struct nl *nl, struct nlmsghdr *req,
	       const struct smartio_nl_attr *set, unsigned int max,
	       nl_print_fn print, nl_json_fn json)
{
	struct list_ctx list = { .print = print, .json = json, .first = true };
	int ret = nl_run(nl, req, set, max, list_cb, &list);

	/* Keep stdout valid JSON when a dump fails half-way. */
	if (opts.json && (ret == EXIT_OK || !list.first)) {
		json_array_end(stdout, list.first);
		putchar('\n');
	}
	return ret;
}

int nl_dump(const char *what, int argc, char **argv, uint8_t cmd,
	    const struct smartio_nl_attr *set, unsigned int max,
	    nl_print_fn print)
{
	struct nl nl;
	int ret = cmd_args(what, argc, argv, NULL, 0);

	if (ret)
		return ret;
	ret = nl_open(&nl, "%s", what);
	if (ret)
		return ret;
	ret = nl_list(&nl, nl_request(&nl, cmd, NLM_F_DUMP), set, max, print);
	nl_close(&nl);
	return ret;
}

int nl_monitor(struct nl *nl, const struct smartio_nl_attr *set,
	       unsigned int max, nl_msg_fn fn, void *arg)
{
	struct run_ctx ctx = {
		.nl = nl, .set = set, .max = max, .fn = fn, .arg = arg,
	};
	int group = (int)nl->monitor_group;

	if (!group) {
		ctx.err = EOPNOTSUPP;
		snprintf(ctx.msg, sizeof(ctx.msg),
			 "the smartio module has no \"%s\" group",
			 SMARTIO_MCGRP_MONITOR);
		return fail(&ctx);
	}
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP, &group,
				  sizeof(group)) < 0) {
		ctx.err = errno;
		return fail(&ctx);
	}
	return receive(&ctx, 0, data_cb) < 0 ? fail(&ctx) : EXIT_OK;
}

/* ---- the socket and the family ---- */

static void mcast_group(struct nl *nl, const struct nlattr *grp)
{
	const struct nlattr *attr;
	const char *name = NULL;
	uint32_t id = 0;

	mnl_attr_for_each_nested(attr, grp) {
		if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GRP_NAME &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			name = mnl_attr_get_str(attr);
		else if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GRP_ID &&
			 mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			id = mnl_attr_get_u32(attr);
	}
	if (name && strcmp(name, SMARTIO_MCGRP_MONITOR) == 0)
		nl->monitor_group = id;
}

/* The controller's reply: our family's id and its multicast groups. */
static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl *nl = ((struct run_ctx *)data)->nl;
	const struct nlattr *attr, *grp;

	mnl_attr_for_each(attr, nlh, GENL_HDRLEN) {
		if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
		    mnl_attr_validate(attr, MNL_TYPE_U16) == 0)
			nl->family = mnl_attr_get_u16(attr);
		if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GROUPS &&
		    mnl_attr_validate(attr, MNL_TYPE_NESTED) == 0) {
			mnl_attr_for_each_nested(grp, attr)
				mcast_group(nl, grp);
		}
	}
	return MNL_CB_OK;
}

static int find_family(struct nl *nl)
{
	struct run_ctx ctx = { .nl = nl };
	struct nlmsghdr *req;

	req = put_request(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_strz(req, CTRL_ATTR_FAMILY_NAME, SMARTIO_FAMILY_NAME);
	if (exchange(&ctx, req, family_cb) < 0) {
		if (ctx.err != ENOENT)
			return fail(&ctx);
		fprintf(stderr, "smartioctl: the smartio kernel module is not loaded (modprobe smartio)\n");
		return EXIT_NO_MODULE;
	}
	if (!nl->family) {
		ctx.err = EPROTO;
		snprintf(ctx.msg, sizeof(ctx.msg),
			 "no id for family \"%s\" from the kernel",
			 SMARTIO_FAMILY_NAME);
		return fail(&ctx);
	}
	return EXIT_OK;
}

int nl_open(struct nl *nl, const char *fmt, ...)
{
	int one = 1, ret;
	va_list ap;

	memset(nl, 0, sizeof(*nl));
	va_start(ap, fmt);
	vsnprintf(nl->what, sizeof(nl->what), fmt, ap);
	va_end(ap);
	nl->seq = (uint32_t)time(NULL);
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock) {
		report(nl->what, errno, NULL);
		return EXIT_FAILED;
	}
	/*
	 * Kernel errors with their messages, and without our request echoed
	 * back. Kernels before 4.12 have neither; errors are then just
	 * errnos, so failing to set these is no reason to stop.
	 */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		report(nl->what, errno, NULL);
		nl_close(nl);
		return EXIT_FAILED;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	ret = find_family(nl);
	if (ret)
		nl_close(nl);
	return ret;
}

void nl_close(struct nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}
