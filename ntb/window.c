// SPDX-License-Identifier: GPL-2.0
/*
 * The window manager: maps a range of a peer's bus address space into
 * this host's physical address space, for the CPU and for local devices.
 *
 * Real NTBs translate in one of two places, and an adapter may have both:
 *
 *  - LUT aperture (outbound translation; IDT, Switchtec LUT): outbound
 *    windows with no inbound counterpart (those past ntb_mw_count()),
 *    programmed by this side with ntb_peer_mw_set_trans().
 *  - Direct aperture (inbound translation; Intel, AMD, Switchtec direct):
 *    outbound window n reaches the peer's inbound window n, which only the
 *    peer can program, with ntb_mw_set_trans(). We ask it to over
 *    messaging (SMARTIO_MSG_OP_WINDOW_SET). Window 0 is the messaging
 *    channel's own, so the aperture is windows 1 and up, on NTBs with a
 *    single peer (an outbound direct window leads to one fixed port).
 *
 * Each aperture is a run of equal, contiguous, power-of-two windows: its
 * slots. Slot allocation (sharing of overlapping and adjacent ranges,
 * exhaustion) is lib/window.c's, keyed by peer index; here slots are
 * programmed and cleared. Mapping prefers the LUT aperture: it needs no
 * message and its slots are usually smaller.
 *
 * When a peer leaves, the slots mapped to it are cleared at once
 * (accesses then read all-ones and writes are dropped, as on a dead link)
 * but stay allocated, to no peer, until their users unmap them: a CPU or
 * device mapping may still point there, so they must not lead anywhere
 * else before it is gone. The inbound windows we opened for that peer
 * are closed too.
 *
 * A peer may only have an inbound window opened onto a range this node
 * granted it (smartio_window_grant(): an exported segment, later a lent
 * device's BAR). A window covers whole aligned slots, so it may reach
 * past the grant; with an IOMMU on this host, inbound accesses only reach
 * what is mapped for the NTB, and that is all meant for peers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <uapi/linux/smartio_dev.h>

#include "smartio/le.h"
#include "smartio/ntb.h"
#include "smartio_ntb_priv.h"

#define SMARTIO_WINDOW_TIMEOUT	(5 * HZ)

/*
 * SMARTIO_MSG_OP_WINDOW_SET: open the receiver's inbound window @widx
 * onto its bus range [@addr, @addr + @size), or close it (@size 0).
 */
struct smartio_window_set_req {
	__le64 addr;
	__le64 size;
	__le32 widx;
	__le32 reserved;
};

/* Ranges this node's peers may have an inbound window opened onto. */
static DEFINE_MUTEX(smartio_grants_lock);
static LIST_HEAD(smartio_grants);

/* LUT slot change: program our own outbound translation. */
static void smartio_lut_notify(void *data, u32 slot,
			       const struct smartio_window_slot *s)
{
	struct smartio_aperture *ap = data;
	struct ntb_dev *ntb = ap->ad->ntb;
	int widx = ap->first_widx + slot;
	int ret;

	if (s->peer == SMARTIO_WINDOW_NO_PEER)
		return;		/* cleared when its peer left */
	if (s->refs) {
		ret = ntb_peer_mw_set_trans(ntb, s->peer, widx, s->base,
					    ap->slot_size);
		if (ret && !ap->error)
			ap->error = ret;
	} else {
		ntb_peer_mw_clear_trans(ntb, s->peer, widx);
	}
}

