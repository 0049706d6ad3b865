/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to smartio_ntb: the adapters and peers (adapter.c) and the
 * messaging channel to each peer (msg.c).
 */
#ifndef _SMARTIO_NTB_PRIV_H
#define _SMARTIO_NTB_PRIV_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/ntb.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <uapi/linux/smartio_dev.h>

#include "smartio/fabric.h"
#include "smartio/msg.h"
#include "smartio/ring.h"
#include "smartio/window.h"

/* Doorbell bits: 0 for the handshake, 1 for messages. */
#define SMARTIO_DB_HANDSHAKE	BIT_ULL(0)
#define SMARTIO_DB_MSG		BIT_ULL(1)
#define SMARTIO_DB_USED		(SMARTIO_DB_HANDSHAKE | SMARTIO_DB_MSG)

/*
 * A node id a node may have: 1..0xfffe, 0xffff being SMARTIO_NODE_ALL
 * (every node, in a segment's export).
 */
static inline bool smartio_node_id_valid(u32 node_id)
{
	return node_id && node_id < SMARTIO_NODE_ALL;
}

/* Requests one node may have pending on one peer at a time. */
#define SMARTIO_MSG_INFLIGHT	32

/*
 * Receive area (msg.c), the memory a peer writes into through its window
 * onto us; offsets, and the bytes the area takes.
 */
#define SMARTIO_MSG_AREA_HEAD		0x0000
#define SMARTIO_MSG_AREA_ACK		0x0040
#define SMARTIO_MSG_AREA_REACH		0x0080	/* reach.c */
#define SMARTIO_MSG_AREA_RING		0x1000
#define SMARTIO_MSG_RING_SIZE		(512 * 1024)
#define SMARTIO_MSG_AREA_SIZE		(SMARTIO_MSG_AREA_RING + SMARTIO_MSG_RING_SIZE)

/**
 * struct smartio_msg_pending - A request waiting for its response.
 * @id: The request's id; 0 while the entry is free.
 * @done: Completed by the response, or by the channel going down.
 * @resp: Buffer for the response's payload.
 * @resp_max: Size of @resp.
 * @resp_len: Payload bytes of the response.
 * @status: The response's status, or -ENOTCONN.
 * @answered: The response (or the channel's end) has been delivered.
 */
struct smartio_msg_pending {
	u32 id;
	struct completion done;
	void *resp;
	u32 resp_max;
	u32 resp_len;
	int status;
	bool answered;
};

/**
 * struct smartio_msg_chan - The messaging channel to one peer.
 * @area: Our receive area (see msg.c), written by the peer through the
 *	window that leads to our memory (set up by reach.c).
 * @area_bus: Bus address of @area for the NTB.
 * @area_size: Bytes allocated at @area.
 * @area_iova: The IOVA window @area is mapped at the base of, referenced;
 *	NULL when it is not.
 * @win_idx: Our outbound window the peer's receive area is in, as its
 *	hello says; -1 until then.
 * @win_offset: Where the area is in that window.
 * @win: The peer's receive area, mapped; NULL until its hello said where
 *	it is.
 * @rx_lock: Serialises receiving with resetting the receive side.
 * @rx_tail: Consumer counter of our receive ring.
 * @rx_seq: Sequence number the next received message must carry.
 * @rx_resp: Payload of the response to the request being served.
 * @rx_count: Messages received since the module loaded, for benchmarks
 *	(a data path without software must not move it).
 * @rx_keepalives: Of them, keepalives (ECHO events): one a heartbeat on
 *	an idle channel, not per I/O, shown apart.
 * @rx_malformed: Records dropped as malformed messages (the decoder
 *	refused them); not in @rx_count.
 * @rx_misordered: Messages of @rx_count that carried another sequence
 *	number than the one expected.
 * @rx_open: Messages are read from the peer: from its joining until it
 *	leaves or says it is leaving (smartio_msg_chan_down()). Our own
 *	leaving closes only the send side (@up).
 * @rx_acks_leaving_only: We posted our LEAVING: a peer that read it may
 *	take its link down at any time, so we ack only a batch that holds
 *	the peer's own LEAVING, which it waits for. Under @rx_lock.
 * @rx_corrupt: The receive ring holds a record that breaks its scheme:
 *	nothing after it can be read, and the peer counts as silent until
 *	the session ends (smartio_msg_chan_tick()). Under @rx_lock; read
 *	by the tick with READ_ONCE().
 * @lock: Protects the fields below; a spinlock so that events can be
 *	posted from atomic context.
 * @up: The peer is joined and the channel usable.
 * @tx_head: Producer counter of the peer's receive ring.
 * @tx_seq: Sequence number of the next message sent.
 * @next_id: Generation part of the next request id.
 * @tx_buf: Where a record is encoded before it is copied to @win.
 * @wait: Woken when a pending entry or ring space may have freed up.
 * @pending: Requests waiting for their response.
 * @tx_count: Messages sent since the module loaded.
 * @tx_keepalives: Of them, keepalives (smartio_msg_chan_tick()).
 * @alive_head: The head of our receive ring at the last heartbeat tick
 *	(smartio_msg_chan_tick()).
 * @alive_ack: The peer's ack of our messages at the last tick.
 * @alive_tx: @tx_count at the last tick.
 * @alive_heard: When the peer last wrote either (jiffies).
 */
