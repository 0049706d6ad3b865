// SPDX-License-Identifier: GPL-2.0
/*
 * smartio's NTB client: the fabric layer's view of the NTB hardware.
 *
 * smartio registers one ntb_client; every NTB device it is offered becomes
 * an adapter with a cluster-unique node id. The peers reachable through an
 * adapter (one per peer port: multi-port NTBs have several) are tracked from
 * link events and a handshake over scratchpads and doorbells:
 *
 *	DOWN     the link to the peer is down;
 *	LINK_UP  the link is up, the handshake is under way (or was refused);
 *	JOINED   the peer is a node of the cluster: its node id is known,
 *	         and the messaging channel to it (msg.c) is open.
 *
 * A joined peer from which nothing arrives for peer_timeout_ms while its
 * link stays up (its kernel hangs, its machine is stopped) is lost as at
 * a link down, and may join again by the handshake: see "Liveness" below.
 *
 * Adapters and peers are registered with the core module (smartio/
 * fabric.h), whose netlink family shows them and multicasts their changes;
 * for debugging they are also shown in <debugfs>/smartio/adapters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/overflow.h>
#include <linux/pci.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>

#include "smartio/ntb.h"
#include "smartio/version.h"
#include "smartio_ntb_priv.h"

/* Told when a node joins or leaves (see smartio_node_notifier_register()). */
static BLOCKING_NOTIFIER_HEAD(smartio_node_notifiers);

/* The node id of the last adapter unlisted (smartio_local_node_id()). */
static u16 smartio_kept_node_id;

/*
 * Handshake wire protocol (version 3)
 * ===================================
 *
 * Scratchpads. Every port of the NTB has a global index g: the rank of its
 * port number among the port numbers of all ports of the NTB (its own and
 * its peers'), as ntb_perf numbers them; on a two-port NTB the lower port
 * is 0 and the higher 1. A port writes its hello into block g of each
 * peer's scratchpads, with ntb_peer_spad_write(), so that on a multi-port
 * NTB each peer's hello has a block of its own:
 *
 *	SPAD(5g + 0)	SMARTIO_HS_MAGIC: 0x534d ("SM") << 16 | version (3)
 *	SPAD(5g + 1)	the sender's node id (1..0xffff; upper 16 bits 0)
 *	SPAD(5g + 2)	the sender's boot epoch: a random non-zero u32 drawn
 *			at module load, so that a restarted peer is new
 *	SPAD(5g + 3)	ack: the receiver's epoch as the sender last read it
 *			from the receiver's hello, 0 if none
 *	SPAD(5g + 4)	where the sender's receive area (msg.c) is: bits
 *			31..28 the sender's inbound window it is in (the
 *			one leading to its memory, reach.c; 0 where window
 *			0 holds the area alone), bits 27..0 its offset in
 *			that window in 4 KiB units (so below 1 TiB)
 *
 * The magic is written last: a block with a valid magic is complete. Then
 * the sender rings doorbell bit 0 of the peer (SMARTIO_DB_HANDSHAKE). Bit 0
 * is reserved for the handshake, bit 1 for messages (SMARTIO_DB_MSG).
 *
 * A port sends its hello to a peer when the link to it comes up (ack 0),
 * and again whenever it reads from that peer a hello whose epoch is not the
 * one it last acknowledged or whose ack is not its own epoch (the peer saw a
 * link down this port missed). It considers the peer JOINED once it reads a
 * valid hello that acknowledges its own epoch (and leaves as soon as it
 * reads one that does not, or a new epoch): so stale scratchpads (a
 * hello left by a previous instance of the peer) never make a node join,
 * and the handshake ends once each side holds the other's hello carrying
 * its own epoch (three hellos when one side starts), whichever side starts
 * and in whichever order both load. The handshake is re-run from the link-
 * up path as well, in case the doorbell came before this side listened.
 *
 * Every hello resets our receiving side of the messaging channel (see
 * msg.c): the peer sends messages only once it has read it. A hello that
 * acknowledges the peer follows our word of what the peer's windows onto
 * us lead to, written into its receive area (reach.c), so the peer has it
 * when it joins.
 *
 * When the link to a peer goes down, the peer is DOWN and its block of our
 * scratchpads is stale: it is cleared.
 *
 * Node ids. A node id names one node of the fabric: 1..0xfffe, 0xffff
 * being SMARTIO_NODE_ALL. A peer whose hello carries an id that is
 * invalid, reserved, one of this node's own (any adapter's), or that of
 * a node already joined through any adapter of ours is refused: its hello
 * is not answered (an answer sent before is taken back with an ack of 0),
 * so neither side joins, and it stays LINK_UP; one error is logged per
 * attempt (per epoch and id claimed). It is looked at again when an id is
 * freed here (a node leaves, an own id changes, an adapter goes), and
 * joins then if its id is free. The one exception to "one of
 * our own" is a loopback cable between two adapters of this node: a peer
 * that claims another adapter's id joins if its hello carries our own
 * epoch and that adapter's scratchpads hold the hello we sent, as they do
 * when the cable leads there (an impostor could copy our epoch, which our
 * hello tells it, but not write into another NTB's scratchpads). A node
 * reached through two adapters at once therefore joins through the first
 * one only.
 *
 * Sessions. Each joining of a peer is a session, numbered from one
 * counter for all peers of all adapters (smartio_peer.session), so that
 * the sessions of one node compare whichever adapter it joins through.
 * Users of a node note the session they set something up in
 * (smartio_node_session()); when the node leaves, they are told the
 * session it left (struct smartio_node_event) and undo only what is of
 * that session or an earlier one, never what a quick rejoin set up.
 *
 * Liveness. The link tells when a peer's machine is cut off, not when its
 * kernel stops. So every SMARTIO_HEARTBEAT a node posts a keepalive to
 * each joined peer it sent nothing to in the last one (no doorbell: the
 * peer's heartbeat reads it), and a peer from
 * which nothing arrived for peer_timeout_ms (msg.c,
 * smartio_msg_chan_tick()) is lost: it leaves as at a link down (one line
 * logged), its block of our scratchpads is cleared (its hello there is
 * stale: it must not make it join again) and it is sent a hello that
 * acknowledges nothing. A peer that comes back reads that hello, finds
 * that we lost it, leaves in turn and says hello anew; then both join,
 * in a new session.
 */
#define SMARTIO_HS_MAGIC	0x534d0003
#define SMARTIO_HS_MAGIC_MASK	0xffff0000
#define SMARTIO_HS_SPAD_MAGIC	0
#define SMARTIO_HS_SPAD_NODE	1
#define SMARTIO_HS_SPAD_EPOCH	2
#define SMARTIO_HS_SPAD_ACK	3
#define SMARTIO_HS_SPAD_AREA	4
#define SMARTIO_HS_SPADS	5
#define SMARTIO_HS_AREA_SHIFT	12
#define SMARTIO_HS_AREA_WINDOW	GENMASK(31, 28)
#define SMARTIO_HS_AREA_OFFSET	GENMASK(27, 0)