/* Direct slot change: ask the peer to program its inbound translation. */
static void smartio_direct_notify(void *data, u32 slot,
				  const struct smartio_window_slot *s)
{
	struct smartio_aperture *ap = data;
	struct smartio_adapter *ad = ap->ad;
	struct smartio_window_set_req req = {
		.widx = cpu_to_le32(ap->first_widx + slot),
	};
	u32 resp_len;
	int ret;

	if (s->peer == SMARTIO_WINDOW_NO_PEER)
		return;		/* the peer closed it when it left */
	if (s->refs) {
		req.addr = cpu_to_le64(s->base);
		req.size = cpu_to_le64(ap->slot_size);
	}
	ret = smartio_msg_call_peer(ad, &ad->peers[s->peer],
				    SMARTIO_MSG_OP_WINDOW_SET, &req,
				    sizeof(req), NULL, 0, &resp_len,
				    SMARTIO_WINDOW_TIMEOUT);
	/* Closing fails only if the peer is gone, and then it closed it. */
	if (ret && s->refs && !ap->error)
		ap->error = ret;
}

/*
 * Finds the run of equal, contiguous, power-of-two outbound windows from
 * @first_widx up to (not including) @end_widx, and sets @ap up on it.
 */
static int smartio_aperture_init(struct smartio_adapter *ad,
				 struct smartio_aperture *ap, const char *kind,
				 int first_widx, int end_widx,
				 void (*notify)(void *data, u32 slot,
						const struct smartio_window_slot *s))
{
	resource_size_t size, slot_size = 0;
	phys_addr_t base, first = 0;
	int widx, count = 0;

	mutex_init(&ap->lock);
	ap->ad = ad;
	ap->kind = kind;
	ap->notify = notify;
	for (widx = first_widx; widx < end_widx; widx++) {
		if (ntb_peer_mw_get_addr(ad->ntb, widx, &base, &size))
			break;
		if (!count) {
			first = base;
			slot_size = size;
		}
		if (size != slot_size || base != first + count * slot_size ||
		    !is_power_of_2(size) || size < SZ_4K)
			break;
		count++;
	}
	if (!count)
		return 0;

	ap->slots = kcalloc(count, sizeof(*ap->slots), GFP_KERNEL);
	if (!ap->slots)
		return -ENOMEM;
	smartio_window_map_init(&ap->map, ap->slots, count, slot_size);
	smartio_window_set_notify(&ap->map, notify, ap);
	ap->first_widx = first_widx;
	ap->base = first;
	ap->slot_size = slot_size;
	ap->count = count;
	dev_info(&ad->ntb->dev, "adapter %d: %d %s window%s of %pa\n",
		 ad->index, count, kind, count == 1 ? "" : "s", &slot_size);
	return 0;
}

static void smartio_aperture_exit(struct smartio_aperture *ap)
{
	kfree(ap->slots);
	mutex_destroy(&ap->lock);
}

/**
 * smartio_windows_init() - Find an adapter's apertures.
 * @ad: The adapter, being probed.
 *
 * An adapter with neither fails every map with -EOPNOTSUPP.
 *
 * Return: 0 or -ENOMEM.
 */
int smartio_windows_init(struct smartio_adapter *ad)
{
	struct ntb_dev *ntb = ad->ntb;
	int inbound, outbound = ntb_peer_mw_count(ntb);
	int ret;

	mutex_init(&ad->inbound_lock);
	inbound = ntb_mw_count(ntb, 0);
	if (inbound < 0)
		inbound = 0;

	ret = smartio_aperture_init(ad, &ad->lut, "LUT", inbound, outbound,
				    smartio_lut_notify);
	if (ret)
		return ret;
	ret = smartio_aperture_init(ad, &ad->direct, "direct", 1,
				    ad->peer_count == 1 ? min(inbound, outbound) : 1,
				    smartio_direct_notify);
	if (ret)
		smartio_aperture_exit(&ad->lut);
	return ret;
}

/**
 * smartio_windows_exit() - Undo smartio_windows_init().
 * @ad: The adapter, being removed: no peer joined, no mapping left.
 */
void smartio_windows_exit(struct smartio_adapter *ad)
{
	smartio_aperture_exit(&ad->direct);
	smartio_aperture_exit(&ad->lut);
	mutex_destroy(&ad->inbound_lock);
}

