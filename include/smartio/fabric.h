/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core module's registry of NTB adapters and the peers behind them.
 *
 * The NTB layer (ntb/smartio_ntb) owns the hardware, the handshake and the
 * messaging channel; the core (kmod/) owns what userspace sees: the netlink
 * family dumps this registry and multicasts its changes. The NTB layer
 * registers one struct smartio_fabric_adapter per adapter and reports every
 * change of a peer with smartio_fabric_peer_set(); the core calls back
 * through struct smartio_fabric_adapter_ops for what only the NTB layer
 * can do. Kernel only.
 */
#ifndef _SMARTIO_FABRIC_H
#define _SMARTIO_FABRIC_H

#include <linux/list.h>
#include <linux/types.h>
#include <linux/smartio.h>

struct netlink_ext_ack;
struct smartio_fabric_adapter;

/* The port of a peer whose port number the NTB has not told yet. */
#define SMARTIO_FABRIC_PORT_UNKNOWN	U32_MAX

/**
 * struct smartio_fabric_adapter_ops - What the core asks of an adapter.
 * @set_node_id: Give the adapter a new node id. Called in process context
 *	with no core lock held; the adapter reports the change with
 *	smartio_fabric_node_id_set(). Returns 0 or -errno, with a message in
 *	@extack.
 * @ping: One round trip to joined node @node_id over the messaging
 *	channel, carrying the @len bytes of @buf and returning the peer's
 *	echo of them in @echo (@len bytes). Process context, may sleep.
 *	Returns 0 or -errno: -ENOTCONN when the node leaves meanwhile,
 *	-EHOSTUNREACH when it is not (or no longer) joined.
 */
struct smartio_fabric_adapter_ops {
	int (*set_node_id)(struct smartio_fabric_adapter *fa, u16 node_id,
			   struct netlink_ext_ack *extack);
	int (*ping)(struct smartio_fabric_adapter *fa, u16 node_id,
		    const void *buf, u32 len, void *echo);
};

/**
 * struct smartio_fabric_peer - A peer port as the core shows it.
 * @port: Peer's port number, or SMARTIO_FABRIC_PORT_UNKNOWN.
 * @node_id: Peer's node id while joined, else 0.
 * @state: enum smartio_peer_state.
 */
struct smartio_fabric_peer {
	u32 port;
	u16 node_id;
	u8 state;
};

/**
 * struct smartio_fabric_adapter - An adapter in the core's registry.
 * @ops: Callbacks, set by the adapter's owner before registering.
 * @index: Adapter number; set by the owner, unique among the registered.
 * @port: Own NTB port number; set by the owner.
 * @pci_name: PCI name of the NTB; set by the owner.
 * @peer_count: Number of entries of @peers; set by the owner.
 * @peers: The peers, indexed by NTB peer index; owner-allocated, all DOWN
 *	at registration and changed with smartio_fabric_peer_set() only.
 * @node_id: Own node id; set by the owner before registering, then with
 *	smartio_fabric_node_id_set() only.
 * @list: Entry in the core's registry.
 *
 * Owned by the NTB layer, which keeps it alive from
 * smartio_fabric_adapter_add() to smartio_fabric_adapter_del(). Once
 * registered, the fields that change (@node_id and @peers) are read and
 * written under the core's lock only, through the functions below.
 */
struct smartio_fabric_adapter {
	const struct smartio_fabric_adapter_ops *ops;
	u32 index;
	u32 port;
	char pci_name[32];
	u32 peer_count;
	struct smartio_fabric_peer *peers;
	u16 node_id;
	struct list_head list;
};

/**
 * struct smartio_fabric_segment - A segment as the core shows it.
 * @node_id: Its owner.
 * @segment_id: Its id on the owner.
 * @size: Bytes.
 * @flags: SMARTIO_SEGMENT_* of <linux/smartio_dev.h>.
 */
struct smartio_fabric_segment {
	u16 node_id;
	u32 segment_id;
	u64 size;
	u32 flags;
};

/**
 * struct smartio_fabric_segment_ops - How the core lists segments.
 * @get: Fill in the segment at position @pos (0, 1, ...: local segments,
 *	then connected ones) and return 0, or return -ENOENT past the last.
 *	Process context.
 */
struct smartio_fabric_segment_ops {
	int (*get)(unsigned long pos, struct smartio_fabric_segment *seg);
};

int smartio_fabric_segments_register(const struct smartio_fabric_segment_ops *ops);
void smartio_fabric_segments_unregister(void);
int smartio_fabric_adapter_add(struct smartio_fabric_adapter *fa);
void smartio_fabric_adapter_del(struct smartio_fabric_adapter *fa);
void smartio_fabric_peer_set(struct smartio_fabric_adapter *fa, u32 pidx,
			     u32 port, enum smartio_peer_state state,
			     u16 node_id);
void smartio_fabric_node_id_set(struct smartio_fabric_adapter *fa,
				u16 node_id);

#endif /* _SMARTIO_FABRIC_H */
