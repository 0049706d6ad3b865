// SPDX-License-Identifier: GPL-2.0
/*
 * smartio-nl-fuzz: random generic netlink requests to the smartio family
 * (tests/vm/fuzz-netlink).
 *
 *	smartio-nl-fuzz [-u] [-k] [-s SEED] [-n COUNT] [-b BUDGET] [-i MS]
 *			[-l FILE] [-f FDID]... [-N NODE]... [-p PCI_NAME]...
 *			[-c PCI_NAME]...
 *
 * What the family accepts is asked of the running kernel, not copied from
 * the spec: its commands, which have a do and which a dump, which need
 * CAP_NET_ADMIN (CTRL_CMD_GETFAMILY), and each command's request
 * attributes with their types, ranges and lengths (CTRL_CMD_GETPOLICY:
 * the policies scripts/ynl-gen generated from netlink/smartio.yaml). The
 * commands and their permissions are checked against tools/netlink-gen.h,
 * generated from the same spec: a module of another spec is an error.
 *
 * Each request is a command (mostly one of the family's; else an event's
 * number or an unknown one), a do or a dump, and either well formed (each
 * attribute the command takes, valid, three times in four) or not: nlmsg
 * flags (now and then a reserved one, or no NLM_F_REQUEST), a genetlink
 * header (now and then another version or a reserved byte set) and up
 * to five attributes, each
 * valid (a type the command takes, a value in its range: one given on the
 * command line, a boundary, or random), out of range, of a wrong length,
 * of a type the command does not take, flagged nested or in network byte
 * order, repeated, random, or a last one truncated; now and then the
 * message ends inside the genetlink header. Values given with -f (for u32
 * attributes: fdids), -N (u16: node ids) and -p (strings: PCI names)
 * reach real state. A mutating command that carries one uses up one of
 * BUDGET (default 16) such requests, as they take seconds (a borrow binds
 * a driver), spread over the run; elsewhere, a value next to the one drawn
 * is sent instead.
 *
 * Every request must be answered (an ack, an error, a dump's end). A
 * request the family must refuse (a reserved flag or byte, an attribute
 * it does not take or of a wrong length, a value out of its range, an
 * unknown command, a do or dump the command does not have, a mutating
 * command without CAP_NET_ADMIN) must fail, and one without NLM_F_REQUEST
 * must be ignored: anything else is a violation, printed with the
 * request's bytes. An interval timer (-i MS, default 5; 0: none) sends
 * this process SIGALRM, so that a long ping ends early, interrupted, as a
 * user's Ctrl-C would end it: it must be answered all the same, with the
 * round trips received so far. A request that gets no answer at all is a
 * violation, but with -u when a SIGALRM came while it ran: then it is
 * counted, "unanswered-interrupted" (for a kernel that does not answer an
 * interrupted request: an older smartio's ping returned -EINTR, which
 * netlink_rcv_skb() does not answer; tests/vm/fuzz-netlink runs without
 * -u).
 *
 * -c PCI_NAME: a function no driver of this node takes (QEMU's edu), which
 * changing costs little: one request in two (of COUNT) is then a step of
 * a walk over such functions' states, a well formed request that may
 * change state: a device-add of one, or an available (now and then
 * forced), unavailable or remove of one of the fdids the walk's adds were
 * answered with. -k: a second process, forked, sends meanwhile returns,
 * reclaims, unavailables and removals of those fdids, until the first is
 * done. The kernel reuses fdids, so a request naming a stale one may
 * reach another of the walk's functions: the walk keeps to the kernel's
 * truth, adding anew a function whose fdid is answered as unknown, and
 * adopting the fdid the kernel lists for one whose add is refused as
 * registered already ("count: walk adopted"): it cannot stall on a
 * function it lost, however the two processes interleave. Requests that
 * changed state (answered 0: a device add, remove,
 * available, unavailable, borrow, return or reclaim, of the walk, the
 * random requests or the second process) are counted apart:
 * "state changes N".
 *
 * -l FILE: each request, before it is sent, is in FILE: its number and
 * length (two u32) and its bytes, for a test to show the one a kernel
 * hung on (the file is mapped: writing it costs no system call).
 *
 * Prints the seed, "count:" lines per command and outcome ("ok" or an
 * errno name), per kind of attribute and header sent, and a summary line.
 * Exit status 0; 1 on a violation or an unanswered request; 2 for a bad
 * command line; 3 without the smartio family.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "smartio/fdid.h"
#include "fuzz.h"
#include "nl.h"

struct smartioctl_opts opts;

#define OPS_MAX		64
#define POLICIES_MAX	64
#define POLICY_ATTRS	32
#define POOL_MAX	16
#define ATTRS_MAX	5
#define REQ_MAX		4096
#define VIOLATIONS_SHOWN 10
#define ANSWER_TIMEOUT	60	/* s: reclaim 10 (30 on a return), borrow 5 */

/* One request attribute of a policy, as the kernel describes it. */
struct policy_attr {
	uint16_t type;
	uint32_t kind;		/* NL_ATTR_TYPE_* */
	uint64_t min_u, max_u;
	uint32_t max_len;	/* 0: none */
};

struct policy {
	unsigned int count;
	struct policy_attr attrs[POLICY_ATTRS];
};

/* One command of the family: flags GENL_ADMIN_PERM, GENL_CMD_CAP_*. */
struct op {
	uint8_t cmd;
	uint32_t flags;
	int policy[2];		/* do's and dump's, -1 for none */
};

static struct op ops[OPS_MAX];
static unsigned int op_count;
static struct policy policies[POLICIES_MAX];
/* An op without a policy takes no attribute: an empty one. */
static const struct policy no_attrs;

static uint32_t pool_fdid[POOL_MAX];
static uint16_t pool_node[POOL_MAX];
static const char *pool_name[POOL_MAX];
static unsigned int pool_fdids, pool_nodes, pool_names;

static struct fuzz_rng rng;

/* The request being built, and what is known of it. */
struct request {
	const struct op *op;	/* NULL: not a command of the family */
	uint8_t cmd;
	bool dump;
	bool no_request;	/* NLM_F_REQUEST clear: must be ignored */
	const char *refusal;	/* why it must be refused, NULL if not */
	bool pooled;		/* a value from the command line went in */
	size_t len;
	uint8_t buf[REQ_MAX] __attribute__((aligned(NLMSG_ALIGNTO)));
};

/* ---- what the kernel says the family is ---- */

static const char *cmd_name(uint8_t cmd, char *buf, size_t len)
{
	if (cmd < SMARTIO_NL_ARRAY_SIZE(smartio_nl_cmd_names) &&
	    smartio_nl_cmd_names[cmd])
		return smartio_nl_cmd_names[cmd];
	snprintf(buf, len, "cmd-%u", cmd);
	return buf;
}