/**
 * smartio_window_map() - Map a range of a peer's bus address space.
 * @ad: The adapter.
 * @pidx: The peer.
 * @addr: Start of the range in the peer's bus address space.
 * @size: Bytes, not 0.
 * @m: Filled in with the mapping; @m->phys is where the range starts in
 *	our physical address space, for the CPU (ioremap) and for local
 *	devices (dma_map_resource).
 *
 * Context: Process context; sleeps (a direct window is a round trip to
 * the peer), so never from a message handler.
 * Return: 0, -EOPNOTSUPP (no windows), -ENOSPC (not enough free slots;
 * logged), or the error of programming a slot: -ENOTCONN when the peer
 * left, -EACCES when it granted us no such range.
 */
int smartio_window_map(struct smartio_adapter *ad, int pidx, u64 addr,
		       u64 size, struct smartio_window_mapping *m)
{
	struct smartio_aperture *ap = ad->lut.count ? &ad->lut : &ad->direct;
	u64 offset;
	int ret;

	if (!ap->count)
		return -EOPNOTSUPP;

	mutex_lock(&ap->lock);
	ap->error = 0;
	ret = smartio_window_get(&ap->map, pidx, addr, size, &offset,
				 &m->first, &m->count);
	if (!ret && ap->error) {
		smartio_window_put(&ap->map, m->first, m->count);
		ret = ap->error;
	}
	if (ret == -ENOSPC)
		dev_err(&ad->ntb->dev, "adapter %d: no %llu free %s windows for %#llx+%#llx (%u of %u in use)\n",
			ad->index, div64_u64(size + ap->slot_size - 1, ap->slot_size),
			ap->kind, addr, size,
			smartio_window_slots_used(&ap->map), ap->count);
	mutex_unlock(&ap->lock);
	if (ret) {
		m->count = 0;
		return ret;
	}

	m->ap = ap;
	m->pidx = pidx;
	m->phys = ap->base + offset;	/* offset into the aperture */
	m->size = size;
	return 0;
}

/**
 * smartio_window_unmap() - Undo smartio_window_map().
 * @m: A mapping; nothing happens if it is not mapped.
 *
 * Context: Process context; sleeps.
 */
void smartio_window_unmap(struct smartio_window_mapping *m)
{
	if (!m->count)
		return;
	mutex_lock(&m->ap->lock);
	smartio_window_put(&m->ap->map, m->first, m->count);
	mutex_unlock(&m->ap->lock);
	m->count = 0;
}

/* Marks every slot of @ap mapped to @pidx lost; clears LUT slots. */
static u32 smartio_aperture_peer_lost(struct smartio_aperture *ap, int pidx)
{
	u32 i, lost = 0;

	mutex_lock(&ap->lock);
	for (i = 0; i < ap->count; i++) {
		struct smartio_window_slot *s = &ap->slots[i];

		if (!s->refs || s->peer != pidx)
			continue;
		if (ap->notify == smartio_lut_notify)
			ntb_peer_mw_clear_trans(ap->ad->ntb, pidx,
						ap->first_widx + i);
		s->peer = SMARTIO_WINDOW_NO_PEER;
		lost++;
	}
	mutex_unlock(&ap->lock);
	return lost;
}

/**
 * smartio_windows_peer_lost() - A peer left: close every window to and from it.
 * @ad: The adapter.
 * @peer: The peer; its messaging channel is down already.
 *
 * Our slots mapped to it stay allocated, leading nowhere, until
 * smartio_window_unmap(); the inbound windows it had us open are closed.
 * The mapping side never waits for the peer here: it is gone.
 */
void smartio_windows_peer_lost(struct smartio_adapter *ad,
			       struct smartio_peer *peer)
{
	int pidx = peer->pidx;
	u32 lost, closed = 0;
	int widx;

	lost = smartio_aperture_peer_lost(&ad->lut, pidx) +
	       smartio_aperture_peer_lost(&ad->direct, pidx);

