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
 *	JOINED   the peer is a node of the cluster: its node id is known.
 *
 * Until smartio has its netlink interface, the adapters and their peers are
 * shown in debugfs, in <debugfs>/smartio/adapters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/ntb.h>
#include <linux/overflow.h>
#include <linux/pci.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>

#include "smartio/version.h"

/*
 * Handshake wire protocol (version 1)
 * ===================================
 *
 * Scratchpads. Every port of the NTB has a global index g: the rank of its
 * port number among the port numbers of all ports of the NTB (its own and
 * its peers'), as ntb_perf numbers them; on a two-port NTB the lower port
 * is 0 and the higher 1. A port writes its hello into block g of each
 * peer's scratchpads, with ntb_peer_spad_write(), so that on a multi-port
 * NTB each peer's hello has a block of its own:
 *
 *	SPAD(4g + 0)	SMARTIO_HS_MAGIC: 0x534d ("SM") << 16 | version (1)
 *	SPAD(4g + 1)	the sender's node id (1..0xffff; upper 16 bits 0)
 *	SPAD(4g + 2)	the sender's boot epoch: a random non-zero u32 drawn
 *			at module load, so that a restarted peer is new
 *	SPAD(4g + 3)	ack: the receiver's epoch as the sender last read it
 *			from the receiver's hello, 0 if none
 *
 * The magic is written last: a block with a valid magic is complete. Then
 * the sender rings doorbell bit 0 of the peer (SMARTIO_DB_HANDSHAKE). Bit 0
 * is reserved for the handshake; the higher doorbell bits belong to
 * smartio's messaging.
 *
 * A port sends its hello to a peer when the link to it comes up (ack 0),
 * and again whenever it reads from that peer a hello whose epoch is not the
 * one it last acknowledged or whose ack is not its own epoch (the peer saw a
 * link down this port missed). It considers the peer JOINED once it reads a
 * valid hello that acknowledges its own epoch: so stale scratchpads (a
 * hello left by a previous instance of the peer) never make a node join,
 * and the handshake ends once each side holds the other's hello carrying
 * its own epoch (three hellos when one side starts), whichever side starts
 * and in whichever order both load. The handshake is re-run from the link-
 * up path as well, in case the doorbell came before this side listened.
 *
 * When the link to a peer goes down, the peer is DOWN and its block of our
 * scratchpads is stale: it is cleared. A peer whose hello carries our own
 * node id is refused (an error is logged) and stays LINK_UP.
 */
#define SMARTIO_HS_MAGIC	0x534d0001
#define SMARTIO_HS_MAGIC_MASK	0xffff0000
#define SMARTIO_HS_SPAD_MAGIC	0
#define SMARTIO_HS_SPAD_NODE	1
#define SMARTIO_HS_SPAD_EPOCH	2
#define SMARTIO_HS_SPAD_ACK	3
#define SMARTIO_HS_SPADS	4
#define SMARTIO_DB_HANDSHAKE	BIT_ULL(0)

/* Adapters whose node id the node_id parameter can set. */
#define SMARTIO_MAX_PARAM_ADAPTERS	16

static ushort node_id[SMARTIO_MAX_PARAM_ADAPTERS];
static int node_id_count;
module_param_array(node_id, ushort, &node_id_count, 0444);
MODULE_PARM_DESC(node_id,
		 "Node id of each adapter in probe order, 1..65535 (0 or absent: own port number + 1)");

enum smartio_peer_state {
	SMARTIO_PEER_DOWN,
	SMARTIO_PEER_LINK_UP,
	SMARTIO_PEER_JOINED,
};

static const char * const smartio_peer_state_names[] = {
	[SMARTIO_PEER_DOWN] = "down",
	[SMARTIO_PEER_LINK_UP] = "link-up",
	[SMARTIO_PEER_JOINED] = "joined",
};

/**
 * struct smartio_peer - A peer port reachable through an adapter.
 * @pidx: Peer index in the NTB API.
 * @port: Peer's port number, -1 while unknown.
 * @state: DOWN, LINK_UP or JOINED.
 * @node_id: Peer's node id while JOINED, else 0.
 * @epoch: Epoch of the last valid hello read from the peer, 0 if none.
 * @acked: Epoch the last hello sent to the peer acknowledged.
 * @refused: Epoch of the last hello refused (error logged once each).
 * @in_spad: First scratchpad of our own the peer writes, -1 while unknown.
 * @out_spad: First scratchpad of the peer's this side writes.
 *
 * Every field but @pidx is protected by the adapter's @lock.
 */
struct smartio_peer {
	int pidx;
	int port;
	enum smartio_peer_state state;
	u16 node_id;
	u32 epoch;
	u32 acked;
	u32 refused;
	int in_spad;
	int out_spad;
};