static struct op *find_op(uint32_t cmd)
{
	unsigned int i;

	for (i = 0; i < op_count; i++)
		if (ops[i].cmd == cmd)
			return &ops[i];
	return NULL;
}

static void parse_op(const struct nlattr *nest)
{
	const struct nlattr *a;
	struct op o = { .policy = { -1, -1 } };
	bool have_id = false;

	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			continue;
		if (mnl_attr_get_type(a) == CTRL_ATTR_OP_ID) {
			o.cmd = (uint8_t)mnl_attr_get_u32(a);
			have_id = true;
		} else if (mnl_attr_get_type(a) == CTRL_ATTR_OP_FLAGS) {
			o.flags = mnl_attr_get_u32(a);
		}
	}
	if (have_id && op_count < OPS_MAX)
		ops[op_count++] = o;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *attr, *nest;

	(void)data;
	mnl_attr_for_each(attr, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(attr) == CTRL_ATTR_OPS)
			mnl_attr_for_each_nested(nest, attr)
				parse_op(nest);
	return MNL_CB_OK;
}

/* CTRL_ATTR_OP_POLICY: { cmd: { CTRL_ATTR_POLICY_DO/DUMP: index } } */
static void parse_op_policy(const struct nlattr *attr)
{
	const struct nlattr *nest, *a;
	struct op *o;

	mnl_attr_for_each_nested(nest, attr) {
		o = find_op(mnl_attr_get_type(nest));
		if (!o)
			continue;
		mnl_attr_for_each_nested(a, nest) {
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0 ||
			    mnl_attr_get_u32(a) >= POLICIES_MAX)
				continue;
			if (mnl_attr_get_type(a) == CTRL_ATTR_POLICY_DO)
				o->policy[0] = (int)mnl_attr_get_u32(a);
			else if (mnl_attr_get_type(a) == CTRL_ATTR_POLICY_DUMP)
				o->policy[1] = (int)mnl_attr_get_u32(a);
		}
	}
}

/* CTRL_ATTR_POLICY: { policy index: { attribute type: { NL_POLICY_TYPE_ATTR_* } } } */
static void parse_policy(const struct nlattr *attr)
{
	const struct nlattr *pol, *nest, *a;
	struct policy_attr pa;
	struct policy *p;

	mnl_attr_for_each_nested(pol, attr) {
		if (mnl_attr_get_type(pol) >= POLICIES_MAX)
			continue;
		p = &policies[mnl_attr_get_type(pol)];
		mnl_attr_for_each_nested(nest, pol) {
			memset(&pa, 0, sizeof(pa));
			pa.type = mnl_attr_get_type(nest);
			pa.max_u = ~0ULL;
			mnl_attr_for_each_nested(a, nest) {
				switch (mnl_attr_get_type(a)) {
				case NL_POLICY_TYPE_ATTR_TYPE:
					pa.kind = mnl_attr_get_u32(a);
					break;
				case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
					pa.min_u = mnl_attr_get_u64(a);
					break;
				case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
					pa.max_u = mnl_attr_get_u64(a);
					break;
				case NL_POLICY_TYPE_ATTR_MAX_LENGTH:
					pa.max_len = mnl_attr_get_u32(a);
					break;
				}
			}
			if (p->count < POLICY_ATTRS)
				p->attrs[p->count++] = pa;
		}
	}
}

static int policy_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *attr;

	(void)data;
	mnl_attr_for_each(attr, nlh, GENL_HDRLEN) {
		if (mnl_attr_get_type(attr) == CTRL_ATTR_OP_POLICY)
			parse_op_policy(attr);
		else if (mnl_attr_get_type(attr) == CTRL_ATTR_POLICY)
			parse_policy(attr);
	}
	return MNL_CB_OK;
}

/* One request to the generic netlink controller, its replies to CB. */
static int ctrl_query(struct nl *nl, uint8_t cmd, uint16_t flags,
		      mnl_cb_t cb)
{
	static char buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	uint32_t seq = ++nl->seq;
	ssize_t n;
	int ret;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = 2;
	if (cmd == CTRL_CMD_GETFAMILY)
		mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, SMARTIO_FAMILY_NAME);
	else
		mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, nl->family);
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(buf, (size_t)n, seq, nl->portid, cb, NULL);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

static const char *kind_name(uint32_t kind)
{
	switch (kind) {
	case NL_ATTR_TYPE_FLAG: return "flag";
	case NL_ATTR_TYPE_U8: return "u8";
	case NL_ATTR_TYPE_U16: return "u16";
	case NL_ATTR_TYPE_U32: return "u32";
	case NL_ATTR_TYPE_U64: return "u64";
	case NL_ATTR_TYPE_STRING: return "string";
	case NL_ATTR_TYPE_NUL_STRING: return "nul-string";
	case NL_ATTR_TYPE_BINARY: return "binary";
	case NL_ATTR_TYPE_NESTED: return "nest";
	default: return "other";
	}
}

/*
 * The family as the kernel has it, checked against the commands and
 * permissions tools/netlink-gen.h says the spec gives it.
 */
static int learn_family(struct nl *nl)
{
	unsigned int i, d;
	char name[16];
	struct op *o;
	int ret, bad = 0;

	ret = ctrl_query(nl, CTRL_CMD_GETFAMILY, 0, family_cb);
	if (ret) {
		fprintf(stderr, "smartio-nl-fuzz: the family's commands: %s\n",
			strerror(-ret));
		return EXIT_FAILED;
	}
	ret = ctrl_query(nl, CTRL_CMD_GETPOLICY, NLM_F_DUMP, policy_cb);
	if (ret) {
		fprintf(stderr, "smartio-nl-fuzz: the family's policies: %s\n",
			strerror(-ret));
		return EXIT_FAILED;
	}
	for (i = 0; i < SMARTIO_NL_ARRAY_SIZE(smartio_nl_cmds); i++) {
		const struct smartio_nl_cmd *c = &smartio_nl_cmds[i];

		o = find_op(c->cmd);
		if (!o || !(o->flags & (GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP)) ||
		    !!(o->flags & GENL_ADMIN_PERM) != !!c->admin) {
			fprintf(stderr, "smartio-nl-fuzz: %s: %s in the kernel's family, %s in tools/netlink-gen.h\n",
				smartio_nl_cmd_names[c->cmd],
				!o ? "missing" : o->flags & GENL_ADMIN_PERM ?
				"admin" : "not admin",
				c->admin ? "admin" : "not admin");
			bad = 1;
		}
	}
	for (i = 0; i < op_count; i++) {
		for (d = 0; d < SMARTIO_NL_ARRAY_SIZE(smartio_nl_cmds); d++)
			if (smartio_nl_cmds[d].cmd == ops[i].cmd)
				break;
		if (d == SMARTIO_NL_ARRAY_SIZE(smartio_nl_cmds)) {
			fprintf(stderr, "smartio-nl-fuzz: command %u of the kernel's family is not in tools/netlink-gen.h\n",
				ops[i].cmd);
			bad = 1;
		}
	}
	if (bad)
		return EXIT_FAILED;

	for (i = 0; i < op_count; i++) {
		o = &ops[i];
		for (d = 0; d < 2; d++) {
			const struct policy *p;
			unsigned int a;

			if (!(o->flags & (d ? GENL_CMD_CAP_DUMP : GENL_CMD_CAP_DO)))
				continue;
			p = o->policy[d] < 0 ? &no_attrs : &policies[o->policy[d]];
			printf("policy: %s/%s:", cmd_name(o->cmd, name, sizeof(name)),
			       d ? "dump" : "do");
			for (a = 0; a < p->count; a++)
				printf(" %u:%s[%llu,%llu]", p->attrs[a].type,
				       kind_name(p->attrs[a].kind),
				       (unsigned long long)p->attrs[a].min_u,
				       (unsigned long long)p->attrs[a].max_u);
			printf("%s%s\n", p->count ? "" : " no attributes",
			       o->flags & GENL_ADMIN_PERM ? " (admin)" : "");
		}
	}
	return EXIT_OK;
}