/* Adapters whose node id the node_id parameter can set. */
#define SMARTIO_MAX_PARAM_ADAPTERS	16

static ushort node_id[SMARTIO_MAX_PARAM_ADAPTERS];
static int node_id_count;
module_param_array(node_id, ushort, &node_id_count, 0444);
MODULE_PARM_DESC(node_id,
		 "Node id of each adapter in probe order, 1..65534 (0 or absent: own port number + 1; 65535 addresses all nodes and is refused)");

/* How often a joined peer's channel is looked at, and kept alive. */
#define SMARTIO_HEARTBEAT_MS	1000
#define SMARTIO_HEARTBEAT	msecs_to_jiffies(SMARTIO_HEARTBEAT_MS)

static unsigned int peer_timeout_ms = 5000;

/* 0, or at least two heartbeats: one late keepalive loses no peer. */
static int smartio_peer_timeout_set(const char *val,
				    const struct kernel_param *kp)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint(val, 0, &ms);
	if (ret)
		return ret;
	if (ms && ms < 2 * SMARTIO_HEARTBEAT_MS)
		return -EINVAL;
	WRITE_ONCE(*(unsigned int *)kp->arg, ms);
	return 0;
}

static const struct kernel_param_ops smartio_peer_timeout_ops = {
	.set = smartio_peer_timeout_set,
	.get = param_get_uint,
};
module_param_cb(peer_timeout_ms, &smartio_peer_timeout_ops, &peer_timeout_ms,
		0644);
MODULE_PARM_DESC(peer_timeout_ms,
		 "A joined node from which nothing arrives for this long (ms, at least 2000), its link up, is lost as at a link down; 0: only a link down loses a node (default 5000)");

static const char * const smartio_peer_state_names[] = {
	[SMARTIO_PEER_STATE_DOWN] = "down",
	[SMARTIO_PEER_STATE_LINK_UP] = "link-up",
	[SMARTIO_PEER_STATE_JOINED] = "joined",
};

/* Round trips of a ping wait this long for their answer. */
#define SMARTIO_PING_TIMEOUT	(10 * HZ)

/* Read-only after module init. */
static u32 smartio_epoch;
static struct dentry *smartio_debugfs;

static DEFINE_IDA(smartio_adapter_ida);
/*
 * Protects changes to smartio_adapters and the debugfs walk; taken before
 * any adapter's lock. Messages find nodes under smartio_adapters_srcu.
 */
static DEFINE_MUTEX(smartio_adapters_lock);
/*
 * The node ids in use here: every adapter's own (ad->node_id) and every
 * joined peer's (peer->node_id). Adapter works run concurrently, each
 * under its own adapter's lock, so finding an id free and claiming it
 * (a peer joining, an own id changing, an adapter arriving) happen under
 * this lock, in one critical section, and so do the writes of those ids
 * and changes to smartio_adapters: holding it, smartio_adapters can be
 * walked and the ids read as they are. Taken inside an adapter's lock and
 * inside smartio_adapters_lock, never around either; held across nothing
 * that waits for long (scratchpad accesses, the hello that answers).
 */
static DEFINE_MUTEX(smartio_node_ids_lock);
/* The last session a peer joined in (see "Sessions"); under the lock above. */
static u32 smartio_session_last;
LIST_HEAD(smartio_adapters);
DEFINE_SRCU(smartio_adapters_srcu);

/*
 * The global index of @port among all ports of @ad's NTB, or -ENOLINK when
 * the port number of a peer is not known yet (some NTBs name a peer only
 * once its link has been up).
 */
static int smartio_port_gidx(struct smartio_adapter *ad, int port)
{
	int pidx, p, gidx = 0;

	if (ad->port < port)
		gidx++;
	for (pidx = 0; pidx < ad->peer_count; pidx++) {
		p = ntb_peer_port_number(ad->ntb, pidx);
		if (p < 0)
			return -ENOLINK;
		if (p < port)
			gidx++;
	}

	return gidx;
}

/* Clears the peer's block of our scratchpads. Called with ad->lock held. */
static void smartio_clear_in_spads(struct smartio_adapter *ad,
				   struct smartio_peer *peer)
{
	int i;

	if (peer->in_spad < 0)
		return;
	/* Magic first: the block is invalid before its contents change. */
	for (i = 0; i < SMARTIO_HS_SPADS; i++)
		ntb_spad_write(ad->ntb, peer->in_spad + i, 0);
}

/* Tells the core's registry the peer's state. Called with ad->lock held. */
static void smartio_peer_report(struct smartio_adapter *ad,
				struct smartio_peer *peer)
{
	smartio_fabric_peer_set(&ad->fabric, peer->pidx,
				peer->port < 0 ? SMARTIO_FABRIC_PORT_UNKNOWN :
						 peer->port,
				peer->state, peer->node_id);
}

/* Sends our hello to @peer. Called with ad->lock held. */
static void smartio_send_hello(struct smartio_adapter *ad,
			       struct smartio_peer *peer, u32 ack)
{
	struct ntb_dev *ntb = ad->ntb;
	int base = peer->out_spad;

	/* The peer may send messages once it has read this. */
	smartio_msg_chan_reset_rx(peer);
	if (ack)
		smartio_reach_publish(ad, peer);
	ntb_peer_spad_write(ntb, peer->pidx, base + SMARTIO_HS_SPAD_AREA,
			    FIELD_PREP(SMARTIO_HS_AREA_WINDOW, peer->mem_widx) |
			    FIELD_PREP(SMARTIO_HS_AREA_OFFSET,
				       smartio_inbound_area_offset(peer) >>
				       SMARTIO_HS_AREA_SHIFT));
	ntb_peer_spad_write(ntb, peer->pidx, base + SMARTIO_HS_SPAD_ACK, ack);
	ntb_peer_spad_write(ntb, peer->pidx, base + SMARTIO_HS_SPAD_NODE,
			    ad->node_id);
	ntb_peer_spad_write(ntb, peer->pidx, base + SMARTIO_HS_SPAD_EPOCH,
			    smartio_epoch);
	ntb_peer_spad_write(ntb, peer->pidx, base + SMARTIO_HS_SPAD_MAGIC,
			    SMARTIO_HS_MAGIC);
	ntb_peer_db_set(ntb, SMARTIO_DB_HANDSHAKE);
	peer->acked = ack;
}

/*
 * The adapter through which node @node_id (not 0) is joined, with its
 * peer in *@peerp; NULL if it is not. Called with smartio_node_ids_lock
 * held.
 */
static struct smartio_adapter *smartio_node_id_joined(u32 node_id,
						      struct smartio_peer **peerp)
{
	struct smartio_adapter *ad;
	int pidx;

	list_for_each_entry(ad, &smartio_adapters, list) {
		for (pidx = 0; pidx < ad->peer_count; pidx++) {
			if (ad->peers[pidx].node_id == node_id) {
				*peerp = &ad->peers[pidx];
				return ad;
			}
		}
	}
	return NULL;
}

/*
 * Node ids were freed: every adapter with a peer refused for the id it
 * claims looks at that peer again (its work re-reads the hello). Called
 * with smartio_node_ids_lock held.
 */