/**
 * struct smartio_adapter - smartio's view of one NTB device.
 * @list: Entry in smartio_adapters, protected by smartio_adapters_lock.
 * @index: Adapter number, 0, 1, ... in probe order (lowest free).
 * @ntb: The NTB device.
 * @port: Own port number.
 * @node_id: Own node id.
 * @work: Runs the handshake and link tracking (NTB callbacks are atomic).
 * @lock: Protects the fields of @peers.
 * @peer_count: Number of peers, ntb_peer_port_count(); fixed at probe.
 * @peers: The peers, indexed by pidx.
 *
 * Allocated with devm_ on the NTB client device: freed after remove. All
 * fields but @list and @peers are set at probe and read-only after.
 */
struct smartio_adapter {
	struct list_head list;
	int index;
	struct ntb_dev *ntb;
	int port;
	u16 node_id;
	struct work_struct work;
	struct mutex lock;
	int peer_count;
	struct smartio_peer peers[];
};

/* Read-only after module init. */
static u32 smartio_epoch;
static struct dentry *smartio_debugfs;

static DEFINE_IDA(smartio_adapter_ida);
/* Protects smartio_adapters; taken before any adapter's lock. */
static DEFINE_MUTEX(smartio_adapters_lock);
static LIST_HEAD(smartio_adapters);

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

/* Sends our hello to @peer. Called with ad->lock held. */
static void smartio_send_hello(struct smartio_adapter *ad,
			       struct smartio_peer *peer, u32 ack)
{
	struct ntb_dev *ntb = ad->ntb;
	int base = peer->out_spad;

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

static void smartio_peer_leave(struct smartio_adapter *ad,
			       struct smartio_peer *peer,
			       enum smartio_peer_state state)
{
	if (peer->state == SMARTIO_PEER_JOINED)
		pr_info("adapter %d: node %u left\n", ad->index, peer->node_id);
	peer->state = state;
	peer->node_id = 0;
}

/* The link to @peer is down. Called with ad->lock held. */
static void smartio_peer_down(struct smartio_adapter *ad,
			      struct smartio_peer *peer)
{
	if (peer->state == SMARTIO_PEER_DOWN)
		return;
	smartio_peer_leave(ad, peer, SMARTIO_PEER_DOWN);
	peer->epoch = 0;
	peer->acked = 0;
	peer->refused = 0;
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

	if (peer->state != SMARTIO_PEER_DOWN)
		return true;

	port = ntb_peer_port_number(ntb, peer->pidx);
	if (port < 0)
		return false;
	peer->port = port;

	in_gidx = smartio_port_gidx(ad, port);
	out_gidx = smartio_port_gidx(ad, ad->port);
	if (in_gidx < 0 || out_gidx < 0)
		return false;
	peer->in_spad = in_gidx * SMARTIO_HS_SPADS;
	peer->out_spad = out_gidx * SMARTIO_HS_SPADS;

	peer->state = SMARTIO_PEER_LINK_UP;
	smartio_send_hello(ad, peer, 0);

	return true;
}

/* Reads and acts on @peer's hello. Called with ad->lock held. */
static void smartio_peer_hello(struct smartio_adapter *ad,
			       struct smartio_peer *peer)
{
	struct ntb_dev *ntb = ad->ntb;
	u32 magic, node, epoch, ack;

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
	if (!epoch)
		return;

	/* A new instance of the peer, without a link down in between. */
	if (peer->state == SMARTIO_PEER_JOINED && epoch != peer->epoch)
		smartio_peer_leave(ad, peer, SMARTIO_PEER_LINK_UP);
	peer->epoch = epoch;

	/*
	 * Answer a hello we have not acknowledged yet, and one that does not
	 * know us (the peer went through a link down we did not see).
	 */
	if (epoch != peer->acked || ack != smartio_epoch)
		smartio_send_hello(ad, peer, epoch);

	if (peer->state == SMARTIO_PEER_JOINED || ack != smartio_epoch)
		return;

	if (!node || node > U16_MAX || node == ad->node_id) {
		if (peer->refused != epoch)
			dev_err(&ntb->dev, "adapter %d: refusing port %d: its node id %u %s\n",
				ad->index, peer->port, node,
				node == ad->node_id ? "is ours too (duplicate node id)" :
						      "is invalid");
		peer->refused = epoch;
		return;
	}

	peer->state = SMARTIO_PEER_JOINED;
	peer->node_id = node;
	pr_info("adapter %d: node %u joined (port %d)\n", ad->index, node,
		peer->port);
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

