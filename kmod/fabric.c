// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric registry: the adapters the NTB layer registered, their node
 * ids and their peers, as the netlink family shows them. Every change of a
 * peer's state is multicast to the monitor group here, in one place, so
 * that the events and the dumps can never disagree.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "core_priv.h"

DECLARE_RWSEM(smartio_fabric_rwsem);
DEFINE_MUTEX(smartio_fabric_lock);
LIST_HEAD(smartio_fabric_adapters);
/* Who lists segments, or NULL; under smartio_fabric_rwsem. */
const struct smartio_fabric_segment_ops *smartio_fabric_segment_ops;

/* Called with smartio_fabric_rwsem held. */
struct smartio_fabric_adapter *smartio_fabric_adapter_find(u32 index)
{
	struct smartio_fabric_adapter *fa;

	list_for_each_entry(fa, &smartio_fabric_adapters, list)
		if (fa->index == index)
			return fa;
	return NULL;
}

/*
 * The first adapter through which node @node_id has joined. Called with
 * smartio_fabric_rwsem held.
 */
struct smartio_fabric_adapter *smartio_fabric_node_find(u16 node_id)
{
	struct smartio_fabric_adapter *fa, *found = NULL;
	u32 pidx;

	mutex_lock(&smartio_fabric_lock);
	list_for_each_entry(fa, &smartio_fabric_adapters, list) {
		for (pidx = 0; pidx < fa->peer_count; pidx++) {
			const struct smartio_fabric_peer *peer = &fa->peers[pidx];

			if (peer->state == SMARTIO_PEER_STATE_JOINED &&
			    peer->node_id == node_id) {
				found = fa;
				goto out;
			}
		}
	}
out:
	mutex_unlock(&smartio_fabric_lock);
	return found;
}

/**
 * smartio_fabric_segments_register() - Register the lister of segments.
 * @ops: Its callbacks, until smartio_fabric_segments_unregister().
 *
 * Return: 0, or -EBUSY if another one is registered.
 */
int smartio_fabric_segments_register(const struct smartio_fabric_segment_ops *ops)
{
	int ret = 0;

	down_write(&smartio_fabric_rwsem);
	if (smartio_fabric_segment_ops)
		ret = -EBUSY;
	else
		smartio_fabric_segment_ops = ops;
	up_write(&smartio_fabric_rwsem);
	return ret;
}
EXPORT_SYMBOL_GPL(smartio_fabric_segments_register);

/**
 * smartio_fabric_segments_unregister() - Undo smartio_fabric_segments_register().
 *
 * Waits for a dump using the ops to end.
 */
void smartio_fabric_segments_unregister(void)
{
	down_write(&smartio_fabric_rwsem);
	smartio_fabric_segment_ops = NULL;
	up_write(&smartio_fabric_rwsem);
}
EXPORT_SYMBOL_GPL(smartio_fabric_segments_unregister);

/**
 * smartio_fabric_adapter_add() - Register an adapter.
 * @fa: The adapter, with every field its owner sets filled in and all its
 *	peers DOWN.
 *
 * Context: Process context; takes smartio_fabric_rwsem.
 * Return: 0, or -EEXIST if an adapter with the same index is registered.
 */
int smartio_fabric_adapter_add(struct smartio_fabric_adapter *fa)
{
	int ret = 0;

	down_write(&smartio_fabric_rwsem);
	if (smartio_fabric_adapter_find(fa->index)) {
		ret = -EEXIST;
		goto out;
	}
	mutex_lock(&smartio_fabric_lock);
	list_add_tail(&fa->list, &smartio_fabric_adapters);
	mutex_unlock(&smartio_fabric_lock);
out:
	up_write(&smartio_fabric_rwsem);
	return ret;
}
EXPORT_SYMBOL_GPL(smartio_fabric_adapter_add);

/**
 * smartio_fabric_adapter_del() - Unregister an adapter.
 * @fa: A registered adapter.
 *
 * Waits for every use of @fa by the core (a running netlink operation) to
 * end; after it returns, the core neither reads @fa nor calls its ops.
 *
 * Context: Process context; takes smartio_fabric_rwsem. The caller must
 * not hold a lock that one of @fa's ops takes.
 */
void smartio_fabric_adapter_del(struct smartio_fabric_adapter *fa)
{
	down_write(&smartio_fabric_rwsem);
	mutex_lock(&smartio_fabric_lock);
	list_del(&fa->list);
	mutex_unlock(&smartio_fabric_lock);
	up_write(&smartio_fabric_rwsem);
}
EXPORT_SYMBOL_GPL(smartio_fabric_adapter_del);

/**
 * smartio_fabric_peer_set() - Report the state of a peer.
 * @fa: A registered adapter.
 * @pidx: NTB peer index, below @fa->peer_count.
 * @port: The peer's port number, or SMARTIO_FABRIC_PORT_UNKNOWN.
 * @state: Its state.
 * @node_id: Its node id when @state is JOINED; ignored (0) otherwise.
 *
 * Multicasts what changed to the monitor group: link up or down, node
 * joined or left (a node that leaves because its link went down is
 * reported as leaving first).
 *
 * Context: Process context; takes smartio_fabric_lock.
 */
void smartio_fabric_peer_set(struct smartio_fabric_adapter *fa, u32 pidx,
			     u32 port, enum smartio_peer_state state,
			     u16 node_id)
{
	struct smartio_fabric_peer *peer;
	bool left;
	u8 old;

	if (WARN_ON(pidx >= fa->peer_count))
		return;

	mutex_lock(&smartio_fabric_lock);
	peer = &fa->peers[pidx];
	old = peer->state;
	/* Joined as the same node before and after: no join, no leave. */
	left = old == SMARTIO_PEER_STATE_JOINED &&
		     (state != old || node_id != peer->node_id);
	if (left) {
		/* The node that left, in the state it left the peer in. */
		struct smartio_fabric_peer gone = *peer;

		gone.port = port;
		gone.state = state;
		smartio_nl_notify_peer(fa, &gone, SMARTIO_CMD_NODE_LEAVE_NTF);
	}

	peer->port = port;
	peer->state = state;
	peer->node_id = state == SMARTIO_PEER_STATE_JOINED ? node_id : 0;

	if (old == SMARTIO_PEER_STATE_DOWN && state != old)
		smartio_nl_notify_peer(fa, peer, SMARTIO_CMD_LINK_UP_NTF);
	else if (old != SMARTIO_PEER_STATE_DOWN &&
		 state == SMARTIO_PEER_STATE_DOWN)
		smartio_nl_notify_peer(fa, peer, SMARTIO_CMD_LINK_DOWN_NTF);
	if (state == SMARTIO_PEER_STATE_JOINED &&
	    (old != state || left))
		smartio_nl_notify_peer(fa, peer, SMARTIO_CMD_NODE_JOIN_NTF);
	mutex_unlock(&smartio_fabric_lock);
}
EXPORT_SYMBOL_GPL(smartio_fabric_peer_set);

/**
 * smartio_fabric_node_id_set() - Report a new own node id.
 * @fa: A registered adapter.
 * @node_id: Its node id from now on.
 *
 * Context: Process context; takes smartio_fabric_lock.
 */
void smartio_fabric_node_id_set(struct smartio_fabric_adapter *fa,
				u16 node_id)
{
	mutex_lock(&smartio_fabric_lock);
	fa->node_id = node_id;
	mutex_unlock(&smartio_fabric_lock);
}
EXPORT_SYMBOL_GPL(smartio_fabric_node_id_set);