static void smartio_node_ids_freed(void)
{
	struct smartio_adapter *ad;
	int pidx;

	list_for_each_entry(ad, &smartio_adapters, list) {
		if (ad->gone)
			continue;
		for (pidx = 0; pidx < ad->peer_count; pidx++) {
			if (READ_ONCE(ad->peers[pidx].refused_node)) {
				schedule_work(&ad->work);
				break;
			}
		}
	}
}

/*
 * @peer is no longer joined: close the messaging channel, failing what is
 * pending on it, and enter @state. Called with ad->lock held.
 */
static void smartio_peer_leave(struct smartio_adapter *ad,
			       struct smartio_peer *peer,
			       enum smartio_peer_state state)
{
	struct smartio_node_event ev = {
		.node_id = peer->node_id,
		.session = peer->session,
	};
	unsigned int failed;

	if (peer->state == SMARTIO_PEER_STATE_JOINED) {
		failed = smartio_msg_chan_down(peer);
		smartio_segment_peer_left(ad, peer);
		smartio_windows_peer_lost(ad, peer);
		smartio_requesters_peer_left(ad, peer);
		blocking_notifier_call_chain(&smartio_node_notifiers,
					     SMARTIO_NODE_LEFT, &ev);
		if (failed)
			pr_info("adapter %d: node %u left, %u pending request%s failed\n",
				ad->index, peer->node_id, failed,
				failed == 1 ? "" : "s");
		else
			pr_info("adapter %d: node %u left\n", ad->index,
				peer->node_id);
	}
	peer->state = state;
	mutex_lock(&smartio_node_ids_lock);
	if (peer->node_id) {
		WRITE_ONCE(peer->node_id, 0);
		smartio_node_ids_freed();
	}
	mutex_unlock(&smartio_node_ids_lock);
	smartio_peer_report(ad, peer);
}

/*
 * Nothing came from @peer for @silent jiffies while its link stayed up:
 * it is lost as at a link down (see "Liveness"). Called with ad->lock
 * held.
 */
static void smartio_peer_silent(struct smartio_adapter *ad,
				struct smartio_peer *peer, unsigned long silent)
{
	pr_warn("adapter %d: node %u silent for %u ms, its link up: lost\n",
		ad->index, peer->node_id, jiffies_to_msecs(silent));
	smartio_peer_leave(ad, peer, SMARTIO_PEER_STATE_LINK_UP);
	smartio_clear_in_spads(ad, peer);
	smartio_send_hello(ad, peer, 0);
}

/*
 * Keeps the channels to the joined peers alive and loses those that went
 * silent; queued every SMARTIO_HEARTBEAT while a peer is joined.
 */
static void smartio_heartbeat_work(struct work_struct *work)
{
	struct smartio_adapter *ad = container_of(to_delayed_work(work),
						  struct smartio_adapter,
						  heartbeat);
	unsigned int timeout_ms = READ_ONCE(peer_timeout_ms);
	unsigned long silent;
	bool joined = false;
	int pidx;

	mutex_lock(&ad->lock);
	for (pidx = 0; pidx < ad->peer_count; pidx++) {
		struct smartio_peer *peer = &ad->peers[pidx];

		if (peer->state != SMARTIO_PEER_STATE_JOINED)
			continue;
		silent = smartio_msg_chan_tick(ad, peer);
		if (timeout_ms && silent >= msecs_to_jiffies(timeout_ms))
			smartio_peer_silent(ad, peer, silent);
		else
			joined = true;
	}
	if (joined)
		queue_delayed_work(system_wq, &ad->heartbeat,
				   SMARTIO_HEARTBEAT);
	mutex_unlock(&ad->lock);
}

/* The link to @peer is down. Called with ad->lock held. */
static void smartio_peer_down(struct smartio_adapter *ad,
			      struct smartio_peer *peer)
{
	if (peer->state == SMARTIO_PEER_STATE_DOWN)
		return;
	smartio_peer_leave(ad, peer, SMARTIO_PEER_STATE_DOWN);
	peer->epoch = 0;
	peer->acked = 0;
	peer->refused = 0;
	mutex_lock(&smartio_node_ids_lock);
	WRITE_ONCE(peer->refused_node, 0);
	mutex_unlock(&smartio_node_ids_lock);
	smartio_clear_in_spads(ad, peer);
}

/*
 * The link to @peer is up: learn where the hellos go, and say hello when
 * the link has just come up. Returns false when the handshake cannot run
 * yet. Called with ad->lock held.
 */
static bool smartio_peer_up(struct smartio_adapter *ad,
			    struct smartio_peer *peer)
{
	struct ntb_dev *ntb = ad->ntb;
	int port, in_gidx, out_gidx;

	if (peer->state != SMARTIO_PEER_STATE_DOWN)
		return true;

	port = ntb_peer_port_number(ntb, peer->pidx);
	if (port < 0)
		return false;
	peer->port = port;

	in_gidx = smartio_port_gidx(ad, port);
	out_gidx = smartio_port_gidx(ad, ad->port);
	if (in_gidx < 0 || out_gidx < 0)
		return false;
	/* Read by other adapters' works (smartio_loopback_to()). */
	WRITE_ONCE(peer->in_spad, in_gidx * SMARTIO_HS_SPADS);
	peer->out_spad = out_gidx * SMARTIO_HS_SPADS;

	/* A node we cannot message cannot join: no hello (logged). */
	if (smartio_msg_chan_open(ad, peer))
		return false;

	peer->state = SMARTIO_PEER_STATE_LINK_UP;
	smartio_peer_report(ad, peer);
	smartio_send_hello(ad, peer, 0);

	return true;
}

/*
 * Is @other, another adapter of this node, the far end of @ad's cable to
 * @peer? Then @peer's hello carries our epoch, and the hello @ad sent it
 * is in @other's scratchpads, which only what is cabled to @other can
 * write. Called with ad->lock and smartio_node_ids_lock held.
 */
static bool smartio_loopback_to(struct smartio_adapter *ad,
				struct smartio_peer *peer, u32 epoch,
				struct smartio_adapter *other)
{
	int pidx, spad;

	if (epoch != smartio_epoch)
		return false;
	/* A read back through our NTB: our hello has landed wherever it went. */
	ntb_peer_spad_read(ad->ntb, peer->pidx,
			   peer->out_spad + SMARTIO_HS_SPAD_MAGIC);
	for (pidx = 0; pidx < other->peer_count; pidx++) {
		spad = READ_ONCE(other->peers[pidx].in_spad);
		if (spad < 0)
			continue;
		if (ntb_spad_read(other->ntb, spad + SMARTIO_HS_SPAD_MAGIC) ==
		    SMARTIO_HS_MAGIC &&
		    ntb_spad_read(other->ntb, spad + SMARTIO_HS_SPAD_NODE) ==
		    ad->node_id &&
		    ntb_spad_read(other->ntb, spad + SMARTIO_HS_SPAD_EPOCH) ==
		    smartio_epoch)
			return true;
	}
	return false;
}