struct smartio_msg_chan {
	void *area;
	dma_addr_t area_bus;
	size_t area_size;
	struct smartio_iova_window *area_iova;
	int win_idx;
	u64 win_offset;
	void __iomem *win;

	struct mutex rx_lock;
	u32 rx_tail;
	u32 rx_seq;
	bool rx_open;
	bool rx_acks_leaving_only;
	bool rx_corrupt;
	u8 rx_resp[SMARTIO_MSG_MAX_PAYLOAD];
	u64 rx_count;
	u64 rx_keepalives;
	u64 rx_malformed;
	u64 rx_misordered;

	spinlock_t lock;
	bool up;
	u32 tx_head;
	u32 tx_seq;
	u32 next_id;
	u8 tx_buf[SMARTIO_RING_HDR_LEN + SMARTIO_MSG_MAX_LEN];
	wait_queue_head_t wait;
	struct smartio_msg_pending pending[SMARTIO_MSG_INFLIGHT];
	u64 tx_count;
	u64 tx_keepalives;

	u32 alive_head;
	u32 alive_ack;
	u64 alive_tx;
	unsigned long alive_heard;
};

/* Slot key of slots whose peer left (see window.c). */
#define SMARTIO_WINDOW_NO_PEER	U16_MAX

struct smartio_adapter;

/**
 * struct smartio_aperture - The LUT windows of an adapter (window.c).
 * @lock: Serialises mapping and unmapping.
 * @ad: The adapter.
 * @gone: The adapter was removed: its NTB is no longer ours to program,
 *	and no mapping is made; what is still mapped only waits for its
 *	users' unmap.
 * @kind: "LUT".
 * @notify: Programs or clears a slot's translation.
 * @map: Slot allocation, keyed by peer index.
 * @slots: The slots of @map.
 * @count: Number of slots; 0 when the adapter has no such windows.
 * @first_widx: NTB outbound window of slot 0.
 * @base: Physical address of slot 0.
 * @slot_size: Bytes each slot maps.
 * @error: First error programming a slot during one map.
 */
struct smartio_aperture {
	struct mutex lock;
	struct smartio_adapter *ad;
	bool gone;
	const char *kind;
	void (*notify)(void *data, u32 slot,
		       const struct smartio_window_slot *s);
	struct smartio_window_map map;
	struct smartio_window_slot *slots;
	u32 count;
	int first_widx;
	phys_addr_t base;
	resource_size_t slot_size;
	int error;
};

/**
 * struct smartio_window_mapping - A peer range mapped through our windows.
 * @ad: The adapter, referenced while mapped.
 * @ap: The aperture of its LUT slots; NULL through a direct window.
 * @pidx: The peer.
 * @first: First slot.
 * @count: Slots (1 through a direct window), 0 once unmapped.
 * @phys: Where the range starts in our physical address space.
 * @size: Bytes of the range.
 */
struct smartio_window_mapping {
	struct smartio_adapter *ad;
	struct smartio_aperture *ap;
	int pidx;
	u32 first;
	u32 count;
	phys_addr_t phys;
	u64 size;
};

/**
 * struct smartio_grant - A local range a node may reach (reach.c).
 * @ad: Adapter whose bus address space the range is in, referenced;
 *	NULL while not granted.
 * @node_id: The node, or SMARTIO_NODE_ALL.
 * @addr: Start of the range, a bus address of @ad's NTB.
 * @size: Bytes.
 * @peer_addr: Where peers reach the range: @addr, or where the range is
 *	mapped again in @iova.
 * @iova: The IOVA window the range is mapped into, referenced; NULL when
 *	peers reach @addr as it is.
 */