	if (ntb_db_vector_mask(ad->ntb, vector) & SMARTIO_DB_HANDSHAKE)
		schedule_work(&ad->work);
}

static const struct ntb_ctx_ops smartio_ctx_ops = {
	.link_event = smartio_link_event,
	.db_event = smartio_db_event,
};

/* The node id of adapter @index on port @port, or 0 if none is valid. */
static u16 smartio_node_id(int index, int port)
{
	if (index < node_id_count && node_id[index])
		return node_id[index];
	if (port < 0 || port >= U16_MAX)
		return 0;

	return port + 1;
}

static int smartio_probe(struct ntb_client *client, struct ntb_dev *ntb)
{
	struct device *dev = &ntb->dev;
	struct smartio_adapter *ad;
	int pcnt, spads, pidx, ret;

	pcnt = ntb_peer_port_count(ntb);
	if (pcnt < 1) {
		dev_err(dev, "no peer ports\n");
		return -ENODEV;
	}
	spads = ntb_spad_count(ntb);
	if (spads < (pcnt + 1) * SMARTIO_HS_SPADS ||
	    !(ntb_db_valid_mask(ntb) & SMARTIO_DB_HANDSHAKE)) {
		dev_err(dev, "%d scratchpads and doorbells %#llx: need %d and bit 0\n",
			spads, ntb_db_valid_mask(ntb),
			(pcnt + 1) * SMARTIO_HS_SPADS);
		return -ENODEV;
	}
	if (ntb_spad_is_unsafe(ntb))
		dev_warn(dev, "scratchpads are unsafe on this NTB\n");

	ad = devm_kzalloc(dev, struct_size(ad, peers, pcnt), GFP_KERNEL);
	if (!ad)
		return -ENOMEM;
	ad->ntb = ntb;
	ad->peer_count = pcnt;
	ad->port = ntb_port_number(ntb);
	mutex_init(&ad->lock);
	INIT_WORK(&ad->work, smartio_adapter_work);
	for (pidx = 0; pidx < pcnt; pidx++) {
		struct smartio_peer *peer = &ad->peers[pidx];

		peer->pidx = pidx;
		peer->port = ntb_peer_port_number(ntb, pidx);
		if (peer->port < 0)
			peer->port = -1;
		peer->in_spad = -1;
	}

	ret = ida_alloc(&smartio_adapter_ida, GFP_KERNEL);
	if (ret < 0)
		return ret;
	ad->index = ret;

	ad->node_id = smartio_node_id(ad->index, ad->port);
	if (!ad->node_id) {
		dev_err(dev, "adapter %d: port %d gives no node id in 1..65535; set node_id\n",
			ad->index, ad->port);
		ret = -EINVAL;
		goto err_free_index;
	}

	ret = ntb_set_ctx(ntb, ad, &smartio_ctx_ops);
	if (ret)
		goto err_free_index;

	mutex_lock(&smartio_adapters_lock);
	list_add_tail(&ad->list, &smartio_adapters);
	mutex_unlock(&smartio_adapters_lock);

	ret = ntb_db_clear_mask(ntb, SMARTIO_DB_HANDSHAKE);
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
	ntb_db_set_mask(ntb, SMARTIO_DB_HANDSHAKE);
err_unlist:
	mutex_lock(&smartio_adapters_lock);
	list_del(&ad->list);
	mutex_unlock(&smartio_adapters_lock);
	ntb_clear_ctx(ntb);
	cancel_work_sync(&ad->work);
err_free_index:
	ida_free(&smartio_adapter_ida, ad->index);
	return ret;
}

static void smartio_remove(struct ntb_client *client, struct ntb_dev *ntb)
{
	struct smartio_adapter *ad = ntb->ctx;
	int pidx;

	mutex_lock(&smartio_adapters_lock);
	list_del(&ad->list);
	mutex_unlock(&smartio_adapters_lock);

	/* No callback runs after this, so nothing schedules the work again. */
	ntb_clear_ctx(ntb);
	cancel_work_sync(&ad->work);

	ntb_db_set_mask(ntb, SMARTIO_DB_HANDSHAKE);
	ntb_link_disable(ntb);

	mutex_lock(&ad->lock);
	for (pidx = 0; pidx < ad->peer_count; pidx++)
		smartio_peer_down(ad, &ad->peers[pidx]);
	mutex_unlock(&ad->lock);

	ida_free(&smartio_adapter_ida, ad->index);
	mutex_destroy(&ad->lock);
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
		seq_printf(s, "adapter %d port %d node %u pci %s\n", ad->index,
			   ad->port, ad->node_id, pci_name(ad->ntb->pdev));
		mutex_lock(&ad->lock);
		for (pidx = 0; pidx < ad->peer_count; pidx++) {
			struct smartio_peer *peer = &ad->peers[pidx];

			seq_printf(s, "  peer %d port %d node %u %s\n", pidx,
				   peer->port, peer->node_id,
				   smartio_peer_state_names[peer->state]);
		}
		mutex_unlock(&ad->lock);
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

	smartio_debugfs = debugfs_create_dir("smartio", NULL);
	debugfs_create_file("adapters", 0444, smartio_debugfs, NULL,
			    &smartio_adapters_fops);

	ret = ntb_register_client(&smartio_ntb_client);
	if (ret)
		goto err_debugfs;

	return 0;

err_debugfs:
	debugfs_remove_recursive(smartio_debugfs);
	return ret;
}

static void __exit smartio_ntb_exit(void)
{
	ntb_unregister_client(&smartio_ntb_client);
	debugfs_remove_recursive(smartio_debugfs);
}

module_init(smartio_ntb_init);
module_exit(smartio_ntb_exit);

MODULE_DESCRIPTION("smartio NTB client: adapters, node ids and peers");
MODULE_LICENSE("GPL");
MODULE_VERSION(SMARTIO_VERSION);