/* ---- what the kernel must refuse ---- */

static const struct policy *request_policy(const struct request *r)
{
	int idx;

	if (!r->op)
		return &no_attrs;
	idx = r->op->policy[r->dump];
	return idx < 0 ? &no_attrs : &policies[idx];
}

static const struct policy_attr *policy_attr(const struct policy *p,
					     uint16_t type)
{
	unsigned int i;

	for (i = 0; i < p->count; i++)
		if (p->attrs[i].type == type)
			return &p->attrs[i];
	return NULL;
}

static unsigned int uint_width(uint32_t kind)
{
	switch (kind) {
	case NL_ATTR_TYPE_U8: return 1;
	case NL_ATTR_TYPE_U16: return 2;
	case NL_ATTR_TYPE_U32: return 4;
	case NL_ATTR_TYPE_U64: return 8;
	default: return 0;
	}
}

/*
 * Why strict validation (lib/nlattr.c, validate_nla()) must refuse an
 * attribute of TYPE (flags included) with LEN bytes of DATA under policy
 * P, or NULL when it may pass.
 */
static const char *attr_refusal(const struct policy *p, uint16_t type,
				const uint8_t *data, size_t len)
{
	const struct policy_attr *a = policy_attr(p, type & NLA_TYPE_MASK);
	unsigned int width;
	uint64_t v = 0;
	size_t i, scan;

	if (!a)
		return "an attribute the command does not take";
	if ((type & NLA_F_NESTED) && a->kind != NL_ATTR_TYPE_NESTED)
		return "NLA_F_NESTED on an attribute that is not a nest";
	width = uint_width(a->kind);
	if (width) {
		if (len != width)
			return "an integer of the wrong length";
		for (i = 0; i < width; i++)
			v |= (uint64_t)data[i] << (8 * i);
		if (v < a->min_u || v > a->max_u)
			return "a value out of the policy's range";
		return NULL;
	}
	switch (a->kind) {
	case NL_ATTR_TYPE_FLAG:
		return len ? "a flag with a payload" : NULL;
	case NL_ATTR_TYPE_NUL_STRING:
		scan = a->max_len ? (len < a->max_len + 1 ? len : a->max_len + 1) : len;
		if (!scan || !memchr(data, '\0', scan))
			return "a string without its NUL";
		if (a->max_len && len - (data[len - 1] == '\0') > a->max_len)
			return "a string longer than the policy's";
		return NULL;
	default:
		return NULL;
	}
}

/* ---- building a request ---- */

static uint8_t *put_attr(struct request *r, uint16_t type, const void *data,
			 size_t len)
{
	struct nlattr *nla = (struct nlattr *)(r->buf + r->len);
	size_t total = NLA_ALIGN(NLA_HDRLEN + len);

	if (r->len + total > sizeof(r->buf))
		return NULL;
	nla->nla_type = type;
	nla->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memset(r->buf + r->len + NLA_HDRLEN, 0, total - NLA_HDRLEN);
	if (len)
		memcpy(r->buf + r->len + NLA_HDRLEN, data, len);
	r->len += total;
	return (uint8_t *)nla;
}

/* A value next to one from the command line, past the budget. */
static uint64_t near_miss(uint64_t v, unsigned int width)
{
	if (width == 4)		/* an index no device gets */
		return (v & 0xffff0000u) | (0xff00u + fuzz_below(&rng, 256));
	return 0x7000 + fuzz_below(&rng, 0x100);	/* a node no one is */
}

/* A value of the attribute's range, from the command line mostly. */
static uint64_t valid_uint(struct request *r, const struct policy_attr *a,
			   bool allow_pool)
{
	unsigned int width = uint_width(a->kind);
	uint64_t span = a->max_u - a->min_u, v = 0;
	bool pooled = false;

	if (width == 4 && pool_fdids && fuzz_chance(&rng, 1, 3)) {
		v = pool_fdid[fuzz_below(&rng, pool_fdids)];
		pooled = true;
	} else if (width == 2 && pool_nodes && fuzz_chance(&rng, 1, 3)) {
		v = pool_node[fuzz_below(&rng, pool_nodes)];
		pooled = true;
	}
	if (pooled) {
		if (!allow_pool)
			v = near_miss(v, width);
		if (v >= a->min_u && v <= a->max_u) {
			r->pooled |= allow_pool;
			return v;
		}
	}
	switch (fuzz_below(&rng, 4)) {
	case 0:
		return a->min_u;
	case 1:
		return a->max_u;
	case 2:		/* just above the minimum: a ping of a few round trips */
		v = fuzz_below(&rng, 4);
		return v > span ? a->max_u : a->min_u + v;
	default:
		return span == ~0ULL ? fuzz_u64(&rng) :
		       a->min_u + fuzz_below(&rng, span + 1);
	}
}

/* A value of the attribute's width outside its range, if it has one. */
static bool out_of_range(const struct policy_attr *a, uint64_t *v)
{
	unsigned int width = uint_width(a->kind);
	uint64_t top = width == 8 ? ~0ULL : (1ULL << (8 * width)) - 1;

	if (a->min_u > 0 && (a->max_u >= top || fuzz_chance(&rng, 1, 2))) {
		*v = fuzz_below(&rng, a->min_u);
		return true;
	}
	if (a->max_u < top) {
		*v = a->max_u + 1 + fuzz_below(&rng, top - a->max_u);
		return true;
	}
	return false;
}