struct smartio_grant {
	struct smartio_adapter *ad;
	u16 node_id;
	u64 addr;
	u64 size;
	u64 peer_addr;
	struct smartio_iova_window *iova;
};

/* What our inbound window 0 for a peer leads to (reach.c). */
enum smartio_inbound_kind {
	SMARTIO_INBOUND_NONE,	/* not open */
	SMARTIO_INBOUND_RING,	/* the receive area alone */
	SMARTIO_INBOUND_IOVA,	/* the adapter's IOVA window */
	SMARTIO_INBOUND_RAM,	/* all of RAM, untranslated */
};

/*
 * Inbound windows a peer reaches us through: one to memory (the largest),
 * one to interrupts (reach.c).
 */
#define SMARTIO_REACH_WINDOWS	2

/**
 * struct smartio_reach - A range of a node's bus address space that one
 *	of the windows between us leads to.
 * @addr: Start of the range.
 * @size: Bytes; 0 when the window leads nowhere.
 * @phys: Where the window is in our physical address space (for a
 *	peer's range: our outbound window); 0 for our own ranges.
 */
struct smartio_reach {
	u64 addr;
	u64 size;
	phys_addr_t phys;
};

/**
 * struct smartio_peer - A peer port reachable through an adapter.
 * @pidx: Peer index in the NTB API.
 * @port: Peer's port number, -1 while unknown.
 * @state: DOWN, LINK_UP or JOINED.
 * @node_id: Peer's node id while JOINED, else 0; written under
 *	smartio_node_ids_lock too (adapter.c), read under it to find a
 *	node's id free, and without any lock (READ_ONCE) to find a node.
 * @epoch: Epoch of the last valid hello read from the peer, 0 if none.
 * @acked: Epoch the last hello sent to the peer acknowledged.
 * @refused: Epoch of the last hello refused (error logged once each).
 * @refused_node: The node id the peer is refused for, while it is (then
 *	it is looked at again when an id is freed); else 0. Written under
 *	smartio_node_ids_lock.
 * @in_spad: First scratchpad of our own the peer writes, -1 while unknown;
 *	read by other adapters' works (READ_ONCE) to find a loopback.
 * @out_spad: First scratchpad of the peer's this side writes.
 * @session: The session it joined in: a number from one counter for all
 *	peers (adapter.c, "Sessions"), so a connection made while it leaves
 *	notices, and what was set up with a node compares with the session
 *	it left in (read with READ_ONCE).
 * @chan: The messaging channel to the peer.
 * @inbound: What our inbound memory window for the peer leads to.
 * @mem_widx: Our inbound window to memory (the receive area among it).
 * @msi_widx: Our inbound window to the interrupt range; -1 if none.
 * @xlat: What our inbound windows for the peer are translated onto (by
 *	window), to translate them again when the link comes back: some
 *	NTBs (Switchtec) lose them when the peer resets.
 * @own: What our inbound windows for the peer lead to, as we tell it
 *	(by window).
 * @reach: What our outbound windows lead to in the peer's bus address
 *	space, as it told us when it joined; read without the adapter's
 *	lock by mappers that hold the peer joined.
 *
 * Every other field but @pidx and @chan is protected by the adapter's
 * @lock.
 */
struct smartio_peer {
	int pidx;
	int port;
	enum smartio_peer_state state;
	u16 node_id;
	u32 epoch;
	u32 acked;
	u32 refused;
	u32 refused_node;
	int in_spad;
	int out_spad;
	u32 session;
	struct smartio_msg_chan chan;
	enum smartio_inbound_kind inbound;
	int mem_widx;
	int msi_widx;
	struct smartio_reach xlat[SMARTIO_REACH_WINDOWS];
	struct smartio_reach own[SMARTIO_REACH_WINDOWS];
	struct smartio_reach reach[SMARTIO_REACH_WINDOWS];
};

