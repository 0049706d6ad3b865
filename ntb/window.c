// SPDX-License-Identifier: GPL-2.0
/*
 * The window manager: maps a range of a peer's bus address space into
 * this host's physical address space, for the CPU and for local devices.
 *
 * Real NTBs translate in one of two places:
 *
 *  - LUT aperture (outbound translation; IDT, Switchtec LUT): outbound
 *    windows with no inbound counterpart (those past ntb_mw_count()),
 *    programmed by this side with ntb_peer_mw_set_trans(), onto any of
 *    the peer's bus addresses. Slot allocation (sharing of overlapping and
 *    adjacent ranges, exhaustion) is lib/window.c's, keyed by peer index;
 *    here slots are programmed and cleared.
 *  - Direct windows (inbound translation; Intel, AMD, Switchtec direct):
 *    outbound window n reaches the peer's inbound window n, which only
 *    the peer translates. It points them, once, at all it lets us reach
 *    (reach.c) and told us where; a range in there is mapped by
 *    arithmetic, with no message and nothing to program, and a range
 *    outside is refused.
 *
 * Mapping prefers the LUT aperture where there is one.
 *
 * When a peer leaves, the LUT slots mapped to it are cleared at once
 * (accesses then read all-ones and writes are dropped, as on a dead link)
 * but stay allocated, to no peer, until their users unmap them: a CPU or
 * device mapping may still point there, so they must not lead anywhere
 * else before it is gone. A direct window is the peer's to translate: it
 * leads to the peer's next instance once that one opens it, so users of a
 * node stop when it leaves (they are told, smartio_node_notifier_register())
 * before it can join again.
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

/* LUT slot change: program our own outbound translation. */
static void smartio_lut_notify(void *data, u32 slot,
			       const struct smartio_window_slot *s)
{
	struct smartio_aperture *ap = data;
	struct ntb_dev *ntb = ap->ad->ntb;
	int widx = ap->first_widx + slot;
	int ret;

	/* Cleared when its peer left, or when the adapter went. */
	if (s->peer == SMARTIO_WINDOW_NO_PEER || ap->gone)
		return;
	if (s->refs) {
		ret = ntb_peer_mw_set_trans(ntb, s->peer, widx, s->base,
					    ap->slot_size);
		if (ret && !ap->error)
			ap->error = ret;
	} else {
		ntb_peer_mw_clear_trans(ntb, s->peer, widx);
	}
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

	inbound = ntb_mw_count(ntb, 0);
	if (inbound < 0)
		inbound = 0;

	ret = smartio_aperture_init(ad, &ad->lut, "LUT", inbound, outbound,
				    smartio_lut_notify);
	if (!ret && !ad->lut.count)
		dev_info(&ntb->dev, "adapter %d: %d direct window%s\n",
			 ad->index, inbound, inbound == 1 ? "" : "s");
	return ret;
}

/**
 * smartio_windows_exit() - The adapter is removed: no more mapping.
 * @ad: The adapter, being removed: no peer joined.
 *
 * Its NTB is no longer programmed. Mappings its users still hold (each
 * with a reference to the adapter) stay until they unmap them, which
 * only counts; smartio_windows_free() frees the slots at the last put.
 */
void smartio_windows_exit(struct smartio_adapter *ad)
{
	mutex_lock(&ad->lut.lock);
	ad->lut.gone = true;
	mutex_unlock(&ad->lut.lock);
}

/**
 * smartio_windows_free() - Undo smartio_windows_init().
 * @ad: The adapter, unreferenced: no mapping left.
 */
void smartio_windows_free(struct smartio_adapter *ad)
{
	smartio_aperture_exit(&ad->lut);
}

/*
 * Maps [@addr, @addr + @size) of peer @pidx through the direct window that
 * leads there, if one does.
 */
