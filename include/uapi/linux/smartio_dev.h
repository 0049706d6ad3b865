/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The smartio character device, /dev/smartio: memory segments for
 * userspace.
 *
 * A segment is a linear range of memory with a cluster-unique id, (node
 * id, segment id). A node creates a local segment (DMA-able memory behind
 * one of its adapters) and exports it to one peer node or to all; another
 * node connects to it through the same fabric and maps it. Segments live
 * in the kernel until removed (or until smartio_ntb unloads): a process
 * that exits loses no data written to one.
 *
 * An open file is bound to at most one segment, by SMARTIO_IOC_SEGMENT_
 * ATTACH (a local segment) or SMARTIO_IOC_SEGMENT_CONNECT (a remote one);
 * mmap() of the file then maps the segment, offset 0 being its start. A
 * remote segment is reached through the NTB's windows: CPU stores and
 * loads go over the fabric, with no software in between; it is mapped
 * MAP_SHARED only (EINVAL otherwise, as is a lost one, ENOTCONN). When the node
 * that owns a connected segment leaves, or removes it by force, the
 * mapping is torn down: later accesses raise SIGBUS.
 *
 * Every ioctl that changes something needs CAP_SYS_ADMIN (EPERM without);
 * SMARTIO_IOC_SEGMENT_INFO does not.
 */
#ifndef _UAPI_LINUX_SMARTIO_DEV_H
#define _UAPI_LINUX_SMARTIO_DEV_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SMARTIO_DEV_PATH	"/dev/smartio"

/* Export to every node reachable through the segment's adapter. */
#define SMARTIO_NODE_ALL	0xffff

/**
 * struct smartio_segment_create - SMARTIO_IOC_SEGMENT_CREATE argument.
 * @segment_id: Id of the new segment, unique on this node (1 or more).
 * @adapter: Adapter whose NTB the segment is DMA memory of.
 * @size: Bytes, a multiple of the page size.
 */
struct smartio_segment_create {
	__u32 segment_id;
	__u32 adapter;
	__u64 size;
};

/**
 * struct smartio_segment_export - SMARTIO_IOC_SEGMENT_EXPORT argument.
 * @segment_id: A local segment.
 * @node_id: Node allowed to connect, or SMARTIO_NODE_ALL.
 * @reserved: Must be 0.
 */
struct smartio_segment_export {
	__u32 segment_id;
	__u16 node_id;
	__u16 reserved;
};

/**
 * struct smartio_segment_info - SMARTIO_IOC_SEGMENT_ATTACH, _CONNECT and
 * _INFO argument.
 * @node_id: Owner of the segment: in for CONNECT, out otherwise (this
 *	node's id on the segment's adapter for a local one).
 * @reserved: Must be 0.
 * @segment_id: In for ATTACH and CONNECT; out for INFO.
 * @size: Out: the segment's size in bytes.
 * @flags: Out: SMARTIO_SEGMENT_* flags.
 * @reserved2: Must be 0.
 */
struct smartio_segment_info {
	__u16 node_id;
	__u16 reserved;
	__u32 segment_id;
	__u64 size;
	__u32 flags;
	__u32 reserved2;
};

/**
 * struct smartio_segment_remove - SMARTIO_IOC_SEGMENT_REMOVE_FLAGS argument.
 * @segment_id: A local segment.
 * @flags: SMARTIO_SEGMENT_REMOVE_* flags; others must be 0.
 */
struct smartio_segment_remove {
	__u32 segment_id;
	__u32 flags;
};

/*
 * Remove the segment even while other nodes are connected to it: each is
 * told first (its mappings are torn down, and accesses raise SIGBUS),
 * then the grant goes; the memory is freed once no local file is
 * attached to it.
 */
#define SMARTIO_SEGMENT_REMOVE_FORCE	(1U << 0)

/* Flags of struct smartio_segment_info. */
#define SMARTIO_SEGMENT_REMOTE	(1U << 0)	/* owned by another node */
#define SMARTIO_SEGMENT_LOST	(1U << 1)	/* its owner left */
#define SMARTIO_SEGMENT_EXPORTED (1U << 2)	/* local, and exported */

#define SMARTIO_IOC_MAGIC	0xb7

/* Create a local segment (zeroed). */
#define SMARTIO_IOC_SEGMENT_CREATE \
	_IOW(SMARTIO_IOC_MAGIC, 1, struct smartio_segment_create)
/*
 * Remove a local segment: EBUSY while attached to (by a file of this
 * node) or connected to (by another node).
 */
#define SMARTIO_IOC_SEGMENT_REMOVE	_IOW(SMARTIO_IOC_MAGIC, 2, __u32)
/* Let a node (or all) connect to a local segment. */
#define SMARTIO_IOC_SEGMENT_EXPORT \
	_IOW(SMARTIO_IOC_MAGIC, 3, struct smartio_segment_export)
/* Bind this file to a local segment. */
#define SMARTIO_IOC_SEGMENT_ATTACH \
	_IOWR(SMARTIO_IOC_MAGIC, 4, struct smartio_segment_info)
/* Bind this file to a remote segment: map it through a window. */
#define SMARTIO_IOC_SEGMENT_CONNECT \
	_IOWR(SMARTIO_IOC_MAGIC, 5, struct smartio_segment_info)
/* The segment this file is bound to (ENOENT if none). */
#define SMARTIO_IOC_SEGMENT_INFO \
	_IOR(SMARTIO_IOC_MAGIC, 6, struct smartio_segment_info)
/* SMARTIO_IOC_SEGMENT_REMOVE with flags: SMARTIO_SEGMENT_REMOVE_FORCE. */
#define SMARTIO_IOC_SEGMENT_REMOVE_FLAGS \
	_IOW(SMARTIO_IOC_MAGIC, 7, struct smartio_segment_remove)

#endif /* _UAPI_LINUX_SMARTIO_DEV_H */