	mutex_lock(&ad->inbound_lock);
	for (widx = 0; widx < BITS_PER_TYPE(peer->inbound); widx++) {
		if (!(peer->inbound & BIT_ULL(widx)))
			continue;
		ntb_mw_clear_trans(ad->ntb, pidx, widx);
		closed++;
	}
	peer->inbound = 0;
	mutex_unlock(&ad->inbound_lock);

	if (lost || closed)
		dev_info(&ad->ntb->dev, "adapter %d: port %d gone: %u window%s to it cleared, %u from it closed\n",
			 ad->index, peer->port, lost, lost == 1 ? "" : "s",
			 closed);
}

static u32 smartio_aperture_used(struct smartio_aperture *ap)
{
	u32 used = 0;

	if (ap->count) {
		mutex_lock(&ap->lock);
		used = smartio_window_slots_used(&ap->map);
		mutex_unlock(&ap->lock);
	}
	return used;
}

/**
 * smartio_windows_show() - Print an adapter's window usage (debugfs).
 * @s: The file.
 * @ad: The adapter.
 *
 * One line: slots in use of each aperture, and inbound windows open for
 * peers. Tests read it to see that nothing leaks.
 */
void smartio_windows_show(struct seq_file *s, struct smartio_adapter *ad)
{
	u32 inbound = 0;
	int pidx;

	mutex_lock(&ad->inbound_lock);
	for (pidx = 0; pidx < ad->peer_count; pidx++)
		inbound += hweight64(ad->peers[pidx].inbound);
	mutex_unlock(&ad->inbound_lock);
	seq_printf(s, "  windows lut %u/%u direct %u/%u inbound %u\n",
		   smartio_aperture_used(&ad->lut), ad->lut.count,
		   smartio_aperture_used(&ad->direct), ad->direct.count,
		   inbound);
}

/**
 * smartio_window_grant() - Let a node have an inbound window onto a range.
 * @g: The grant, owned by the caller; granted again if it was.
 * @ad: Adapter whose bus address space the range is in.
 * @node_id: The node, or SMARTIO_NODE_ALL.
 * @addr: Start of the range, a bus address for @ad's NTB.
 * @size: Bytes.
 *
 * Windows already open stay open; revoking closes nothing either: the
 * owner of the range stops its users first.
 */
void smartio_window_grant(struct smartio_grant *g, struct smartio_adapter *ad,
			  u16 node_id, u64 addr, u64 size)
{
	mutex_lock(&smartio_grants_lock);
	g->ad = ad;
	g->node_id = node_id;
	g->addr = addr;
	g->size = size;
	if (list_empty(&g->list))
		list_add_tail(&g->list, &smartio_grants);
	mutex_unlock(&smartio_grants_lock);
}

/**
 * smartio_window_revoke() - Undo smartio_window_grant().
 * @g: The grant; nothing happens if it is not granted.
 */
void smartio_window_revoke(struct smartio_grant *g)
{
	mutex_lock(&smartio_grants_lock);
	list_del_init(&g->list);
	mutex_unlock(&smartio_grants_lock);
}

/* Does [@addr, @addr + @size) overlap a range granted to @node_id? */
static bool smartio_window_granted(struct smartio_adapter *ad, u16 node_id,
				   u64 addr, u64 size)
{
	struct smartio_grant *g;
	bool granted = false;

	mutex_lock(&smartio_grants_lock);
	list_for_each_entry(g, &smartio_grants, list) {
		if (g->ad != ad || (g->node_id != node_id &&
				    g->node_id != SMARTIO_NODE_ALL))
			continue;
		if (addr < g->addr + g->size && g->addr < addr + size) {
			granted = true;
			break;
		}
	}
	mutex_unlock(&smartio_grants_lock);
	return granted;
}