/**
 * struct smartio_adapter - smartio's view of one NTB device.
 * @list: Entry in smartio_adapters (RCU: messages find nodes under
 *	rcu_read_lock()).
 * @ref: References: the NTB's binding (probe to remove) and every user
 *	of the adapter's windows (a mapping, a grant, a segment), which may
 *	outlive the binding: what they touch stays until the last put.
 * @index: Adapter number, 0, 1, ... in probe order (lowest free).
 * @ntb: The NTB device.
 * @port: Own port number.
 * @node_id: Own node id; written under @lock and smartio_node_ids_lock.
 * @gone: Being removed: other adapters no longer queue its @work; under
 *	smartio_node_ids_lock.
 * @fabric: The adapter in the core's registry.
 * @work: Runs the handshake and link tracking (NTB callbacks are atomic).
 * @msg_work: Receives messages.
 * @heartbeat: Keeps the joined peers' channels alive and loses a peer
 *	that has gone silent (adapter.c); queued while a peer is joined.
 * @lock: Protects the fields of @peers and @node_id.
 * @peer_count: Number of peers, ntb_peer_port_count(); fixed at probe.
 * @lut: The LUT aperture, for the window manager.
 * @direct_maps: Mappings through direct windows in use (window.c).
 * @grants: Local ranges granted to peers (reach.c).
 * @iova: The IOVA window, where our IOMMU translates inbound accesses.
 * @requesters_lock: Protects @requesters and @requesters_left.
 * @requesters: Entries of the requester-ID table we asked for (requester.c).
 * @requesters_left: Per peer, the session it last left in.
 * @fabric_peers: The peers as the core's registry shows them.
 * @peers: The peers, indexed by pidx.
 *
 * The adapter's users are torn down when it is removed (smartio_remove():
 * its peers leave, the node notifier is told SMARTIO_ADAPTER_GONE and
 * waited for); those that still hold a reference after it find @ntb
 * gone (@lut.gone) and touch only this structure.
 */
struct smartio_adapter {
	struct list_head list;
	struct kref ref;
	int index;
	struct ntb_dev *ntb;
	int port;
	u16 node_id;
	bool gone;
	struct smartio_fabric_adapter fabric;
	struct work_struct work;
	struct work_struct msg_work;
	struct delayed_work heartbeat;
	struct mutex lock;
	int peer_count;
	struct smartio_aperture lut;
	atomic_t direct_maps;
	atomic_t grants;
	struct smartio_iova_window *iova;
	struct mutex requesters_lock;
	struct list_head requesters;
	u32 *requesters_left;
	struct smartio_fabric_peer *fabric_peers;
	struct smartio_peer peers[];
};

/* adapter.c: the adapters, in probe order; SRCU for messages. */
extern struct list_head smartio_adapters;
extern struct srcu_struct smartio_adapters_srcu;
void smartio_adapter_get(struct smartio_adapter *ad);
void smartio_adapter_put(struct smartio_adapter *ad);
struct smartio_peer *smartio_node_peer(u16 node_id,
				       struct smartio_adapter **adp);

/* window.c */
int smartio_windows_init(struct smartio_adapter *ad);
void smartio_windows_exit(struct smartio_adapter *ad);
void smartio_windows_free(struct smartio_adapter *ad);
int smartio_window_map(struct smartio_adapter *ad, int pidx, u64 addr,
		       u64 size, struct smartio_window_mapping *m);
void smartio_window_unmap(struct smartio_window_mapping *m);
void smartio_windows_peer_lost(struct smartio_adapter *ad,
			       struct smartio_peer *peer);
struct seq_file;
void smartio_windows_show(struct seq_file *s, struct smartio_adapter *ad);

/* reach.c */
int smartio_inbound_open(struct smartio_adapter *ad, struct smartio_peer *peer);
int smartio_inbound_restore(struct smartio_adapter *ad,
			    struct smartio_peer *peer);
void smartio_inbound_close(struct smartio_adapter *ad,
			   struct smartio_peer *peer);
void smartio_reach_publish(struct smartio_adapter *ad,
			   struct smartio_peer *peer);
int smartio_reach_learn(struct smartio_adapter *ad, struct smartio_peer *peer);
int smartio_window_grant(struct smartio_grant *g, struct smartio_adapter *ad,
			 u16 node_id, u64 addr, u64 size);
void smartio_window_revoke(struct smartio_grant *g);
void smartio_reach_show(struct seq_file *s, struct smartio_peer *peer);
u64 smartio_inbound_area_offset(struct smartio_peer *peer);
bool smartio_inbound_direct(struct smartio_adapter *ad);

