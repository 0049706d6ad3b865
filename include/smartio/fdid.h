/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fabric device ids (fdid).
 *
 * An fdid names a lendable PCIe function cluster-wide, e.g. "80000" or
 * "80002" as printed by "smartio_tool list".  Layout of the u32:
 *
 *	bits 31..16	node id of the lender (0 is reserved: "no node")
 *	bits 15..0	the lender's local device index
 *
 * An fdid whose node id is 0 is invalid.
 */
#ifndef _SMARTIO_FDID_H
#define _SMARTIO_FDID_H

#include <smartio/compat.h>

/* Buffer size for a formatted fdid: up to 8 hex digits plus the NUL. */
#define SMARTIO_FDID_STR_MAX	9

#define SMARTIO_FDID_NODE_SHIFT	16
#define SMARTIO_FDID_INDEX_MASK	0xffffU

/**
 * smartio_fdid_make() - Build an fdid from its parts.
 * @node: Node id of the lender (0 yields an invalid fdid).
 * @index: The lender's local device index.
 *
 * Return: The fdid.
 */
static inline u32 smartio_fdid_make(u16 node, u16 index)
{
	return ((u32)node << SMARTIO_FDID_NODE_SHIFT) | index;
}

/**
 * smartio_fdid_node() - Node id part of an fdid.
 * @fdid: Fabric device id.
 *
 * Return: The lender's node id (bits 31..16).
 */
static inline u16 smartio_fdid_node(u32 fdid)
{
	return (u16)(fdid >> SMARTIO_FDID_NODE_SHIFT);
}

/**
 * smartio_fdid_index() - Device index part of an fdid.
 * @fdid: Fabric device id.
 *
 * Return: The lender's local device index (bits 15..0).
 */
static inline u16 smartio_fdid_index(u32 fdid)
{
	return (u16)(fdid & SMARTIO_FDID_INDEX_MASK);
}

/**
 * smartio_fdid_valid() - Check whether an fdid names a device.
 * @fdid: Fabric device id.
 *
 * Return: true unless the node id is the reserved value 0.
 */
static inline bool smartio_fdid_valid(u32 fdid)
{
	return smartio_fdid_node(fdid) != 0;
}

int smartio_fdid_parse(const char *s, u32 *fdid);
int smartio_fdid_format(u32 fdid, char *buf, size_t len);

#endif /* _SMARTIO_FDID_H */