static int smartio_direct_map(struct smartio_adapter *ad, int pidx, u64 addr,
			      u64 size, struct smartio_window_mapping *m)
{
	struct smartio_peer *peer = &ad->peers[pidx];
	int i;

	/* Published before the peer's node id was (adapter.c). */
	smp_rmb();
	for (i = 0; i < SMARTIO_REACH_WINDOWS; i++) {
		const struct smartio_reach *r = &peer->reach[i];

		if (!r->size ||
		    !smartio_range_within(addr, size, r->addr, r->size))
			continue;
		m->ap = NULL;
		m->pidx = pidx;
		m->first = i;
		m->count = 1;
		m->phys = r->phys + (addr - r->addr);
		m->size = size;
		atomic_inc(&ad->direct_maps);
		return 0;
	}
	m->count = 0;
	dev_err_ratelimited(&ad->ntb->dev, "adapter %d: port %d's windows lead to no %#llx+%#llx\n",
			    ad->index, peer->port, addr, size);
	return -EACCES;
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
 * Context: Process context; sleeps (never waits for a peer: a message
 * handler may map).
 * A mapping holds the adapter (smartio_adapter_get()) until it is
 * unmapped.
 *
 * Return: 0, -ENOSPC (not enough free LUT slots; logged), -EACCES (the
 * peer's direct windows do not lead there; logged), -ENODEV (the adapter
 * is being removed), or the error of programming a LUT slot.
 */
int smartio_window_map(struct smartio_adapter *ad, int pidx, u64 addr,
		       u64 size, struct smartio_window_mapping *m)
{
	struct smartio_aperture *ap = &ad->lut;
	u64 offset;
	int ret;

	m->ad = ad;
	if (!ap->count) {
		ret = smartio_direct_map(ad, pidx, addr, size, m);
		if (!ret)
			smartio_adapter_get(ad);
		return ret;
	}

	mutex_lock(&ap->lock);
	ap->error = 0;
	if (ap->gone)
		ret = -ENODEV;
	else
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
	smartio_adapter_get(ad);
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
	if (!m->ap) {
		atomic_dec(&m->ad->direct_maps);
	} else {
		mutex_lock(&m->ap->lock);
		smartio_window_put(&m->ap->map, m->first, m->count);
		mutex_unlock(&m->ap->lock);
	}
	m->count = 0;
	smartio_adapter_put(m->ad);
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
 * smartio_windows_peer_lost() - A peer left: clear our LUT slots to it.
 * @ad: The adapter.
 * @peer: The peer; its messaging channel is down already.
 *
 * Our slots mapped to it stay allocated, leading nowhere, until
 * smartio_window_unmap(). The mapping side never waits for the peer here:
 * it is gone.
 */
void smartio_windows_peer_lost(struct smartio_adapter *ad,
			       struct smartio_peer *peer)
{
	u32 lost = smartio_aperture_peer_lost(&ad->lut, peer->pidx);

	if (lost)
		dev_info(&ad->ntb->dev, "adapter %d: port %d gone: %u window%s to it cleared\n",
			 ad->index, peer->port, lost, lost == 1 ? "" : "s");
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
 * One line: LUT slots in use and their count, mappings through direct
 * windows in use and the number of direct windows (where there is no LUT
 * aperture), and local ranges granted to peers. Tests read it to see that
 * nothing leaks.
 */
void smartio_windows_show(struct seq_file *s, struct smartio_adapter *ad)
{
	int direct = ad->lut.count ? 0 : ntb_peer_mw_count(ad->ntb);

	seq_printf(s, "  windows lut %u/%u direct %u/%d inbound %u\n",
		   smartio_aperture_used(&ad->lut), ad->lut.count,
		   atomic_read(&ad->direct_maps), max(direct, 0),
		   atomic_read(&ad->grants));
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
 * smartio_node_grant() - Let a node reach a local range.
 * @node_id: The node, joined.
 * @addr: Start of the range: a DMA address of smartio_node_dma_device()
 *	(DMA memory, or a BAR through dma_map_resource()).
 * @size: Bytes.
 *
 * The node reaches the range at smartio_grant_addr(), which is what to
 * tell it: where its windows lead to our IOVA window, the range is mapped
 * there too (reach.c).
 *
 * Context: Process context; sleeps.
 * Return: The grant, until smartio_node_revoke(), or an ERR_PTR:
 * -EHOSTUNREACH (not joined), -ENOSPC (no room; logged), -ENOMEM.
 */
struct smartio_grant *smartio_node_grant(u16 node_id, u64 addr, u64 size)
{
	struct smartio_adapter *ad;
	struct smartio_grant *g;
	int idx, ret = -EHOSTUNREACH;

	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return ERR_PTR(-ENOMEM);
	idx = srcu_read_lock(&smartio_adapters_srcu);
	if (smartio_node_peer(node_id, &ad))
		ret = smartio_window_grant(g, ad, node_id, addr, size);
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	if (ret) {
		kfree(g);
		return ERR_PTR(ret);
	}
	return g;
}
EXPORT_SYMBOL_GPL(smartio_node_grant);

/**
 * smartio_grant_addr() - Where the node a range was granted to reaches it.
 * @g: The grant.
 *
 * Return: The address to tell the node, in our bus address space.
 */
u64 smartio_grant_addr(const struct smartio_grant *g)
{
	return g->peer_addr;
}
EXPORT_SYMBOL_GPL(smartio_grant_addr);

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