/* iova.c */
int smartio_iova_window_create(struct smartio_adapter *ad);
void smartio_iova_window_destroy(struct smartio_adapter *ad);
void smartio_iova_window_show(struct seq_file *s, struct smartio_adapter *ad);
struct smartio_iova_window *smartio_iova_window_ref(struct smartio_adapter *ad);
u64 smartio_iova_window_base(struct smartio_iova_window *w);
u64 smartio_iova_window_limit(struct smartio_iova_window *w, u64 size);
int smartio_iova_window_hold(struct smartio_iova_window *w, phys_addr_t phys,
			     size_t size);
void smartio_iova_window_release_held(struct smartio_iova_window *w,
				      size_t size);
dma_addr_t smartio_iova_map_again(struct smartio_iova_window *w,
				  dma_addr_t addr, size_t size);

/* segment.c */
int smartio_segment_init(void);
void smartio_segment_exit(void);
void smartio_segment_peer_left(struct smartio_adapter *ad,
			       struct smartio_peer *peer);
void smartio_segment_adapter_gone(struct smartio_adapter *ad);

/* requester.c */
int smartio_requesters_init(struct smartio_adapter *ad);
void smartio_requesters_exit(struct smartio_adapter *ad);
void smartio_requesters_peer_left(struct smartio_adapter *ad,
				  struct smartio_peer *peer);
int smartio_requester_get(struct smartio_adapter *ad,
			  struct smartio_peer *peer, u32 session, u16 req_id);
int smartio_requester_put(struct smartio_adapter *ad, int pidx, u16 req_id,
			  bool all);
struct smartio_peer *smartio_requester_peer(u16 node_id, int domain,
					     const char *what,
					     struct smartio_adapter **adp,
					     u32 *session);
struct dentry;
void smartio_requesters_debugfs(struct dentry *dir);

/* msg.c */
void smartio_msg_init(void);
void smartio_msg_chan_init(struct smartio_peer *peer);
int smartio_msg_chan_open(struct smartio_adapter *ad, struct smartio_peer *peer);
int smartio_msg_chan_locate(struct smartio_adapter *ad,
			    struct smartio_peer *peer, int widx, u64 offset);
void smartio_msg_chan_exit(struct smartio_adapter *ad, struct smartio_peer *peer);
void smartio_msg_chan_reset_rx(struct smartio_peer *peer);
void smartio_msg_chan_up(struct smartio_peer *peer);
unsigned int smartio_msg_chan_down(struct smartio_peer *peer);
int smartio_msg_chan_leave(struct smartio_adapter *ad,
			   struct smartio_peer *peer, u32 *ack);
bool smartio_msg_chan_left(struct smartio_peer *peer, u32 ack);
void smartio_msg_chan_drain(struct smartio_adapter *ad,
			    struct smartio_peer *peer);
unsigned long smartio_msg_chan_tick(struct smartio_adapter *ad,
				    struct smartio_peer *peer);
void smartio_msg_chan_show(struct seq_file *s,
			   const struct smartio_msg_chan *chan);
void smartio_msg_work(struct work_struct *work);
int smartio_msg_call_peer(struct smartio_adapter *ad, struct smartio_peer *peer,
			  u16 op, const void *req, u32 len, void *resp,
			  u32 resp_max, u32 *resp_len, unsigned long timeout);

/*
 * Writes a record into chan->tx_buf, its header (smartio_ring_hdr_encode())
 * and its message bytes after it, with chan->lock held; returns the number
 * of message bytes or -errno.
 */
typedef int (*smartio_msg_fill_t)(struct smartio_msg_chan *chan, void *arg);
int smartio_msg_post_fill(u16 node_id, smartio_msg_fill_t fill, void *arg);

/*
 * test_hooks.c: what only tests use, built in only with
 * CONFIG_SMARTIO_TEST_HOOKS (see the top-level Kbuild); without it the
 * requesters file takes no writes, and what handlers return is not
 * counted.
 */
struct file;
struct dentry;
#ifdef CONFIG_SMARTIO_TEST_HOOKS
ssize_t smartio_requesters_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos);
void smartio_test_served(u16 op, int status);
void smartio_test_debugfs(struct dentry *dir);
#else
#define smartio_requesters_write NULL
static inline void smartio_test_served(u16 op, int status) {}
static inline void smartio_test_debugfs(struct dentry *dir) {}
#endif

#endif /* _SMARTIO_NTB_PRIV_H */