static size_t random_string(char *s, size_t max)
{
	size_t len = fuzz_below(&rng, max), i;

	for (i = 0; i < len; i++)
		s[i] = (char)(' ' + fuzz_below(&rng, 95));
	s[len] = '\0';
	return len + 1;
}

static const char *cheap_name[POOL_MAX];
static unsigned int cheap_names;

/* Is NAME one of the walk's functions (-c)? */
static bool cheap_function(const char *name)
{
	unsigned int i;

	for (i = 0; i < cheap_names; i++)
		if (!strcmp(name, cheap_name[i]))
			return true;
	return false;
}

/* A string for a string attribute of at most MAX bytes (0: no limit). */
static size_t valid_string(struct request *r, char *s, size_t size,
			   bool allow_pool)
{
	if (pool_names && fuzz_chance(&rng, 1, 3)) {
		const char *name = pool_name[fuzz_below(&rng, pool_names)];

		if (allow_pool) {
			r->pooled = true;
			snprintf(s, size, "%s", name);
		} else {	/* no such function */
			snprintf(s, size, "0000:%02x:1f.7",
				 (unsigned int)(0xf0 + fuzz_below(&rng, 16)));
		}
		return strlen(s) + 1;
	}
	if (fuzz_chance(&rng, 1, 2)) {
		snprintf(s, size, "%04x:%02x:%02x.%x",
			 fuzz_chance(&rng, 9, 10) ? 0u : (unsigned int)fuzz_below(&rng, 0x10000),
			 (unsigned int)fuzz_below(&rng, 3),
			 (unsigned int)fuzz_below(&rng, 32),
			 (unsigned int)fuzz_below(&rng, 8));
		/* The walk's functions are the walk's: it must know their fdids. */
		if (cheap_function(s))
			s[strlen(s) - 1] = '8';	/* no such function number */
		return strlen(s) + 1;
	}
	return random_string(s, size < 48 ? size : 48);
}

enum attr_kind {
	ATTR_VALID, ATTR_RANGE, ATTR_LENGTH, ATTR_UNKNOWN, ATTR_NESTED,
	ATTR_BYTEORDER, ATTR_REPEAT, ATTR_RANDOM, ATTR_TRUNCATED, ATTR_KINDS
};

static const char * const attr_kind_names[ATTR_KINDS] = {
	"valid", "out-of-range", "wrong-length", "unknown-type",
	"nested-flag", "byteorder-flag", "repeated", "random", "truncated",
};

static enum attr_kind pick_attr_kind(void)
{
	static const unsigned int weight[ATTR_KINDS] = {
		45, 8, 10, 8, 5, 5, 5, 9, 5,
	};
	unsigned int i, n = (unsigned int)fuzz_below(&rng, 100);

	for (i = 0; i < ATTR_KINDS; i++) {
		if (n < weight[i])
			return (enum attr_kind)i;
		n -= weight[i];
	}
	return ATTR_VALID;
}

static void refuse(struct request *r, const char *why)
{
	if (!r->refusal)
		r->refusal = why;
}

/*
 * Appends one attribute: of the policy's attribute A and a random kind,
 * or, A NULL, of a random one and kind. False when the request is full.
 */
static bool add_attr(struct request *r, const struct policy_attr *a,
		     bool allow_pool, size_t *last)
{
	const struct policy *p = request_policy(r);
	enum attr_kind kind = a ? ATTR_VALID : pick_attr_kind();
	
	uint8_t data[64];
	uint16_t type;
	size_t len = 0, i;
	uint64_t v = 0;

	if (!a && p->count)
		a = &p->attrs[fuzz_below(&rng, p->count)];
	if (!a && kind != ATTR_REPEAT && kind != ATTR_TRUNCATED)
		kind = fuzz_chance(&rng, 1, 2) ? ATTR_UNKNOWN : ATTR_RANDOM;
	if (kind == ATTR_REPEAT && !*last)
		kind = ATTR_RANDOM;
	if (kind == ATTR_RANGE && (!uint_width(a->kind) || !out_of_range(a, &v)))
		kind = ATTR_LENGTH;
	fuzz_count("attribute", attr_kind_names[kind]);
	type = a ? a->type : 0;

	switch (kind) {
	case ATTR_VALID:
	case ATTR_NESTED:
	case ATTR_BYTEORDER:
		if (uint_width(a->kind)) {
			len = uint_width(a->kind);
			v = valid_uint(r, a, allow_pool);
			for (i = 0; i < len; i++)
				data[i] = (uint8_t)(v >> (8 * i));
		} else if (a->kind == NL_ATTR_TYPE_NUL_STRING ||
			   a->kind == NL_ATTR_TYPE_STRING) {
			len = valid_string(r, (char *)data,
					   a->max_len && a->max_len + 1 < sizeof(data) ?
					   a->max_len + 1 : sizeof(data), allow_pool);
		} else if (a->kind != NL_ATTR_TYPE_FLAG) {
			len = fuzz_below(&rng, a->max_len && a->max_len < sizeof(data) ?
					 a->max_len + 1 : sizeof(data));
			fuzz_bytes(&rng, data, len);
		}
		if (kind == ATTR_NESTED)
			type |= NLA_F_NESTED;
		else if (kind == ATTR_BYTEORDER)
			type |= NLA_F_NET_BYTEORDER;
		break;
	case ATTR_RANGE:
		len = uint_width(a->kind);
		for (i = 0; i < len; i++)
			data[i] = (uint8_t)(v >> (8 * i));
		break;
	case ATTR_LENGTH:
		do {
			len = fuzz_below(&rng, 17);
		} while (len == uint_width(a->kind) && a->kind != NL_ATTR_TYPE_FLAG);
		fuzz_bytes(&rng, data, len);
		/* A string: none of its bytes NUL, or longer than allowed. */
		if (a->kind == NL_ATTR_TYPE_NUL_STRING || a->kind == NL_ATTR_TYPE_STRING) {
			len = a->max_len + 2 + fuzz_below(&rng, 8);
			if (len > sizeof(data))
				len = sizeof(data);
			for (i = 0; i < len; i++)
				data[i] = (uint8_t)('a' + fuzz_below(&rng, 26));
		} else if (a->kind == NL_ATTR_TYPE_FLAG && !len) {
			len = 1;
		}
		break;
	case ATTR_UNKNOWN:
		do {
			type = fuzz_chance(&rng, 1, 4) ? 0 :
			       (uint16_t)fuzz_below(&rng, fuzz_chance(&rng, 1, 2) ?
						    16 : NLA_TYPE_MASK + 1);
		} while (type && policy_attr(p, type));
		len = fuzz_below(&rng, 13);
		fuzz_bytes(&rng, data, len);
		break;
	case ATTR_REPEAT:
		len = ((struct nlattr *)(r->buf + *last))->nla_len;
		if (r->len + NLA_ALIGN(len) > sizeof(r->buf))
			return false;
		memmove(r->buf + r->len, r->buf + *last, len);
		memset(r->buf + r->len + len, 0, NLA_ALIGN(len) - len);
		*last = r->len;
		r->len += NLA_ALIGN(len);
		return true;	/* the first copy's verdict stands */
	case ATTR_RANDOM:
		type = (uint16_t)fuzz_u64(&rng);
		if (fuzz_chance(&rng, 1, 2))
			type = (type & (NLA_F_NESTED | NLA_F_NET_BYTEORDER)) |
			       (uint16_t)fuzz_below(&rng, 16);
		len = fuzz_below(&rng, sizeof(data));
		fuzz_bytes(&rng, data, len);
		if ((type & NLA_F_NESTED) && len >= NLA_HDRLEN) {
			/* Something like a nest: attributes in it, the last cut. */
			for (i = 0; i + NLA_HDRLEN <= len; i += NLA_HDRLEN + 4) {
				data[i] = (uint8_t)(NLA_HDRLEN + fuzz_below(&rng, 9));
				data[i + 1] = 0;
			}
		}
		break;
	case ATTR_TRUNCATED:
		/* Its length runs past the message's end: the last one. */
		type = a ? a->type : (uint16_t)fuzz_below(&rng, 16);
		len = fuzz_below(&rng, 9);
		fuzz_bytes(&rng, data, len);
		if (!put_attr(r, type, data, len))
			return false;
		((struct nlattr *)(r->buf + r->len - NLA_ALIGN(NLA_HDRLEN + len)))->nla_len =
			(uint16_t)(NLA_HDRLEN + len + 4 + fuzz_below(&rng, 64));
		refuse(r, "a truncated attribute");
		return false;
	default:
		break;
	}
	*last = r->len;
	if (!put_attr(r, type, data, len))
		return false;
	refuse(r, attr_refusal(p, type, data, len));
	return true;
}