/*
 * Why @peer of @ad, whose hello says it is node @node (epoch @epoch), may
 * not join as it, written into @why where it names others; NULL when it
 * may. Called with ad->lock and smartio_node_ids_lock held.
 */
static const char *smartio_node_id_refusal(struct smartio_adapter *ad,
					   struct smartio_peer *peer, u32 node,
					   u32 epoch, char *why, size_t len)
{
	struct smartio_adapter *other;
	struct smartio_peer *holder;

	if (!node || node > U16_MAX)
		return "is invalid";
	if (!smartio_node_id_valid(node))
		return "is reserved: it addresses every node";
	if (node == ad->node_id)
		return "is ours too (duplicate node id)";
	list_for_each_entry(other, &smartio_adapters, list) {
		if (other != ad && other->node_id == node &&
		    !smartio_loopback_to(ad, peer, epoch, other)) {
			snprintf(why, len, "is ours too, adapter %d's (duplicate node id)",
				 other->index);
			return why;
		}
	}
	other = smartio_node_id_joined(node, &holder);
	if (other) {
		snprintf(why, len, "is held by the node joined through adapter %d port %d (duplicate node id)",
			 other->index, READ_ONCE(holder->port));
		return why;
	}
	return NULL;
}

/*
 * May @peer of @ad join as node @node? If not, says why once per attempt
 * (its epoch and the id it claims) and notes that it is refused, so that
 * it is looked at again when an id is freed. Called with ad->lock and
 * smartio_node_ids_lock held.
 */
static bool smartio_peer_id_free(struct smartio_adapter *ad,
				 struct smartio_peer *peer, u32 node,
				 u32 epoch)
{
	char buf[96];
	const char *why = smartio_node_id_refusal(ad, peer, node, epoch, buf,
						  sizeof(buf));

	if (!why) {
		WRITE_ONCE(peer->refused_node, 0);
		return true;
	}
	if (peer->refused != epoch || peer->refused_node != node)
		dev_err(&ad->ntb->dev, "adapter %d: refusing port %d: its node id %u %s\n",
			ad->index, peer->port, node, why);
	peer->refused = epoch;
	WRITE_ONCE(peer->refused_node, node);
	return false;
}

/* Reads and acts on @peer's hello. Called with ad->lock held. */
static void smartio_peer_hello(struct smartio_adapter *ad,
			       struct smartio_peer *peer)
{
	struct smartio_node_event ev = {};
	struct ntb_dev *ntb = ad->ntb;
	u32 magic, node, epoch, ack, area;

	lockdep_assert_held(&ad->lock);
	magic = ntb_spad_read(ntb, peer->in_spad + SMARTIO_HS_SPAD_MAGIC);
	if (magic != SMARTIO_HS_MAGIC) {
		if ((magic & SMARTIO_HS_MAGIC_MASK) ==
		    (SMARTIO_HS_MAGIC & SMARTIO_HS_MAGIC_MASK) &&
		    peer->refused != magic) {
			dev_err(&ntb->dev, "adapter %d: port %d speaks handshake version %u, not %u\n",
				ad->index, peer->port, magic & 0xffff,
				SMARTIO_HS_MAGIC & 0xffff);
			peer->refused = magic;
		}
		return;
	}
	node = ntb_spad_read(ntb, peer->in_spad + SMARTIO_HS_SPAD_NODE);
	epoch = ntb_spad_read(ntb, peer->in_spad + SMARTIO_HS_SPAD_EPOCH);
	ack = ntb_spad_read(ntb, peer->in_spad + SMARTIO_HS_SPAD_ACK);
	area = ntb_spad_read(ntb, peer->in_spad + SMARTIO_HS_SPAD_AREA);
	if (!epoch)
		return;

	/*
	 * A new instance of the peer, without a link down in between, or a
	 * peer that lost us (it saw a link down we did not): its session has
	 * ended, what it had in flight is lost.
	 */
	if (peer->state == SMARTIO_PEER_STATE_JOINED &&
	    (epoch != peer->epoch || ack != smartio_epoch))
		smartio_peer_leave(ad, peer, SMARTIO_PEER_STATE_LINK_UP);
	/* Without its receive area, a peer can be neither answered nor joined. */
	if (smartio_msg_chan_locate(ad, peer,
				    FIELD_GET(SMARTIO_HS_AREA_WINDOW, area),
				    (u64)FIELD_GET(SMARTIO_HS_AREA_OFFSET, area) <<
				    SMARTIO_HS_AREA_SHIFT)) {
		if (peer->state == SMARTIO_PEER_STATE_JOINED)
			smartio_peer_leave(ad, peer, SMARTIO_PEER_STATE_LINK_UP);
		return;
	}
	peer->epoch = epoch;

	/* A joined peer keeps the id it joined as, whatever it says now. */
	if (peer->state == SMARTIO_PEER_STATE_JOINED) {
		if (epoch != peer->acked || ack != smartio_epoch)
			smartio_send_hello(ad, peer, epoch);
		return;
	}

	/*
	 * The id is checked, the hello answered and the id claimed in one
	 * critical section: no other adapter's peer can take it meanwhile.
	 * A refused peer is not answered, so it does not join us either; an
	 * answer it had (its id was free then) is taken back, and a peer
	 * that joined on it leaves.
	 */
	mutex_lock(&smartio_node_ids_lock);
	if (!smartio_peer_id_free(ad, peer, node, epoch)) {
		if (peer->acked == epoch)
			smartio_send_hello(ad, peer, 0);
		goto unlock;
	}
	/*
	 * Answer a hello we have not acknowledged yet, and one that does not
	 * know us (the peer went through a link down we did not see).
	 */
	if (epoch != peer->acked || ack != smartio_epoch)
		smartio_send_hello(ad, peer, epoch);
	if (ack != smartio_epoch)
		goto unlock;

	WRITE_ONCE(peer->session, ++smartio_session_last);
	smartio_reach_learn(ad, peer);
	smartio_msg_chan_up(peer);
	peer->state = SMARTIO_PEER_STATE_JOINED;
	queue_delayed_work(system_wq, &ad->heartbeat, SMARTIO_HEARTBEAT);
	/* Who finds the node by its id finds what it reaches (window.c). */
	smp_wmb();
	WRITE_ONCE(peer->node_id, node);
	mutex_unlock(&smartio_node_ids_lock);
	smartio_peer_report(ad, peer);
	pr_info("adapter %d: node %u joined (port %d)\n", ad->index, node,
		peer->port);
	/* Told now that its id finds it: smartio_node_session() does. */
	ev.node_id = node;
	ev.session = peer->session;
	blocking_notifier_call_chain(&smartio_node_notifiers,
				     SMARTIO_NODE_JOINED, &ev);
	return;

unlock:
	mutex_unlock(&smartio_node_ids_lock);
}