/* Opens (@size != 0) or closes inbound window @widx for @peer. */
static int smartio_inbound_set(struct smartio_adapter *ad,
			       struct smartio_peer *peer, u16 node_id,
			       int widx, u64 addr, u64 size)
{
	struct ntb_dev *ntb = ad->ntb;
	resource_size_t addr_align, size_align, size_max;
	int ret;

	/* Window 0 is the messaging channel's: never the peer's to move. */
	if (widx < 1 || widx >= ntb_mw_count(ntb, peer->pidx) ||
	    widx >= BITS_PER_TYPE(peer->inbound))
		return -EINVAL;
	if (size) {
		ret = ntb_mw_get_align(ntb, peer->pidx, widx, &addr_align,
				       &size_align, &size_max);
		if (ret)
			return ret;
		if (!IS_ALIGNED(addr, addr_align) ||
		    !IS_ALIGNED(size, size_align) || size > size_max ||
		    addr + size < addr)
			return -EINVAL;
		if (!smartio_window_granted(ad, node_id, addr, size)) {
			dev_err_ratelimited(&ntb->dev, "adapter %d: node %u asked for window %d onto %#llx+%#llx, which it was not granted\n",
					    ad->index, node_id, widx, addr,
					    size);
			return -EACCES;
		}
	}

	/*
	 * A peer that left has had its windows closed; it must not open one
	 * again with a request served late. Leaving marks the channel down
	 * before it takes this lock.
	 */
	mutex_lock(&ad->inbound_lock);
	if (!READ_ONCE(peer->chan.up)) {
		ret = -ENOTCONN;
	} else if (size) {
		ret = ntb_mw_set_trans(ntb, peer->pidx, widx, addr, size);
		if (!ret)
			peer->inbound |= BIT_ULL(widx);
	} else {
		ret = ntb_mw_clear_trans(ntb, peer->pidx, widx);
		peer->inbound &= ~BIT_ULL(widx);
	}
	mutex_unlock(&ad->inbound_lock);
	return ret;
}

/* Messaging handler: a peer asks us to open or close an inbound window. */
static int smartio_window_set_handler(u16 node_id,
				      const struct smartio_msg *req,
				      void *resp, u32 *resp_len)
{
	const struct smartio_window_set_req *r = req->payload;
	struct smartio_adapter *ad;
	struct smartio_peer *peer;
	int idx, ret;

	if (req->len != sizeof(*r) || r->reserved)
		return -EINVAL;

	idx = srcu_read_lock(&smartio_adapters_srcu);
	peer = smartio_node_peer(node_id, &ad);
	if (peer)
		ret = smartio_inbound_set(ad, peer, node_id,
					  le32_to_cpu(r->widx),
					  le64_to_cpu(r->addr),
					  le64_to_cpu(r->size));
	else
		ret = -ENOTCONN;
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	return ret;
}

/**
 * struct smartio_remote - A range of another node's bus address space,
 *	mapped for the users of smartio/ntb.h.
 * @ad: Adapter the node is reached through.
 * @map: The mapping.
 */
struct smartio_remote {
	struct smartio_adapter *ad;
	struct smartio_window_mapping map;
};

/**
 * smartio_remote_map() - Map a range of another node's bus address space.
 * @node_id: The node, joined.
 * @addr: Start of the range in its bus address space.
 * @size: Bytes, not 0.
 *
 * The range is reachable at smartio_remote_phys() for the CPU (ioremap)
 * and local devices (an IOMMU mapping or dma_map_resource()), until
 * smartio_remote_unmap(). If the node leaves, it leads nowhere (reads
 * return all-ones) but stays mapped.
 *
 * Context: Process context; sleeps (never in a message handler).
 * Return: The mapping, or an ERR_PTR: -EHOSTUNREACH (not joined),
 * -EOPNOTSUPP, -ENOSPC, -EACCES, -ENOTCONN, -ETIMEDOUT, -ENOMEM.
 */