/*
 * nlmsg flags genl_header_check() refuses, but for NLM_F_ROOT and
 * NLM_F_MATCH together (NLM_F_DUMP); some have no name yet.
 */
static const uint16_t reserved_flags[] = {
	NLM_F_MULTI, NLM_F_DUMP_INTR, NLM_F_DUMP_FILTERED, NLM_F_ROOT,
	NLM_F_MATCH, NLM_F_ATOMIC, NLM_F_APPEND, 0x1000, 0x8000,
};

/* genl_header_check(): what it takes beside a whole NLM_F_DUMP. */
static bool flags_allowed(uint16_t flags)
{
	if ((flags & NLM_F_DUMP) == NLM_F_DUMP)
		flags &= ~NLM_F_DUMP;
	return !(flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO));
}

/* A random request; ALLOW_POOL: values from the command line may go in. */
static void build_request(struct request *r, struct nl *nl, bool allow_pool)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *genl;
	size_t last = 0;
	unsigned int n, i;
	bool can_do, can_dump;

	memset(r, 0, offsetof(struct request, buf) + NLMSG_HDRLEN + GENL_HDRLEN);
	if (fuzz_chance(&rng, 9, 10)) {
		r->op = &ops[fuzz_below(&rng, op_count)];
		r->cmd = r->op->cmd;
	} else {
		do {
			r->cmd = fuzz_chance(&rng, 1, 2) ?
				 (uint8_t)fuzz_below(&rng, SMARTIO_CMD_MAX + 3) :
				 (uint8_t)fuzz_u64(&rng);
		} while (find_op(r->cmd));
		r->op = NULL;
		refuse(r, "a command the family does not have");
	}
	can_do = r->op && (r->op->flags & GENL_CMD_CAP_DO);
	can_dump = r->op && (r->op->flags & GENL_CMD_CAP_DUMP);
	if (can_do == can_dump)	/* both, or not a command of the family */
		r->dump = fuzz_chance(&rng, 1, 2);
	else
		r->dump = fuzz_chance(&rng, 1, 8) ? can_do : can_dump;
	if (r->op && !(r->op->flags & (r->dump ? GENL_CMD_CAP_DUMP : GENL_CMD_CAP_DO)))
		refuse(r, r->dump ? "a dump of a command without one" :
		       "a do of a command without one");

	nlh = (struct nlmsghdr *)r->buf;
	nlh->nlmsg_type = nl->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (r->dump ? NLM_F_DUMP : 0);
	nlh->nlmsg_seq = ++nl->seq;
	genl = (struct genlmsghdr *)(r->buf + NLMSG_HDRLEN);
	genl->cmd = r->cmd;
	genl->version = SMARTIO_FAMILY_VERSION;
	r->len = NLMSG_HDRLEN + GENL_HDRLEN;

	/* Well formed: a plain header, and the command's attributes, valid. */
	if (fuzz_chance(&rng, 2, 5)) {
		const struct policy *p = request_policy(r);

		fuzz_count("header", "well-formed");
		for (i = 0; i < p->count; i++)
			if (fuzz_chance(&rng, 3, 4) &&
			    !add_attr(r, &p->attrs[i], allow_pool, &last))
				break;
		nlh->nlmsg_len = (uint32_t)r->len;
		return;
	}

	switch (fuzz_below(&rng, 50)) {
	case 0:
		fuzz_count("header", "reserved-flag");
		nlh->nlmsg_flags |= reserved_flags[fuzz_below(&rng,
			SMARTIO_NL_ARRAY_SIZE(reserved_flags))];
		if (!flags_allowed(nlh->nlmsg_flags))
			refuse(r, "a reserved nlmsg flag");
		break;
	case 1:
		fuzz_count("header", "reserved-byte");
		genl->reserved = (uint16_t)(1 + fuzz_below(&rng, 0xffff));
		refuse(r, "a reserved genetlink byte");
		break;
	case 2:
		fuzz_count("header", "version");
		genl->version = (uint8_t)fuzz_u64(&rng);
		break;
	case 3:
		fuzz_count("header", "echo");
		nlh->nlmsg_flags |= NLM_F_ECHO;
		break;
	case 4:
		fuzz_count("header", "no-request");
		nlh->nlmsg_flags &= ~NLM_F_REQUEST;
		r->no_request = true;
		break;
	case 5:
		fuzz_count("header", "short");
		r->len = NLMSG_HDRLEN + fuzz_below(&rng, GENL_HDRLEN);
		refuse(r, "a message shorter than its genetlink header");
		nlh->nlmsg_len = (uint32_t)r->len;
		return;
	default:
		fuzz_count("header", "plain");
		break;
	}

	n = (unsigned int)fuzz_below(&rng, ATTRS_MAX + 1);
	for (i = 0; i < n; i++)
		if (!add_attr(r, NULL, allow_pool, &last))
			break;
	nlh->nlmsg_len = (uint32_t)r->len;
}