static void smartio_adapter_work(struct work_struct *work)
{
	struct smartio_adapter *ad = container_of(work, struct smartio_adapter,
						  work);
	struct ntb_dev *ntb = ad->ntb;
	u64 link;
	int pidx;

	/* Clear first: a hello that arrives after this rings again. */
	if (ntb_db_read(ntb) & SMARTIO_DB_HANDSHAKE)
		ntb_db_clear(ntb, SMARTIO_DB_HANDSHAKE);

	link = ntb_link_is_up(ntb, NULL, NULL);

	mutex_lock(&ad->lock);
	for (pidx = 0; pidx < ad->peer_count; pidx++) {
		struct smartio_peer *peer = &ad->peers[pidx];

		if (!(link & BIT_ULL(pidx))) {
			smartio_peer_down(ad, peer);
			continue;
		}
		if (smartio_peer_up(ad, peer))
			smartio_peer_hello(ad, peer);
	}
	mutex_unlock(&ad->lock);
}

/* NTB callbacks: atomic context, so they only hand over to the work. */
static void smartio_link_event(void *ctx)
{
	struct smartio_adapter *ad = ctx;

	schedule_work(&ad->work);
}

static void smartio_db_event(void *ctx, int vector)
{
	struct smartio_adapter *ad = ctx;
	u64 bits = ntb_db_vector_mask(ad->ntb, vector);

	if (bits & SMARTIO_DB_HANDSHAKE)
		schedule_work(&ad->work);
	if (bits & SMARTIO_DB_MSG)
		queue_work(system_highpri_wq, &ad->msg_work);
}

static const struct ntb_ctx_ops smartio_ctx_ops = {
	.link_event = smartio_link_event,
	.db_event = smartio_db_event,
};

/*
 * The node id adapter @index on port @port is to have: its node_id
 * parameter, else its port + 1 (0 if the port is unknown). Not checked.
 */
static u32 smartio_node_id(int index, int port)
{
	if (index < node_id_count && node_id[index])
		return node_id[index];
	return port < 0 ? 0 : port + 1;
}

/**
 * smartio_node_peer() - Find the peer that is a node.
 * @node_id: Node id, not 0.
 * @adp: Set to the peer's adapter.
 *
 * Context: Under srcu_read_lock(&smartio_adapters_srcu), which keeps the
 * adapter and peer alive; the peer may leave at any time.
 * Return: The peer that joined as @node_id, or NULL.
 */
struct smartio_peer *smartio_node_peer(u16 node_id,
				       struct smartio_adapter **adp)
{
	struct smartio_adapter *ad;
	int pidx;

	list_for_each_entry_srcu(ad, &smartio_adapters, list,
				 srcu_read_lock_held(&smartio_adapters_srcu)) {
		for (pidx = 0; pidx < ad->peer_count; pidx++) {
			if (READ_ONCE(ad->peers[pidx].node_id) == node_id) {
				*adp = ad;
				return &ad->peers[pidx];
			}
		}
	}
	return NULL;
}

/**
 * smartio_node_notifier_register() - Be told when nodes join and leave.
 * @nb: Called with SMARTIO_NODE_LEFT and a struct smartio_node_event
 *	(valid during the call: the node and the session it left) from the
 *	NTB layer's link handling, with an adapter's lock held: it must not
 *	wait for the NTB layer; queue work instead. The node's messaging
 *	channel is down already (smartio_node_session() finds it no more).
 *	Called with SMARTIO_NODE_JOINED and the event (the node and the
 *	session it joined in) from the same link handling, with the same
 *	lock held and the same constraints, once the node is joined:
 *	smartio_node_session() finds it. Its SMARTIO_NODE_LEFT for that
 *	session comes after this call.
 *	Called with SMARTIO_NODE_LEAVING and the same event, with no lock
 *	held, when an adapter is being removed, for each node joined through
 *	it, before this node tells it that it leaves: the node still answers
 *	messages, and the notifier undoes in order, before it returns, what
 *	it set up with the node (a borrowed device is returned, its driver
 *	shutting it down). SMARTIO_NODE_LEFT follows, as for any node.
 *	Called with SMARTIO_ADAPTER_GONE (no data, no lock held) when an
 *	adapter is removed, after each node reached through it was told
 *	SMARTIO_NODE_LEFT: the notifier finishes the work it queued for
 *	them before it returns, for the adapter's NTB and windows go next.
 *
 * Return: 0.
 */
int smartio_node_notifier_register(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&smartio_node_notifiers, nb);
}
EXPORT_SYMBOL_GPL(smartio_node_notifier_register);

/**
 * smartio_node_notifier_unregister() - Undo smartio_node_notifier_register().
 * @nb: The notifier block.
 */
void smartio_node_notifier_unregister(struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&smartio_node_notifiers, nb);
}
EXPORT_SYMBOL_GPL(smartio_node_notifier_unregister);

/**
 * smartio_node_session() - The session a node is joined in.
 * @node_id: The node.
 *
 * What is set up with a node is noted with the session it is set up in,
 * so that when the node leaves (struct smartio_node_event) only what is
 * of that session or an earlier one is undone. Once this has returned a
 * session, the node's leaving that session is notified after it.
 *
 * Return: The session, never 0; 0 when @node_id is not joined (or is
 * leaving: its messaging channel is down).
 */
u32 smartio_node_session(u16 node_id)
{
	struct smartio_adapter *ad;
	struct smartio_peer *peer;
	u32 session = 0;
	int idx;

	if (!node_id)
		return 0;
	idx = srcu_read_lock(&smartio_adapters_srcu);
	peer = smartio_node_peer(node_id, &ad);
	if (peer) {
		/* Written before the node id when it joined. */
		smp_rmb();
		spin_lock_irq(&peer->chan.lock);
		if (peer->chan.up)
			session = READ_ONCE(peer->session);
		spin_unlock_irq(&peer->chan.lock);
	}
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	return session;
}
EXPORT_SYMBOL_GPL(smartio_node_session);

/**
 * smartio_local_node_id() - This node's id, for naming what it owns.
 *
 * A node has one node id per adapter; the first adapter's names the
 * node's devices (fabric device ids) cluster-wide. A node whose adapters
 * all went (an NTB driver unbound or unloaded) keeps the id the last one
 * had: it still lists and manages its own devices under it.
 *
 * Return: The first adapter's node id, the last adapter's when there is
 * none any more, or 0 when there never was one.
 */
u16 smartio_local_node_id(void)
{
	struct smartio_adapter *ad;
	u16 node_id;
	int idx;

	idx = srcu_read_lock(&smartio_adapters_srcu);
	ad = list_first_or_null_rcu(&smartio_adapters, struct smartio_adapter,
				    list);
	node_id = ad ? READ_ONCE(ad->node_id) : READ_ONCE(smartio_kept_node_id);
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	return node_id;
}
EXPORT_SYMBOL_GPL(smartio_local_node_id);

/**
 * smartio_node_next() - Walk the joined nodes in order of node id.
 * @after: 0 to start, else the node id returned last.
 *
 * Return: The lowest node id above @after of a joined peer of any
 * adapter, or 0 when there is none.
 */