struct smartio_remote *smartio_remote_map(u16 node_id, u64 addr, u64 size)
{
	struct smartio_remote *r;
	struct smartio_peer *peer;
	int idx, ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	idx = srcu_read_lock(&smartio_adapters_srcu);
	peer = smartio_node_peer(node_id, &r->ad);
	ret = peer ? smartio_window_map(r->ad, peer->pidx, addr, size,
					&r->map) : -EHOSTUNREACH;
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	if (ret) {
		kfree(r);
		return ERR_PTR(ret);
	}
	return r;
}
EXPORT_SYMBOL_GPL(smartio_remote_map);

/**
 * smartio_remote_phys() - Where a remote mapping is in our address space.
 * @r: The mapping.
 *
 * Return: The physical address of the range's first byte.
 */
phys_addr_t smartio_remote_phys(const struct smartio_remote *r)
{
	return r->map.phys;
}
EXPORT_SYMBOL_GPL(smartio_remote_phys);

/**
 * smartio_remote_unmap() - Undo smartio_remote_map().
 * @r: The mapping, or NULL; no CPU or device mapping of it may remain.
 */
void smartio_remote_unmap(struct smartio_remote *r)
{
	if (!r)
		return;
	smartio_window_unmap(&r->map);
	kfree(r);
}
EXPORT_SYMBOL_GPL(smartio_remote_unmap);

/**
 * smartio_node_dma_device() - The device whose bus addresses a node reaches.
 * @node_id: A joined node.
 *
 * Inbound accesses from @node_id arrive through the NTB it is reached
 * through, so a local range is offered to it at that NTB's DMA address
 * (dma_map_resource() on this device, through our IOMMU if any). The
 * device stays valid while the node is joined.
 *
 * Return: The NTB's device, or NULL if @node_id is not joined.
 */
struct device *smartio_node_dma_device(u16 node_id)
{
	struct smartio_adapter *ad;
	struct device *dev = NULL;
	int idx;

	idx = srcu_read_lock(&smartio_adapters_srcu);
	if (smartio_node_peer(node_id, &ad))
		dev = &ad->ntb->pdev->dev;
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	return dev;
}
EXPORT_SYMBOL_GPL(smartio_node_dma_device);

/**
 * smartio_node_grant() - Let a node have a window opened onto a local range.
 * @node_id: The node, joined.
 * @addr: Start of the range: a DMA address of smartio_node_dma_device().
 * @size: Bytes.
 *
 * Only needed where the node maps the range through direct windows,
 * which this node opens when asked; harmless elsewhere.
 *
 * Return: The grant, until smartio_node_revoke(), or an ERR_PTR.
 */
struct smartio_grant *smartio_node_grant(u16 node_id, u64 addr, u64 size)
{
	struct smartio_adapter *ad;
	struct smartio_grant *g;
	int idx;

	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&g->list);
	idx = srcu_read_lock(&smartio_adapters_srcu);
	if (smartio_node_peer(node_id, &ad))
		smartio_window_grant(g, ad, node_id, addr, size);
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	if (list_empty(&g->list)) {
		kfree(g);
		return ERR_PTR(-EHOSTUNREACH);
	}
	return g;
}
EXPORT_SYMBOL_GPL(smartio_node_grant);

/**
 * smartio_node_revoke() - Undo smartio_node_grant().
 * @g: The grant, or NULL.
 */
void smartio_node_revoke(struct smartio_grant *g)
{
	if (!g)
		return;
	smartio_window_revoke(g);
	kfree(g);
}
EXPORT_SYMBOL_GPL(smartio_node_revoke);

int smartio_window_init(void)
{
	return smartio_msg_handler_register(SMARTIO_MSG_OP_WINDOW_SET,
					    smartio_window_set_handler);
}

void smartio_window_exit(void)
{
	smartio_msg_handler_unregister(SMARTIO_MSG_OP_WINDOW_SET);
}