/* ---- sending and the answer ---- */

static time_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* A device reply's fdid (SMARTIO_A_DEVICE_FDID), 0 if it has none. */
static uint32_t reply_fdid(const struct nlmsghdr *nlh)
{
	const struct nlattr *a;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return 0;
	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == SMARTIO_A_DEVICE_FDID &&
		    mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			return mnl_attr_get_u32(a);
	return 0;
}

/* answer(): no answer at all, or none whole in time. */
#define ANSWER_NONE	1
#define ANSWER_LATE	2

/*
 * Waits for the end of request SEQ's answer: its error (0 or -errno), or
 * ANSWER_NONE when nothing was queued for it by the time send() returned
 * (a do runs in send(), and a dump's first part too: every answer starts
 * there), or ANSWER_LATE after ANSWER_TIMEOUT seconds (SO_RCVTIMEO would
 * start again on each SIGALRM).
 */
static int answer(struct nl *nl, uint32_t seq, uint32_t *fdid)
{
	static uint8_t buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	time_t deadline = now() + ANSWER_TIMEOUT;
	const struct nlmsghdr *nlh;
	int len, flags = MSG_DONTWAIT;
	ssize_t n;

	for (;;) {
		n = recv(mnl_socket_get_fd(nl->sock), buf, sizeof(buf), flags);
		if (n < 0) {
			if (errno == EAGAIN && flags)
				return ANSWER_NONE;
			if (errno == EINTR && now() < deadline)
				continue;
			if (errno == ENOBUFS) {	/* a reply dropped, not ours */
				fuzz_count("socket", "ENOBUFS");
				continue;
			}
			return errno == EINTR || errno == EAGAIN ? ANSWER_LATE : -errno;
		}
		flags = 0;
		len = (int)n;
		for (nlh = (struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (fdid && nlh->nlmsg_type == nl->family)
				*fdid = reply_fdid(nlh);
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return ((const struct nlmsgerr *)mnl_nlmsg_get_payload(nlh))->error;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int) ?
				       *(const int *)mnl_nlmsg_get_payload(nlh) : 0;
		}
	}
}

static void show_request(const struct request *r, const char *what)
{
	size_t i;

	printf("%s:", what);
	for (i = 0; i < r->len; i++)
		printf("%s%02x", i % 4 ? "" : " ", r->buf[i]);
	printf("\n");
}

/* -l FILE: the request about to be sent, where a test can read it. */
static uint32_t *last_request;

static bool map_last_request(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	void *p;

	if (fd < 0 || ftruncate(fd, 8 + REQ_MAX))
		return false;
	p = mmap(NULL, 8 + REQ_MAX, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	last_request = p == MAP_FAILED ? NULL : p;
	return last_request;
}

/* SIGALRMs so far: one during send() may have interrupted the request. */
static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* ---- the state walk (-c) and the second process (-k) ---- */

/* Shared with the second process (an anonymous shared mapping). */
struct walk_shared {
	uint32_t fdid[POOL_MAX];	/* of the walk's functions, 0: none */
	volatile sig_atomic_t done;	/* the first process is done */
	unsigned long changes;		/* the second process's */
	unsigned long sent;
	unsigned long unanswered;
};

static struct walk_shared *walk;

/* This node's id, from the fdid of the walk's first add answered. */
static uint16_t walk_node;

/* Is CMD one that changes a device's state when answered 0? */
static bool state_cmd(uint8_t cmd)
{
	switch (cmd) {
	case SMARTIO_CMD_DEVICE_ADD:
	case SMARTIO_CMD_DEVICE_REMOVE:
	case SMARTIO_CMD_DEVICE_AVAILABLE:
	case SMARTIO_CMD_DEVICE_UNAVAILABLE:
	case SMARTIO_CMD_DEVICE_BORROW:
	case SMARTIO_CMD_DEVICE_RETURN:
	case SMARTIO_CMD_DEVICE_RECLAIM:
		return true;
	default:
		return false;
	}
}

/* A well formed do of CMD, naming FDID, or NAME (a device-add). */
static void build_device_do(struct request *r, struct nl *nl, uint8_t cmd,
			    uint32_t fdid, const char *name, bool force)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)r->buf;
	struct genlmsghdr *genl = (struct genlmsghdr *)(r->buf + NLMSG_HDRLEN);

	memset(r, 0, offsetof(struct request, buf) + NLMSG_HDRLEN + GENL_HDRLEN);
	r->op = find_op(cmd);
	r->cmd = cmd;
	nlh->nlmsg_type = nl->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++nl->seq;
	genl->cmd = cmd;
	genl->version = SMARTIO_FAMILY_VERSION;
	r->len = NLMSG_HDRLEN + GENL_HDRLEN;
	if (name) {
		put_attr(r, SMARTIO_A_DEVICE_PCI_NAME, name, strlen(name) + 1);
	} else {
		put_attr(r, SMARTIO_A_DEVICE_FDID, &fdid, sizeof(fdid));
		if (force)
			put_attr(r, SMARTIO_A_DEVICE_FORCE, NULL, 0);
	}
	nlh->nlmsg_len = (uint32_t)r->len;
}