u16 smartio_node_next(u16 after)
{
	struct smartio_adapter *ad;
	u16 node_id, next = 0;
	int idx, pidx;

	idx = srcu_read_lock(&smartio_adapters_srcu);
	list_for_each_entry_srcu(ad, &smartio_adapters, list,
				 srcu_read_lock_held(&smartio_adapters_srcu)) {
		for (pidx = 0; pidx < ad->peer_count; pidx++) {
			node_id = READ_ONCE(ad->peers[pidx].node_id);
			if (node_id > after && (!next || node_id < next))
				next = node_id;
		}
	}
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	return next;
}
EXPORT_SYMBOL_GPL(smartio_node_next);

/**
 * smartio_pci_dev_is_adapter() - Is a PCI function one of our NTBs?
 * @pdev: The function.
 *
 * Return: true when an adapter drives @pdev.
 */
bool smartio_pci_dev_is_adapter(struct pci_dev *pdev)
{
	struct smartio_adapter *ad;
	bool found = false;
	int idx;

	idx = srcu_read_lock(&smartio_adapters_srcu);
	list_for_each_entry_srcu(ad, &smartio_adapters, list,
				 srcu_read_lock_held(&smartio_adapters_srcu))
		if (ad->ntb->pdev == pdev)
			found = true;
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	return found;
}
EXPORT_SYMBOL_GPL(smartio_pci_dev_is_adapter);

/* Core op: a new own node id, while no peer is joined. */
static int smartio_fabric_set_node_id(struct smartio_fabric_adapter *fa,
				      u16 node_id,
				      struct netlink_ext_ack *extack)
{
	struct smartio_adapter *ad = container_of(fa, struct smartio_adapter,
						  fabric);
	struct smartio_peer *holder;
	int pidx, ret = 0;

	mutex_lock(&ad->lock);
	for (pidx = 0; pidx < ad->peer_count; pidx++) {
		if (ad->peers[pidx].state == SMARTIO_PEER_STATE_JOINED) {
			NL_SET_ERR_MSG(extack,
				       "a node is joined through this adapter; its node id can change only while none is");
			ret = -EBUSY;
			goto unlock;
		}
	}
	if (node_id == ad->node_id)
		goto unlock;
	if (!smartio_node_id_valid(node_id)) {
		NL_SET_ERR_MSG(extack, "node id 65535 is reserved: it addresses every node");
		ret = -EINVAL;
		goto unlock;
	}

	mutex_lock(&smartio_node_ids_lock);
	if (smartio_node_id_joined(node_id, &holder)) {
		mutex_unlock(&smartio_node_ids_lock);
		NL_SET_ERR_MSG(extack, "a node joined through another adapter has this id");
		ret = -EADDRINUSE;
		goto unlock;
	}
	dev_info(&ad->ntb->dev, "adapter %d: node id %u, was %u\n", ad->index,
		 node_id, ad->node_id);
	ad->node_id = node_id;
	/* Peers of other adapters refused for our old id may join now. */
	smartio_node_ids_freed();
	mutex_unlock(&smartio_node_ids_lock);
	smartio_fabric_node_id_set(fa, node_id);

	/* Peers refused for a duplicate id try again, on both sides. */
	for (pidx = 0; pidx < ad->peer_count; pidx++) {
		struct smartio_peer *peer = &ad->peers[pidx];

		if (peer->state != SMARTIO_PEER_STATE_LINK_UP)
			continue;
		peer->refused = 0;
		smartio_send_hello(ad, peer, peer->acked);
	}
	schedule_work(&ad->work);
unlock:
	mutex_unlock(&ad->lock);
	return ret;
}

/* Core op: one echo round trip. */
static int smartio_fabric_ping(struct smartio_fabric_adapter *fa, u16 node_id,
			       const void *buf, u32 len, void *echo)
{
	struct smartio_adapter *ad = container_of(fa, struct smartio_adapter,
						  fabric);
	u32 echo_len = 0;
	int pidx, ret;

	for (pidx = 0; pidx < ad->peer_count; pidx++)
		if (READ_ONCE(ad->peers[pidx].node_id) == node_id)
			break;
	if (pidx == ad->peer_count)
		return -EHOSTUNREACH;

	ret = smartio_msg_call_peer(ad, &ad->peers[pidx], SMARTIO_MSG_OP_ECHO,
				    buf, len, echo, len, &echo_len,
				    SMARTIO_PING_TIMEOUT);
	if (!ret && echo_len != len)
		ret = -EBADMSG;
	return ret;
}

static const struct smartio_fabric_adapter_ops smartio_fabric_ops = {
	.set_node_id = smartio_fabric_set_node_id,
	.ping = smartio_fabric_ping,
};

/*
 * Lists @ad among the adapters, with its own node id, unless a node
 * joined through another adapter holds that id.
 */
static int smartio_adapter_list(struct smartio_adapter *ad)
{
	struct smartio_adapter *other;
	struct smartio_peer *holder;
	int ret = 0;

	mutex_lock(&smartio_adapters_lock);
	mutex_lock(&smartio_node_ids_lock);
	other = smartio_node_id_joined(ad->node_id, &holder);
	if (other) {
		dev_err(&ad->ntb->dev, "adapter %d: node id %u is held by the node joined through adapter %d port %d; set node_id\n",
			ad->index, ad->node_id, other->index,
			READ_ONCE(holder->port));
		ret = -EADDRINUSE;
	} else {
		list_add_tail_rcu(&ad->list, &smartio_adapters);
	}
	mutex_unlock(&smartio_node_ids_lock);
	mutex_unlock(&smartio_adapters_lock);
	return ret;
}

/*
 * Undoes smartio_adapter_list(): its node id is free again. The last
 * adapter's id stays the node's (smartio_local_node_id()).
 */
static void smartio_adapter_unlist(struct smartio_adapter *ad)
{
	mutex_lock(&smartio_adapters_lock);
	mutex_lock(&smartio_node_ids_lock);
	if (list_is_singular(&smartio_adapters))
		WRITE_ONCE(smartio_kept_node_id, ad->node_id);
	list_del_rcu(&ad->list);
	smartio_node_ids_freed();
	mutex_unlock(&smartio_node_ids_lock);
	mutex_unlock(&smartio_adapters_lock);
	synchronize_srcu(&smartio_adapters_srcu);
}

static void smartio_chans_exit(struct smartio_adapter *ad, int count)
{
	while (count--)
		smartio_msg_chan_exit(ad, &ad->peers[count]);
}

static void smartio_adapter_release(struct kref *ref)
{
	struct smartio_adapter *ad = container_of(ref, struct smartio_adapter,
						  ref);

	smartio_windows_free(ad);
	mutex_destroy(&ad->lock);
	kfree(ad->fabric_peers);
	kfree(ad);
}

/**
 * smartio_adapter_get() - Hold an adapter for a user of its windows.
 * @ad: The adapter, held by the caller already (listed, or referenced).
 */
void smartio_adapter_get(struct smartio_adapter *ad)
{
	kref_get(&ad->ref);
}

/**
 * smartio_adapter_put() - Undo smartio_adapter_get().
 * @ad: The adapter; freed with its last reference, after its removal.
 */
