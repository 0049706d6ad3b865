/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smartioctl's generic netlink plumbing (nl.c), shared by every object:
 * the socket and family lookup, do and dump requests, error reporting,
 * and attributes validated, read and printed as JSON through the tables
 * netlink-gen.h generates from netlink/smartio.yaml.
 */
#ifndef SMARTIOCTL_NL_H
#define SMARTIOCTL_NL_H

#include <stdint.h>
#include <libmnl/libmnl.h>

#include "netlink-gen.h"
#include "smartioctl.h"

/* Highest attribute type of any attribute set we parse. */
#define NL_MAX_ATTR 31

/*
 * One message's (or nest's) attributes, validated against an attribute
 * set: TB holds the first attribute of each type, PAYLOAD all of them for
 * multi-attributes.
 */
struct nl_obj {
	uint8_t cmd;			/* the message's command; 0 in a nest */
	const struct smartio_nl_attr *set;
	unsigned int max;
	const void *payload;
	size_t len;
	const struct nlattr *tb[NL_MAX_ATTR + 1];
	const char *bad;		/* the attribute a parse failed on */
};

/*
 * An attribute set of netlink-gen.h as the two arguments (table, highest
 * type) that the functions below take: deliberately no parentheses.
 */
#define NL_SET(tab) (tab), (unsigned int)(SMARTIO_NL_ARRAY_SIZE(tab) - 1)

struct nl {
	struct mnl_socket *sock;
	uint16_t family;
	uint32_t monitor_group;
	uint32_t portid;
	uint32_t seq;
	char what[64];			/* the command, for error messages */
};

/* Called per message; returns MNL_CB_OK, or MNL_CB_STOP to stop early. */
typedef int (*nl_msg_fn)(const struct nl_obj *msg, void *arg);
/* Prints one listed object as text. */
typedef void (*nl_print_fn)(const struct nl_obj *obj);
/* Writes one object as JSON (nl_json writes every attribute as it is). */
typedef void (*nl_json_fn)(FILE *out, const struct nl_obj *obj);

/*
 * Opens the socket and finds the family; FMT names the command in error
 * messages ("adapter set 0"). Returns an exit code, having said what went
 * wrong (EXIT_NO_MODULE when the family does not exist).
 */
int nl_open(struct nl *nl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void nl_close(struct nl *nl);

/* A request for CMD, with NLM_F_DUMP or NLM_F_ACK in FLAGS. */
struct nlmsghdr *nl_request(struct nl *nl, uint8_t cmd, uint16_t flags);

/* Sends REQ, calls FN per reply; returns an exit code, errors reported. */
int nl_run(struct nl *nl, struct nlmsghdr *req,
	   const struct smartio_nl_attr *set, unsigned int max,
	   nl_msg_fn fn, void *arg);

/* As nl_run, printing each reply with PRINT, or as a JSON array for -j. */
int nl_list(struct nl *nl, struct nlmsghdr *req,
	    const struct smartio_nl_attr *set, unsigned int max,
	    nl_print_fn print);

/* As nl_list, each element of the JSON array written by JSON. */
int nl_list_as(struct nl *nl, struct nlmsghdr *req,
	       const struct smartio_nl_attr *set, unsigned int max,
	       nl_print_fn print, nl_json_fn json);

/*
 * The whole of a list command WHAT, which takes no arguments (ARGC, ARGV:
 * those after it): check that, open, dump CMD, list, close.
 */
int nl_dump(const char *what, int argc, char **argv, uint8_t cmd,
	    const struct smartio_nl_attr *set, unsigned int max,
	    nl_print_fn print);

/* Joins the monitor group and calls FN per event until it stops. */
int nl_monitor(struct nl *nl, const struct smartio_nl_attr *set,
	       unsigned int max, nl_msg_fn fn, void *arg);

/* Attribute values: 0 and "-" when absent, enum values by name. */
unsigned long long nl_uint(const struct nl_obj *obj, unsigned int type);
const char *nl_str(const struct nl_obj *obj, unsigned int type);

/* Calls FN for each nest of multi-attribute TYPE. */
void nl_foreach(const struct nl_obj *obj, unsigned int type,
		void (*fn)(const struct nl_obj *nest, void *arg), void *arg);

/* JSON: the object, or only its members (keys are attribute names). */
void nl_json(FILE *out, const struct nl_obj *obj);
void nl_json_members(FILE *out, const struct nl_obj *obj, bool *first);

#endif /* SMARTIOCTL_NL_H */