/* Sends R; its answer (answer()), the fdid of a device reply to *FDID. */
static int send_request(struct nl *nl, struct request *r, uint32_t *fdid)
{
	while (send(mnl_socket_get_fd(nl->sock), r->buf, r->len, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return answer(nl, ((struct nlmsghdr *)r->buf)->nlmsg_seq, fdid);
}

/*
 * One step of the walk: an add of a function the walk holds no fdid of,
 * else an add again, an available, an unavailable or a remove of it.
 * Returns the fdid it names (0 for an add).
 */
static uint32_t walk_step(struct request *r, struct nl *nl, unsigned int *i)
{
	static const uint8_t cmds[] = {
		SMARTIO_CMD_DEVICE_ADD, SMARTIO_CMD_DEVICE_AVAILABLE,
		SMARTIO_CMD_DEVICE_UNAVAILABLE, SMARTIO_CMD_DEVICE_REMOVE,
	};
	uint8_t cmd;

	*i = (unsigned int)fuzz_below(&rng, cheap_names);
	cmd = !walk->fdid[*i] ? SMARTIO_CMD_DEVICE_ADD :
	      cmds[fuzz_below(&rng, SMARTIO_NL_ARRAY_SIZE(cmds))];
	build_device_do(r, nl, cmd, walk->fdid[*i],
			cmd == SMARTIO_CMD_DEVICE_ADD ? cheap_name[*i] : NULL,
			fuzz_chance(&rng, 1, 4));
	return cmd == SMARTIO_CMD_DEVICE_ADD ? 0 : walk->fdid[*i];
}

/* What walk_adopt() looks for in a dump of the devices, and finds. */
struct walk_lookup {
	const char *name;
	uint16_t node;
	uint32_t fdid;
};

static int walk_lookup_cb(const struct nlmsghdr *nlh, void *data)
{
	struct walk_lookup *l = data;
	const char *name = NULL;
	const struct nlattr *a;
	uint32_t fdid = 0;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		if (mnl_attr_get_type(a) == SMARTIO_A_DEVICE_FDID &&
		    !mnl_attr_validate(a, MNL_TYPE_U32))
			fdid = mnl_attr_get_u32(a);
		else if (mnl_attr_get_type(a) == SMARTIO_A_DEVICE_PCI_NAME &&
			 !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			name = mnl_attr_get_str(a);
	}
	if (name && !strcmp(name, l->name) &&
	    smartio_fdid_node(fdid) == l->node)
		l->fdid = fdid;
	return MNL_CB_OK;
}

/*
 * The walk's add of function I was refused as registered already: the
 * walk lost track of its fdid (the kernel reuses fdids, so a request of
 * the second process naming a stale one may have removed another of the
 * walk's functions). Adopts the fdid this node lists for it, so that the
 * walk goes on changing state instead of adding in vain.
 */
static void walk_adopt(struct nl *nl, unsigned int i)
{
	static char buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct walk_lookup l = { .name = cheap_name[i], .node = walk_node };
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	uint32_t seq = ++nl->seq;
	ssize_t n;
	int ret = MNL_CB_OK;

	if (!walk_node)		/* no add answered yet: this node's id is unknown */
		return;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = nl->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = SMARTIO_CMD_DEVICE_GET;
	genl->version = SMARTIO_FAMILY_VERSION;
	while (send(mnl_socket_get_fd(nl->sock), nlh, nlh->nlmsg_len, 0) < 0)
		if (errno != EINTR)
			return;
	do {
		n = recv(mnl_socket_get_fd(nl->sock), buf, sizeof(buf), 0);
		if (n < 0 && (errno == EINTR || errno == ENOBUFS))
			continue;
		if (n < 0)
			return;
		ret = mnl_cb_run(buf, (size_t)n, seq, nl->portid,
				 walk_lookup_cb, &l);
	} while (ret > 0 || (ret < 0 && errno == ESRCH));
	if (l.fdid) {
		walk->fdid[i] = l.fdid;
		fuzz_count("walk", "adopted");
	}
}

/*
 * The second process: returns, reclaims, unavailables and removals of the
 * walk's fdids until the first process is done. Exit status 1 if one was
 * not answered.
 */
static int second_process(uint64_t seed)
{
	static const uint8_t cmds[] = {
		SMARTIO_CMD_DEVICE_RETURN, SMARTIO_CMD_DEVICE_RECLAIM,
		SMARTIO_CMD_DEVICE_UNAVAILABLE, SMARTIO_CMD_DEVICE_REMOVE,
	};
	static struct request req;
	struct fuzz_rng rng2;
	struct nl nl;
	unsigned int i;
	uint32_t fdid;
	int ret;

	fuzz_seed(&rng2, seed ^ 0x5ec0d);
	if (nl_open(&nl, "smartio family"))
		return EXIT_FAILED;
	while (!walk->done) {
		i = (unsigned int)fuzz_below(&rng2, cheap_names);
		fdid = walk->fdid[i];
		if (!fdid) {
			usleep(1000);
			continue;
		}
		build_device_do(&req, &nl, cmds[fuzz_below(&rng2, SMARTIO_NL_ARRAY_SIZE(cmds))],
				fdid, NULL, false);
		ret = send_request(&nl, &req, NULL);
		walk->sent++;
		if (ret == ANSWER_NONE || ret == ANSWER_LATE) {
			walk->unanswered++;
			break;
		}
		if (ret)
			continue;
		walk->changes++;
		if (req.cmd == SMARTIO_CMD_DEVICE_REMOVE)
			__sync_bool_compare_and_swap(&walk->fdid[i], fdid, 0);
	}
	nl_close(&nl);
	return walk->unanswered ? EXIT_FAILED : EXIT_OK;
}

static int usage(void)
{
	fprintf(stderr, "usage: smartio-nl-fuzz [-u] [-k] [-s SEED] [-n COUNT] [-b BUDGET] [-i MS]\n"
			"                       [-l FILE] [-f FDID]... [-N NODE]... [-p PCI_NAME]...\n"
			"                       [-c PCI_NAME]...\n");
	return EXIT_USAGE;
}

static bool add_pool(int c, const char *arg)
{
	uint64_t v;

	if (c == 'c') {
		if (cheap_names == POOL_MAX)
			return false;
		cheap_name[cheap_names++] = arg;
		return true;
	}
	if (c == 'p') {
		if (pool_names == POOL_MAX)
			return false;
		pool_name[pool_names++] = arg;
		return true;
	}
	if (!fuzz_parse_u64(arg, &v))
		return false;
	if (c == 'f' && pool_fdids < POOL_MAX && v <= 0xffffffffULL)
		pool_fdid[pool_fdids++] = (uint32_t)v;
	else if (c == 'N' && pool_nodes < POOL_MAX && v <= 0xffff)
		pool_node[pool_nodes++] = (uint16_t)v;
	else
		return false;
	return true;
}

int main(int argc, char **argv)
{
	static struct request req;
	uint64_t seed = 1, count = 100000, budget = 16, interval = 5, v;
	unsigned long sent = 0, refused = 0, violations = 0, unanswered = 0;
	unsigned long used = 0, changes = 0, walked = 0, walk_changes = 0;
	bool second = false, walking;
	pid_t child = -1;
	unsigned int wi = 0;
	uint32_t fdid, walk_named = 0;
	int status;
	struct sigaction sa = { .sa_handler = on_alarm };
	struct timeval timeout = { .tv_sec = ANSWER_TIMEOUT };
	struct itimerval timer = { 0 };
	char what[48], name[16], ename[32];
	bool admin_refused, tolerate_unanswered = false;
	sig_atomic_t before;
	struct nl nl;
	int c, ret;

	while ((c = getopt(argc, argv, "s:n:b:i:l:ukf:N:p:c:")) != -1) {
		switch (c) {
		case 'k':
			second = true;
			break;
		case 'u':
			tolerate_unanswered = true;
			break;
		case 'l':
			if (!map_last_request(optarg)) {
				perror(optarg);
				return EXIT_FAILED;
			}
			break;
		case 's':
		case 'n':
		case 'b':
		case 'i':
			if (!fuzz_parse_u64(optarg, &v))
				return usage();
			*(c == 's' ? &seed : c == 'n' ? &count :
			  c == 'b' ? &budget : &interval) = v;
			break;
		case 'f':
		case 'N':
		case 'p':
		case 'c':
			if (!add_pool(c, optarg))
				return usage();
			break;
		default:
			return usage();
		}
	}
	if (optind != argc || (second && !cheap_names))
		return usage();
	walk = mmap(NULL, sizeof(*walk), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (walk == MAP_FAILED) {
		perror("mmap");
		return EXIT_FAILED;
	}
	memset(walk, 0, sizeof(*walk));

	ret = nl_open(&nl, "smartio family");
	if (ret)
		return ret;
	setsockopt(mnl_socket_get_fd(nl.sock), SOL_SOCKET, SO_RCVTIMEO,
		   &timeout, sizeof(timeout));
	ret = learn_family(&nl);
	if (ret)
		goto out;
	/* As the kernel sees it: a process without it gets EPERM. */
	admin_refused = geteuid() != 0;
	printf("smartio-nl-fuzz: seed %llu (-s %llu repeats it), %llu requests as uid %u, budget %llu\n",
	       (unsigned long long)seed, (unsigned long long)seed,
	       (unsigned long long)count, (unsigned int)geteuid(),
	       (unsigned long long)budget);
	fflush(stdout);
	fuzz_seed(&rng, seed);
	if (second) {
		fflush(stdout);
		child = fork();
		if (child < 0) {
			perror("fork");
			ret = EXIT_FAILED;
			goto out;
		}
		if (!child)
			_exit(second_process(seed));
	}

	sigaction(SIGALRM, &sa, NULL);
	if (interval) {
		timer.it_interval.tv_usec = (suseconds_t)(interval * 1000 % 1000000);
		timer.it_interval.tv_sec = (time_t)(interval / 1000);
		timer.it_value = timer.it_interval;
		setitimer(ITIMER_REAL, &timer, NULL);
	}

	for (sent = 0; sent < count; sent++) {
		bool mutating;

		walking = cheap_names && !admin_refused && fuzz_chance(&rng, 1, 2);
		if (walking) {
			walk_named = walk_step(&req, &nl, &wi);
			walked++;
		} else {
			/* The budget spread over the run, not spent at its start. */
			build_request(&req, &nl, used < budget &&
				      fuzz_below(&rng, count) < budget * 16);
		}
		mutating = req.op && (req.op->flags & GENL_ADMIN_PERM) && !req.dump;
		if (mutating && admin_refused)
			refuse(&req, "a mutating command without CAP_NET_ADMIN");
		if (req.pooled && mutating && !req.refusal && !req.no_request)
			used++;
		if (last_request) {
			last_request[0] = (uint32_t)sent;
			last_request[1] = (uint32_t)req.len;
			memcpy(last_request + 2, req.buf, req.len);
		}
		before = alarms;
		while (send(mnl_socket_get_fd(nl.sock), req.buf, req.len, 0) < 0) {
			if (errno != EINTR) {
				fprintf(stderr, "smartio-nl-fuzz: send: %s\n",
					strerror(errno));
				ret = EXIT_FAILED;
				goto out;
			}
		}
		fdid = 0;
		ret = answer(&nl, ((struct nlmsghdr *)req.buf)->nlmsg_seq, &fdid);
		snprintf(what, sizeof(what), "%s/%s%s",
			 cmd_name(req.cmd, name, sizeof(name)),
			 req.dump ? "dump" : "do", req.no_request ? "/ignored" : "");
		if (ret == ANSWER_NONE && alarms != before && tolerate_unanswered) {
			fuzz_count(what, "unanswered-interrupted");
			continue;
		}
		if (ret == ANSWER_NONE || ret == ANSWER_LATE) {
			unanswered++;
			printf("unanswered: %s: %s%s\n", what,
			       ret == ANSWER_NONE ? "no answer" : "no end of the answer in time",
			       alarms != before ? " (interrupted by SIGALRM)" : "");
			show_request(&req, "request");
			break;
		}
		fuzz_count(what, ret ? errno_name(-ret, ename, sizeof(ename)) : "ok");
		if (!ret && !req.no_request && mutating && state_cmd(req.cmd)) {
			changes++;
			walk_changes += walking;
		}
		if (walking && !ret) {
			if (req.cmd == SMARTIO_CMD_DEVICE_ADD && fdid) {
				walk->fdid[wi] = fdid;
				walk_node = smartio_fdid_node(fdid);
			} else if (req.cmd == SMARTIO_CMD_DEVICE_REMOVE) {
				walk->fdid[wi] = 0;
			}
		} else if (walking && ret == -EEXIST &&
			   req.cmd == SMARTIO_CMD_DEVICE_ADD) {
			walk_adopt(&nl, wi);
		} else if (walking && ret == -ENOENT && walk_named) {
			/* Removed by a request naming it stale: add it anew. */
			__sync_bool_compare_and_swap(&walk->fdid[wi], walk_named, 0);
		}
		if (walking)
			fuzz_count("walk", ret ? errno_name(-ret, ename, sizeof(ename)) : "ok");
		if (req.pooled && mutating)
			fuzz_count("budgeted", ret ? errno_name(-ret, ename, sizeof(ename)) : "ok");
		if (req.no_request ? !ret : !req.refusal) {
			continue;
		} else if (!req.no_request && ret) {
			refused++;
			continue;
		}
		if (violations++ < VIOLATIONS_SHOWN) {
			printf("violation: %s: %s, answered %d\n", what,
			       req.no_request ? "a message without NLM_F_REQUEST was not ignored" :
			       req.refusal, ret);
			show_request(&req, "request");
		}
	}
	timer.it_value.tv_sec = 0;
	timer.it_value.tv_usec = 0;
	setitimer(ITIMER_REAL, &timer, NULL);

	if (child > 0) {
		walk->done = 1;
		if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			printf("unanswered: the second process: %lu of its requests unanswered, status %#x\n",
			       walk->unanswered, status);
			unanswered++;
		}
	}
	fuzz_tally_print(stdout);
	printf("smartio-nl-fuzz: seed %llu: state changes %lu (%lu by the walk of %lu steps, %lu by the second process of %lu requests)\n",
	       (unsigned long long)seed, changes + walk->changes, walk_changes,
	       walked, walk->changes, walk->sent);
	printf("smartio-nl-fuzz: seed %llu: %lu requests sent, %lu unanswered, %lu refused as they must be, %lu violations, %lu of %llu budgeted\n",
	       (unsigned long long)seed, sent, unanswered, refused, violations,
	       used, (unsigned long long)budget);
	ret = violations || unanswered ? EXIT_FAILED : EXIT_OK;
out:
	if (walk)
		walk->done = 1;
	nl_close(&nl);
	return ret;
}