void smartio_adapter_put(struct smartio_adapter *ad)
{
	kref_put(&ad->ref, smartio_adapter_release);
}

static int smartio_probe(struct ntb_client *client, struct ntb_dev *ntb)
{
	struct device *dev = &ntb->dev;
	struct smartio_adapter *ad;
	int pcnt, spads, pidx, ret;
	u32 id;

	pcnt = ntb_peer_port_count(ntb);
	if (pcnt < 1) {
		dev_err(dev, "no peer ports\n");
		return -ENODEV;
	}
	spads = ntb_spad_count(ntb);
	if (spads < (pcnt + 1) * SMARTIO_HS_SPADS ||
	    (ntb_db_valid_mask(ntb) & SMARTIO_DB_USED) != SMARTIO_DB_USED) {
		dev_err(dev, "%d scratchpads and doorbells %#llx: need %d and bits 0-1\n",
			spads, ntb_db_valid_mask(ntb),
			(pcnt + 1) * SMARTIO_HS_SPADS);
		return -ENODEV;
	}
	if (ntb_spad_is_unsafe(ntb))
		dev_warn(dev, "scratchpads are unsafe on this NTB\n");

	ad = kzalloc(struct_size(ad, peers, pcnt), GFP_KERNEL);
	if (!ad)
		return -ENOMEM;
	kref_init(&ad->ref);
	mutex_init(&ad->lock);
	ad->fabric_peers = kcalloc(pcnt, sizeof(*ad->fabric_peers),
				   GFP_KERNEL);
	if (!ad->fabric_peers) {
		ret = -ENOMEM;
		goto err_put;
	}
	ad->ntb = ntb;
	ad->peer_count = pcnt;
	ad->port = ntb_port_number(ntb);
	INIT_WORK(&ad->work, smartio_adapter_work);
	INIT_WORK(&ad->msg_work, smartio_msg_work);
	INIT_DELAYED_WORK(&ad->heartbeat, smartio_heartbeat_work);
	for (pidx = 0; pidx < pcnt; pidx++) {
		struct smartio_peer *peer = &ad->peers[pidx];

		peer->pidx = pidx;
		peer->port = ntb_peer_port_number(ntb, pidx);
		if (peer->port < 0)
			peer->port = -1;
		peer->in_spad = -1;
		peer->msi_widx = -1;
		smartio_msg_chan_init(peer);
		ad->fabric_peers[pidx].port = peer->port < 0 ?
			SMARTIO_FABRIC_PORT_UNKNOWN : peer->port;
	}

	ret = ida_alloc(&smartio_adapter_ida, GFP_KERNEL);
	if (ret < 0)
		goto err_chans_only;
	ad->index = ret;

	id = smartio_node_id(ad->index, ad->port);
	if (!smartio_node_id_valid(id)) {
		dev_err(dev, "adapter %d: node id %u is not one a node may have (1..65534; 65535 addresses every node): set node_id\n",
			ad->index, id);
		ret = -EINVAL;
		goto err_chans;
	}
	ad->node_id = id;

	ret = smartio_requesters_init(ad);
	if (ret)
		goto err_chans;
	ret = smartio_windows_init(ad);
	if (ret)
		goto err_requesters;
	ret = smartio_iova_window_create(ad);
	if (ret)
		goto err_windows;

	ad->fabric.ops = &smartio_fabric_ops;
	ad->fabric.index = ad->index;
	ad->fabric.port = ad->port;
	strscpy(ad->fabric.pci_name, pci_name(ntb->pdev),
		sizeof(ad->fabric.pci_name));
	ad->fabric.peer_count = pcnt;
	ad->fabric.peers = ad->fabric_peers;
	ad->fabric.node_id = ad->node_id;
	ret = smartio_fabric_adapter_add(&ad->fabric);
	if (ret)
		goto err_windows;

	ret = ntb_set_ctx(ntb, ad, &smartio_ctx_ops);
	if (ret)
		goto err_fabric;

	ret = smartio_adapter_list(ad);
	if (ret)
		goto err_ctx;

	ret = ntb_db_clear_mask(ntb, SMARTIO_DB_USED);
	if (ret)
		goto err_unlist;
	ret = ntb_link_enable(ntb, NTB_SPEED_AUTO, NTB_WIDTH_AUTO);
	if (ret)
		goto err_mask;

	dev_info(dev, "adapter %d: port %d, node %u, %d peer port%s\n",
		 ad->index, ad->port, ad->node_id, pcnt, pcnt == 1 ? "" : "s");

	/* The link may be up and a hello waiting already. */
	schedule_work(&ad->work);

	return 0;

err_mask:
	ntb_db_set_mask(ntb, SMARTIO_DB_USED);
err_unlist:
	smartio_adapter_unlist(ad);
err_ctx:
	ntb_clear_ctx(ntb);
	cancel_work_sync(&ad->work);
	/* The heartbeat queues msg_work (msg.c): cancel it first. */
	cancel_delayed_work_sync(&ad->heartbeat);
	cancel_work_sync(&ad->msg_work);
err_fabric:
	smartio_fabric_adapter_del(&ad->fabric);
err_windows:
	smartio_iova_window_destroy(ad);
	smartio_windows_exit(ad);
err_requesters:
	smartio_requesters_exit(ad);
err_chans:
	ida_free(&smartio_adapter_ida, ad->index);
err_chans_only:
	smartio_chans_exit(ad, pcnt);
err_put:
	smartio_adapter_put(ad);
	return ret;
}

/* How long a leaving node waits for its peers to read that it leaves. */
#define SMARTIO_LEAVE_TIMEOUT_MS	5000

/*
 * Tells every joined peer that we leave, and waits (at most
 * SMARTIO_LEAVE_TIMEOUT_MS) until each has read it and so writes nothing
 * more into our memory, then acks what each sent before (msg.c,
 * "Leaving"): our link may go down then without dropping a write of
 * theirs or ours.
 */
static void smartio_peers_leave(struct smartio_adapter *ad)
{
	unsigned long deadline = jiffies +
				 msecs_to_jiffies(SMARTIO_LEAVE_TIMEOUT_MS);
	unsigned long *told;
	int pidx, waiting;
	u32 *ack;

	ack = kcalloc(ad->peer_count, sizeof(*ack), GFP_KERNEL);
	told = bitmap_zalloc(ad->peer_count, GFP_KERNEL);
	if (!ack || !told)
		goto out;
	mutex_lock(&ad->lock);
	for (pidx = 0; pidx < ad->peer_count; pidx++)
		if (ad->peers[pidx].state == SMARTIO_PEER_STATE_JOINED &&
		    !smartio_msg_chan_leave(ad, &ad->peers[pidx], &ack[pidx]))
			__set_bit(pidx, told);
	mutex_unlock(&ad->lock);

	do {
		waiting = 0;
		for_each_set_bit(pidx, told, ad->peer_count) {
			if (smartio_msg_chan_left(&ad->peers[pidx], ack[pidx])) {
				smartio_msg_chan_drain(ad, &ad->peers[pidx]);
				__clear_bit(pidx, told);
			} else {
				waiting++;
			}
		}
		if (waiting)
			usleep_range(500, 1000);
	} while (waiting && time_before(jiffies, deadline));

	for_each_set_bit(pidx, told, ad->peer_count)
		dev_info(&ad->ntb->dev, "adapter %d: node %u did not read that we leave within %d ms\n",
			 ad->index, ad->peers[pidx].node_id,
			 SMARTIO_LEAVE_TIMEOUT_MS);
out:
	bitmap_free(told);
	kfree(ack);
}

/*
 * The adapter is being removed, on purpose: tell the node notifiers of
 * each peer joined through it (SMARTIO_NODE_LEAVING) while the link is up
 * and the peer answers, so that what they set up with it is undone in
 * order, as an unbind of a bridge removes the devices below it with their
 * drivers' remove, not as surprise removals: a borrowed device is
 * returned, and its driver writes no doorbell into a window whose link is
 * down (lend-unbind, borrower-unbind). Without ad->lock: the notifiers
 * message the peers. A peer that joins meanwhile is left as any peer is,
 * at the link down.
 */
static void smartio_peers_leaving(struct smartio_adapter *ad)
{
	struct smartio_node_event *evs;
	int pidx, n = 0;

	evs = kcalloc(ad->peer_count, sizeof(*evs), GFP_KERNEL);
	if (!evs)
		return;
	mutex_lock(&ad->lock);
	for (pidx = 0; pidx < ad->peer_count; pidx++) {
		struct smartio_peer *peer = &ad->peers[pidx];

		if (peer->state != SMARTIO_PEER_STATE_JOINED)
			continue;
		evs[n].node_id = peer->node_id;
		evs[n].session = peer->session;
		n++;
	}
	mutex_unlock(&ad->lock);
	for (pidx = 0; pidx < n; pidx++)
		blocking_notifier_call_chain(&smartio_node_notifiers,
					     SMARTIO_NODE_LEAVING, &evs[pidx]);
	kfree(evs);
}

static void smartio_remove(struct ntb_client *client, struct ntb_dev *ntb)
{
	struct smartio_adapter *ad = ntb->ctx;
	int pidx;

	/* While our callbacks still run: the notifiers message the peers. */
	smartio_peers_leaving(ad);
	/*
	 * No callback runs after this, nor does another adapter kick our
	 * work (smartio_node_ids_freed()), so nothing queues the works again.
	 */
	ntb_clear_ctx(ntb);
	mutex_lock(&smartio_node_ids_lock);
	ad->gone = true;
	mutex_unlock(&smartio_node_ids_lock);
	cancel_work_sync(&ad->work);

	smartio_peers_leave(ad);
	/*
	 * Revoke the mappings of the peers' segments while the link is up: a
	 * process may store into one until then, and a store that met the
	 * link going down would be dropped, lost before its SIGBUS.
	 */
	mutex_lock(&ad->lock);
	for (pidx = 0; pidx < ad->peer_count; pidx++)
		if (ad->peers[pidx].state == SMARTIO_PEER_STATE_JOINED)
			smartio_segment_peer_left(ad, &ad->peers[pidx]);
	mutex_unlock(&ad->lock);
	ntb_db_set_mask(ntb, SMARTIO_DB_USED);
	ntb_link_disable(ntb);

	/* Fails every pending request: their callers return now. */
	mutex_lock(&ad->lock);
	for (pidx = 0; pidx < ad->peer_count; pidx++)
		smartio_peer_down(ad, &ad->peers[pidx]);
	mutex_unlock(&ad->lock);
	/* With no peer joined, and none to join, it queues itself no more. */
	cancel_delayed_work_sync(&ad->heartbeat);
	/*
	 * Its nodes' leaving was notified with our lock held, so their users
	 * queued their teardown: they finish it now, while the NTB and its
	 * windows are still there (a borrowed device's shadow is removed, a
	 * lent one taken back).
	 */
	blocking_notifier_call_chain(&smartio_node_notifiers,
				     SMARTIO_ADAPTER_GONE, NULL);

	smartio_fabric_adapter_del(&ad->fabric);
	smartio_adapter_unlist(ad);

	cancel_work_sync(&ad->msg_work);
	smartio_segment_adapter_gone(ad);
	smartio_requesters_exit(ad);
	smartio_iova_window_destroy(ad);
	smartio_windows_exit(ad);
	smartio_chans_exit(ad, ad->peer_count);
	ida_free(&smartio_adapter_ida, ad->index);
	/* Users that still map through it hold it; its NTB is not theirs. */
	smartio_adapter_put(ad);
}

static struct ntb_client smartio_ntb_client = {
	.ops = {
		.probe = smartio_probe,
		.remove = smartio_remove,
	},
};

static int smartio_adapters_show(struct seq_file *s, void *unused)
{
	struct smartio_adapter *ad;
	int pidx;

	mutex_lock(&smartio_adapters_lock);
	list_for_each_entry(ad, &smartio_adapters, list) {
		mutex_lock(&ad->lock);
		seq_printf(s, "adapter %d port %d node %u pci %s\n", ad->index,
			   ad->port, ad->node_id, pci_name(ad->ntb->pdev));
		for (pidx = 0; pidx < ad->peer_count; pidx++) {
			struct smartio_peer *peer = &ad->peers[pidx];

			seq_printf(s, "  peer %d port %d node %u %s\n", pidx,
				   peer->port, peer->node_id,
				   smartio_peer_state_names[peer->state]);
			smartio_msg_chan_show(s, &peer->chan);
			smartio_reach_show(s, peer);
		}
		mutex_unlock(&ad->lock);
		smartio_windows_show(s, ad);
		smartio_iova_window_show(s, ad);
	}
	mutex_unlock(&smartio_adapters_lock);

	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smartio_adapters);

static int __init smartio_ntb_init(void)
{
	int ret;

	do {
		smartio_epoch = get_random_u32();
	} while (!smartio_epoch);
	smartio_msg_init();
	ret = smartio_segment_init();
	if (ret)
		return ret;

	smartio_debugfs = debugfs_create_dir("smartio", NULL);
	debugfs_create_file("adapters", 0444, smartio_debugfs, NULL,
			    &smartio_adapters_fops);
	smartio_requesters_debugfs(smartio_debugfs);
	smartio_test_debugfs(smartio_debugfs);

	ret = ntb_register_client(&smartio_ntb_client);
	if (ret)
		goto err_debugfs;

	return 0;

err_debugfs:
	debugfs_remove_recursive(smartio_debugfs);
	smartio_segment_exit();
	return ret;
}

static void __exit smartio_ntb_exit(void)
{
	ntb_unregister_client(&smartio_ntb_client);
	debugfs_remove_recursive(smartio_debugfs);
	smartio_segment_exit();
}

module_init(smartio_ntb_init);
module_exit(smartio_ntb_exit);

MODULE_DESCRIPTION("smartio NTB layer: adapters, node ids, messaging, windows and segments");
MODULE_LICENSE("GPL");
MODULE_VERSION(SMARTIO_VERSION);
