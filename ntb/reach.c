// SPDX-License-Identifier: GPL-2.0
/*
 * What a peer reaches of this node: our inbound windows for it, what it
 * is told they lead to, and the local ranges granted to it.
 *
 * Inbound-translated NTBs (Intel, AMD, Switchtec's direct windows) give a
 * peer two or three windows, each of which this side translates
 * (ntb_mw_set_trans()) onto one range of our bus address space, aligned
 * as the window needs, up to its size. Moving a window per request would
 * cost a message per mapping and give the peer one range at a time, so
 * each is set once, when the link comes up, and never moves. Windows
 * differ in size (Switchtec's first shares its BAR with the LUT windows,
 * and is as small as they are together), so the largest of the first two
 * goes to memory and the other to interrupts:
 *
 *  - The memory window (peer->mem_widx) leads to all the peer may reach of our
 *    memory. Where our IOMMU translates the NTB's inbound accesses, that
 *    is the adapter's IOVA window (iova.c): its first pages hold the
 *    receive area (msg.c), and whatever else the peer may reach is mapped
 *    into it: exported segments and lent BARs when granted
 *    (smartio_window_grant()), the pages a borrowed device's driver maps.
 *    A grant is an IOMMU mapping, and the peer reaches nothing else: an
 *    access anywhere else in the window faults in our IOMMU. Where nothing
 *    translates (no IOMMU, or an identity domain), window 0 leads to all
 *    of RAM from address 0 if it is large enough; else to the receive
 *    area alone, and peers' devices cannot reach our memory (logged).
 *  - The interrupt window (peer->msi_widx), if any, leads to the range
 *    holding the x86 interrupt range (SMARTIO_MSI_ADDR), aligned as the
 *    window needs: a device the peer lends us raises our interrupts
 *    through it. With our IOMMU on, the NTB's own DMA mappings are kept
 *    below that range (its bus DMA limit), so nothing but interrupts is
 *    reachable there.
 *
 * That takes an NTB with one peer (Intel, AMD and upstream Switchtec have
 * one) and no LUT windows. NTBs with LUT windows (IDT-like: each side
 * translates its own outbound windows, onto any of the peer's bus
 * addresses, window.c) and multi-port NTBs keep window 0 for the receive
 * area alone. The hello says which window the receive area is in
 * (adapter.c).
 *
 * Each side tells the other what its windows lead to: before the hello
 * that lets the peer join (adapter.c), it writes a struct
 * smartio_reach_wire into the peer's receive area, and the peer reads it
 * from its own memory when it joins. Mapping a range of a peer's is then
 * arithmetic (window.c), with no message: a message handler may map.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/log2.h>
#include <linux/mmzone.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>

#include "smartio/le.h"
#include "smartio/ntb.h"
#include "smartio_ntb_priv.h"

/*
 * The largest alignment a receive area of its own may need: the buddy
 * allocator's largest block. Windows that need more (real BARs align
 * their translation to their size, hundreds of MiB) cannot have one.
 */
#define SMARTIO_RING_ALIGN_MAX	(PAGE_SIZE << (MAX_ORDER - 1))

/*
 * At SMARTIO_MSG_AREA_REACH of a receive area, written by the sender: what
 * the receiver's outbound window n leads to in the sender's bus address
 * space (size 0: nowhere).
 */
struct smartio_reach_wire {
	struct {
		__le64 addr;
		__le64 size;
	} win[SMARTIO_REACH_WINDOWS];
};

static_assert(SMARTIO_MSG_AREA_REACH + sizeof(struct smartio_reach_wire) <=
	      SMARTIO_MSG_AREA_RING);

static const char * const smartio_inbound_names[] = {
	[SMARTIO_INBOUND_NONE] = "none",
	[SMARTIO_INBOUND_RING] = "ring",
	[SMARTIO_INBOUND_IOVA] = "iova",
	[SMARTIO_INBOUND_RAM] = "ram",
};

/**
 * smartio_ram_end() - End of the physical address space RAM occupies.
 *
 * Return: The address past the highest page of RAM of any node.
 */
u64 smartio_ram_end(void)
{
	u64 end = 0;
	int nid;

	for_each_online_node(nid)
		end = max_t(u64, end, PFN_PHYS(pgdat_end_pfn(NODE_DATA(nid))));
	return end;
}
EXPORT_SYMBOL_GPL(smartio_ram_end);

/* What ntb_mw_get_align() tells of an inbound window. */
struct smartio_inbound_align {
	resource_size_t addr;
	resource_size_t size;
	resource_size_t max;
};

static int smartio_inbound_get_align(struct smartio_adapter *ad,
				     struct smartio_peer *peer, int widx,
				     struct smartio_inbound_align *a)
{
	return ntb_mw_get_align(ad->ntb, peer->pidx, widx, &a->addr, &a->size,
				&a->max);
}

/* A receive area of whole pages, for windows that lead beyond it. */
static int smartio_area_alloc(struct smartio_msg_chan *chan)
{
	chan->area_size = SMARTIO_MSG_AREA_SIZE;
	chan->area = alloc_pages_exact(chan->area_size,
				       GFP_KERNEL | __GFP_ZERO);
	return chan->area ? 0 : -ENOMEM;
}

/**
 * smartio_inbound_direct() - Do @ad's inbound windows give its peer a
 *	reach (see the head of this file)?
 * @ad: The adapter.
 *
 * Return: True for an NTB with one peer and no LUT windows.
 */
bool smartio_inbound_direct(struct smartio_adapter *ad)
{
	return !ad->lut.count && ad->peer_count == 1;
}

/* Translates inbound window @widx onto [@addr, @addr + @size). */
static int smartio_inbound_set(struct smartio_adapter *ad,
			       struct smartio_peer *peer, int widx,
			       u64 addr, u64 size)
{
	int ret = ntb_mw_set_trans(ad->ntb, peer->pidx, widx, addr, size);

	if (ret) {
		dev_err(&ad->ntb->dev, "adapter %d: cannot open inbound window %d onto %#llx+%#llx: %d\n",
			ad->index, widx, addr, size, ret);
		return ret;
	}
	peer->xlat[widx].addr = addr;
	peer->xlat[widx].size = size;
	return 0;
}

/**
 * smartio_inbound_restore() - Translate our inbound windows for a peer again.
 * @ad: The adapter.
 * @peer: The peer, whose link came back up; its windows were opened.
 *
 * The receive area and what the windows lead to stay as they were.
 *
 * Return: 0 or -errno, with the reason logged.
 */
int smartio_inbound_restore(struct smartio_adapter *ad,
			    struct smartio_peer *peer)
{
	int widx, ret;

	for (widx = 0; widx < SMARTIO_REACH_WINDOWS; widx++) {
		if (!peer->xlat[widx].size)
			continue;
		ret = smartio_inbound_set(ad, peer, widx, peer->xlat[widx].addr,
					  peer->xlat[widx].size);
		if (ret)
			return ret;
	}
	return 0;
}

/* Window 0 onto the receive area alone, DMA memory of the NTB. */
static int smartio_inbound_open_ring(struct smartio_adapter *ad,
				     struct smartio_peer *peer,
				     const struct smartio_inbound_align *a)
{
	struct smartio_msg_chan *chan = &peer->chan;
	struct device *dev = &ad->ntb->pdev->dev;
	size_t xlat = round_up(SMARTIO_MSG_AREA_SIZE, a->size);
	int ret;

	if (a->max < xlat || a->addr > SMARTIO_RING_ALIGN_MAX) {
		dev_err(&ad->ntb->dev, "adapter %d: inbound window %d (up to %pa bytes, aligned to %pa) cannot lead to a receive area of its own\n",
			ad->index, peer->mem_widx, &a->max, &a->addr);
		return -ENOSPC;
	}
	/* A buffer is aligned to its size: allocate the alignment at least. */
	chan->area_size = max_t(size_t, xlat, a->addr);
	chan->area = dma_alloc_coherent(dev, chan->area_size, &chan->area_bus,
					GFP_KERNEL);
	if (!chan->area)
		return -ENOMEM;
	if (!IS_ALIGNED(chan->area_bus, a->addr)) {
		ret = -EINVAL;
		goto err_free;
	}
	ret = smartio_inbound_set(ad, peer, peer->mem_widx, chan->area_bus,
				  xlat);
	if (ret)
		goto err_free;
	peer->inbound = SMARTIO_INBOUND_RING;
	return 0;

err_free:
	dma_free_coherent(dev, chan->area_size, chan->area, chan->area_bus);
	chan->area = NULL;
	return ret;
}

/* Window 0 onto the IOVA window, the receive area at its base. */
static int smartio_inbound_open_iova(struct smartio_adapter *ad,
				     struct smartio_peer *peer,
				     const struct smartio_inbound_align *a)
{
	struct smartio_msg_chan *chan = &peer->chan;
	struct smartio_iova_window *w = smartio_iova_window_ref(ad);
	u64 base = smartio_iova_window_base(w), size;
	int ret;

	if (!IS_ALIGNED(base, a->addr) || a->max < SMARTIO_MSG_AREA_SIZE) {
		dev_err(&ad->ntb->dev, "adapter %d: inbound window %d (up to %pa bytes, aligned to %pa) cannot lead to the IOVA window at %#llx\n",
			ad->index, peer->mem_widx, &a->max, &a->addr, base);
		ret = -ENOSPC;
		goto err_put;
	}
	size = smartio_iova_window_limit(w, round_down(a->max, a->size));
	ret = smartio_area_alloc(chan);
	if (ret)
		goto err_put;
	ret = smartio_iova_window_hold(w, virt_to_phys(chan->area),
				       chan->area_size);
	if (ret)
		goto err_free;
	chan->area_bus = base;
	chan->area_iova = w;
	ret = smartio_inbound_set(ad, peer, peer->mem_widx, base,
				  min_t(u64, round_up(size, a->size), a->max));
	if (ret)
		goto err_release;
	peer->own[peer->mem_widx].addr = base;
	peer->own[peer->mem_widx].size = size;
	peer->inbound = SMARTIO_INBOUND_IOVA;
	return 0;

err_release:
	chan->area_iova = NULL;
	smartio_iova_window_release_held(w, chan->area_size);
err_free:
	free_pages_exact(chan->area, chan->area_size);
	chan->area = NULL;
err_put:
	smartio_iova_window_put(w);
	return ret;
}

/*
 * Window 0 onto all of RAM, untranslated; -ERANGE (nothing done) when it
 * cannot reach that far.
 */
static int smartio_inbound_open_ram(struct smartio_adapter *ad,
				    struct smartio_peer *peer,
				    const struct smartio_inbound_align *a)
{
	struct smartio_msg_chan *chan = &peer->chan;
	u64 size = roundup_pow_of_two(smartio_ram_end());
	int ret;

	/*
	 * A power of two where it fits: a direct window translates by
	 * replacing the address bits above its size's, and Switchtec's (whose
	 * driver says any multiple of 4 KiB) takes no other size.
	 */
	if (size > a->max || !IS_ALIGNED(size, a->size))
		size = round_up(smartio_ram_end(), a->size);

	if (size > a->max) {
		dev_warn(&ad->ntb->dev, "adapter %d: inbound window %d (up to %pa bytes) cannot reach all of RAM (%#llx) and no IOMMU translates for it: peers' devices cannot reach this node's memory\n",
			 ad->index, peer->mem_widx, &a->max, size);
		return -ERANGE;
	}
	ret = smartio_area_alloc(chan);
	if (ret)
		return ret;
	chan->area_bus = virt_to_phys(chan->area);
	ret = smartio_inbound_set(ad, peer, peer->mem_widx, 0, size);
	if (ret) {
		free_pages_exact(chan->area, chan->area_size);
		chan->area = NULL;
		return ret;
	}
	peer->own[peer->mem_widx].addr = 0;
	peer->own[peer->mem_widx].size = size;
	peer->inbound = SMARTIO_INBOUND_RAM;
	return 0;
}

/*
 * The interrupt window onto the interrupt range, where there is one that
 * can reach it. Not having it is no error: the peer cannot raise our
 * interrupts, and lending to us fails where it would need to.
 */
static void smartio_inbound_open_msi(struct smartio_adapter *ad,
				     struct smartio_peer *peer)
{
	struct device *dev = &ad->ntb->pdev->dev;
	int widx = peer->msi_widx;
	struct smartio_inbound_align a;
	u64 base, size;

	if (widx < 0 || smartio_inbound_get_align(ad, peer, widx, &a))
		return;
	base = round_down(SMARTIO_MSI_ADDR, a.addr);
	size = round_up(SMARTIO_MSI_ADDR + SMARTIO_MSI_SIZE - base, a.size);
	if (size > a.max) {
		dev_warn(&ad->ntb->dev, "adapter %d: inbound window %d (up to %pa bytes, aligned to %pa) cannot reach the interrupt range: peers' devices cannot interrupt this node\n",
			 ad->index, widx, &a.max, &a.addr);
		return;
	}
	if (smartio_inbound_set(ad, peer, widx, base, size))
		return;
	/* Keep the NTB's own mappings out of the window's reach. */
	if (peer->inbound == SMARTIO_INBOUND_IOVA && base &&
	    (!dev->bus_dma_limit || dev->bus_dma_limit >= base))
		dev->bus_dma_limit = base - 1;
	peer->own[widx].addr = base;
	peer->own[widx].size = size;
}

/* What our interrupt window for @peer leads to (nowhere without one). */
static const struct smartio_reach *smartio_own_msi(struct smartio_peer *peer)
{
	static const struct smartio_reach none;

	return peer->msi_widx < 0 ? &none : &peer->own[peer->msi_widx];
}

/*
 * Which of our inbound windows leads to memory, and which to interrupts:
 * on an NTB that gives a reach, the larger of the first two goes to
 * memory (the first on a tie); elsewhere window 0 holds the receive area
 * alone. Fills *@a with the memory window's constraints.
 */
static int smartio_inbound_choose(struct smartio_adapter *ad,
				  struct smartio_peer *peer,
				  struct smartio_inbound_align *a)
{
	struct smartio_inbound_align other;
	int ret;

	peer->mem_widx = 0;
	peer->msi_widx = -1;
	ret = smartio_inbound_get_align(ad, peer, 0, a);
	if (ret || !smartio_inbound_direct(ad) ||
	    ntb_mw_count(ad->ntb, peer->pidx) < SMARTIO_REACH_WINDOWS ||
	    smartio_inbound_get_align(ad, peer, 1, &other))
		return ret;
	peer->msi_widx = 1;
	if (other.max > a->max) {
		peer->mem_widx = 1;
		peer->msi_widx = 0;
		*a = other;
	}
	return 0;
}

/**
 * smartio_inbound_open() - Open our inbound windows for a peer.
 * @ad: The adapter.
 * @peer: The peer, whose link is up (NTBs tell window constraints only
 *	then).
 *
 * Allocates the peer's receive area (@peer->chan's area, area_bus and
 * area_size) and points window 0, and window 1 where there is a reach,
 * where the comment at the head of this file says.
 *
 * Return: 0 or -errno, with the reason logged.
 */
int smartio_inbound_open(struct smartio_adapter *ad, struct smartio_peer *peer)
{
	struct smartio_inbound_align a;
	struct iommu_domain *domain;
	int ret;

	memset(peer->own, 0, sizeof(peer->own));
	ret = smartio_inbound_choose(ad, peer, &a);
	if (ret) {
		dev_err(&ad->ntb->dev, "adapter %d: no inbound window for messages: %d\n",
			ad->index, ret);
		return ret;
	}
	if (smartio_inbound_direct(ad)) {
		domain = iommu_get_domain_for_dev(&ad->ntb->pdev->dev);
		if (ad->iova) {
			ret = smartio_inbound_open_iova(ad, peer, &a);
		} else if (!domain || domain->type == IOMMU_DOMAIN_IDENTITY) {
			ret = smartio_inbound_open_ram(ad, peer, &a);
			if (ret == -ERANGE)
				ret = smartio_inbound_open_ring(ad, peer, &a);
		} else {
			ret = smartio_inbound_open_ring(ad, peer, &a);
		}
		if (!ret)
			smartio_inbound_open_msi(ad, peer);
	} else {
		ret = smartio_inbound_open_ring(ad, peer, &a);
	}
	if (!ret)
		dev_info(&ad->ntb->dev, "adapter %d: port %d reaches %s %#llx+%#llx (window %d), interrupts %#llx+%#llx\n",
			 ad->index, peer->port,
			 smartio_inbound_names[peer->inbound],
			 peer->own[peer->mem_widx].addr,
			 peer->own[peer->mem_widx].size, peer->mem_widx,
			 smartio_own_msi(peer)->addr,
			 smartio_own_msi(peer)->size);
	return ret;
}

/**
 * smartio_inbound_close() - Undo smartio_inbound_open().
 * @ad: The adapter.
 * @peer: The peer; nothing receives on its channel any more.
 */
void smartio_inbound_close(struct smartio_adapter *ad,
			   struct smartio_peer *peer)
{
	struct smartio_msg_chan *chan = &peer->chan;
	int widx;

	for (widx = 0; widx < SMARTIO_REACH_WINDOWS; widx++)
		if (peer->xlat[widx].size)
			ntb_mw_clear_trans(ad->ntb, peer->pidx, widx);
	switch (peer->inbound) {
	case SMARTIO_INBOUND_RING:
		dma_free_coherent(&ad->ntb->pdev->dev, chan->area_size,
				  chan->area, chan->area_bus);
		break;
	case SMARTIO_INBOUND_IOVA:
		smartio_iova_window_release_held(chan->area_iova,
						 chan->area_size);
		smartio_iova_window_put(chan->area_iova);
		chan->area_iova = NULL;
		fallthrough;
	case SMARTIO_INBOUND_RAM:
		free_pages_exact(chan->area, chan->area_size);
		break;
	case SMARTIO_INBOUND_NONE:
		break;
	}
	chan->area = NULL;
	peer->inbound = SMARTIO_INBOUND_NONE;
	memset(peer->own, 0, sizeof(peer->own));
	memset(peer->xlat, 0, sizeof(peer->xlat));
}

/**
 * smartio_inbound_area_offset() - Where a peer finds its receive area.
 * @peer: The peer, whose inbound windows are open.
 *
 * Return: The offset of the area in the peer's outbound window onto us.
 */
u64 smartio_inbound_area_offset(struct smartio_peer *peer)
{
	if (peer->inbound == SMARTIO_INBOUND_RING)
		return 0;
	return peer->chan.area_bus - peer->own[peer->mem_widx].addr;
}

/**
 * smartio_reach_publish() - Tell a peer what our windows lead to.
 * @ad: The adapter.
 * @peer: The peer, whose receive area we have located.
 *
 * Called before every hello that lets the peer join: the hello's
 * scratchpad writes follow these through the NTB, in order.
 */
void smartio_reach_publish(struct smartio_adapter *ad,
			   struct smartio_peer *peer)
{
	void __iomem *out = peer->chan.win + SMARTIO_MSG_AREA_REACH;
	struct smartio_reach_wire wire = {};
	int i;

	if (!peer->chan.win)
		return;
	for (i = 0; i < SMARTIO_REACH_WINDOWS; i++) {
		wire.win[i].addr = cpu_to_le64(peer->own[i].addr);
		wire.win[i].size = cpu_to_le64(peer->own[i].size);
	}
	memcpy_toio(out, &wire, sizeof(wire));
	/* Before the hello's scratchpad writes, which may take another path. */
	wmb();
}

/**
 * smartio_reach_learn() - Read what our windows to a peer lead to.
 * @ad: The adapter.
 * @peer: The peer, joining: its publication is in our receive area.
 *
 * A range that does not fit its window is cut to it; one of a window we
 * do not have is dropped (each logged): the peer's word is checked, and
 * only ever leads where our windows go.
 *
 * Return: The number of windows that lead somewhere.
 */
int smartio_reach_learn(struct smartio_adapter *ad, struct smartio_peer *peer)
{
	const struct smartio_reach_wire *in = peer->chan.area +
					      SMARTIO_MSG_AREA_REACH;
	struct smartio_reach reach[SMARTIO_REACH_WINDOWS] = {};
	resource_size_t win_size;
	phys_addr_t win_base;
	int i, count = 0;

	for (i = 0; smartio_inbound_direct(ad) && i < SMARTIO_REACH_WINDOWS;
	     i++) {
		u64 addr = le64_to_cpu(READ_ONCE(in->win[i].addr));
		u64 size = le64_to_cpu(READ_ONCE(in->win[i].size));

		if (!size)
			continue;
		if (ntb_peer_mw_get_addr(ad->ntb, i, &win_base, &win_size) ||
		    !PAGE_ALIGNED(addr) || addr + size < addr) {
			dev_err(&ad->ntb->dev, "adapter %d: port %d says window %d leads to %#llx+%#llx: ignored\n",
				ad->index, peer->port, i, addr, size);
			continue;
		}
		if (size > win_size) {
			dev_warn(&ad->ntb->dev, "adapter %d: port %d says window %d leads to %#llx+%#llx; only %pa bytes of it are ours\n",
				 ad->index, peer->port, i, addr, size,
				 &win_size);
			size = win_size;
		}
		reach[i].addr = addr;
		reach[i].size = size;
		reach[i].phys = win_base;
		count++;
	}
	memcpy(peer->reach, reach, sizeof(reach));
	return count;
}

/**
 * smartio_window_grant() - Let a node reach a local range.
 * @g: The grant, owned by the caller; revoked first if it was granted
 *	another range.
 * @ad: Adapter whose bus address space the range is in.
 * @node_id: The node, or SMARTIO_NODE_ALL.
 * @addr: Start of the range, a bus address of @ad's NTB (from its DMA
 *	API: DMA memory, or a BAR through dma_map_resource()).
 * @size: Bytes.
 *
 * Where our IOMMU translates and the peer reaches the IOVA window, the
 * range's pages are mapped there again: the peer reaches them at
 * @g->peer_addr. Elsewhere @g->peer_addr is @addr: a LUT reaches any of
 * our bus addresses, and RAM reached untranslated is reached as is.
 *
 * Granting the range @g grants already, to another node or the same
 * (a segment exported again), changes only the node: the range stays
 * mapped where it is, for the nodes that reach it there may still be
 * connected to it (ntb/README.md, "Segments"); unmapping it under them
 * would have their accesses fault in our IOMMU.
 *
 * Context: Process context; sleeps.
 * Return: 0, or -ENOSPC when the IOVA window is full (logged).
 */
int smartio_window_grant(struct smartio_grant *g, struct smartio_adapter *ad,
			 u16 node_id, u64 addr, u64 size)
{
	struct smartio_iova_window *w = NULL;
	u64 peer_addr = addr;

	if (g->ad == ad && g->addr == addr && g->size == size) {
		g->node_id = node_id;
		return 0;
	}
	smartio_window_revoke(g);
	if (smartio_inbound_direct(ad) && ad->iova) {
		w = smartio_iova_window_ref(ad);
		peer_addr = smartio_iova_map_again(w, addr, size);
		if (peer_addr == DMA_MAPPING_ERROR) {
			dev_err(&ad->ntb->dev, "adapter %d: no room in the IOVA window to let node %u reach %#llx+%#llx\n",
				ad->index, node_id, addr, size);
			smartio_iova_window_put(w);
			return -ENOSPC;
		}
	}
	smartio_adapter_get(ad);
	g->ad = ad;
	g->node_id = node_id;
	g->addr = addr;
	g->size = size;
	g->peer_addr = peer_addr;
	g->iova = w;
	atomic_inc(&ad->grants);
	return 0;
}

/**
 * smartio_window_revoke() - Undo smartio_window_grant().
 * @g: The grant; nothing happens if it is not granted.
 *
 * Peers' accesses to the range fault from now on where it was mapped
 * for them; the owner of the range stops its users first.
 */
void smartio_window_revoke(struct smartio_grant *g)
{
	if (!g->ad)
		return;
	if (g->iova) {
		smartio_iova_unmap(g->iova, NULL, g->peer_addr, g->size);
		smartio_iova_window_put(g->iova);
		g->iova = NULL;
	}
	atomic_dec(&g->ad->grants);
	smartio_adapter_put(g->ad);
	g->ad = NULL;
}

/**
 * smartio_reach_show() - Print what a peer and we reach (debugfs).
 * @s: The file.
 * @peer: The peer, under its adapter's lock.
 */
void smartio_reach_show(struct seq_file *s, struct smartio_peer *peer)
{
	/* The peer's memory window: where its hello put its receive area. */
	int mem = peer->chan.win_idx > 0;

	/*
	 * With where each of the peer's windows sits in our physical address
	 * space, so that a test writes through the one it means whatever the
	 * NTB puts in front of it (the Switchtec's LUT windows).
	 */
	seq_printf(s, "    reach %s %#llx+%#llx msi %#llx+%#llx, of the peer %#llx+%#llx at %pa msi %#llx+%#llx at %pa\n",
		   smartio_inbound_names[peer->inbound],
		   peer->own[peer->mem_widx].addr,
		   peer->own[peer->mem_widx].size,
		   smartio_own_msi(peer)->addr, smartio_own_msi(peer)->size,
		   peer->reach[mem].addr, peer->reach[mem].size,
		   &peer->reach[mem].phys,
		   peer->reach[!mem].addr, peer->reach[!mem].size,
		   &peer->reach[!mem].phys);
}

/**
 * smartio_node_flush() - Wait until what we posted toward a node landed.
 * @node_id: The node.
 *
 * Reads a word of the node's receive area through our window onto it.
 * PCIe lets no read pass a posted write going the same way, and the
 * emulated cable performs both in order: when the read completes, every
 * write this node's CPUs posted through its windows onto @node before
 * has been performed there, a lent device's register writes included
 * (and what the device did on them, as a command that reads a table in
 * our memory). A borrower's flush queue asks this before it unmaps a
 * batch of what lent devices might still reach on a command their
 * drivers posted last (lend/flushq.c). Nothing happens if @node is not
 * joined: its devices reach nothing of ours any more.
 *
 * Context: Any; spins for a round trip across the fabric.
 */
void smartio_node_flush(u16 node_id)
{
	struct smartio_msg_chan *chan;
	struct smartio_adapter *ad;
	struct smartio_peer *peer;
	unsigned long flags;
	int idx;

	idx = srcu_read_lock(&smartio_adapters_srcu);
	peer = smartio_node_peer(node_id, &ad);
	if (peer) {
		chan = &peer->chan;
		/* The window stays mapped while the channel is up. */
		spin_lock_irqsave(&chan->lock, flags);
		if (chan->up && chan->win) {
			mb();	/* after the writes before us */
			ioread32(chan->win + SMARTIO_MSG_AREA_HEAD);
		}
		spin_unlock_irqrestore(&chan->lock, flags);
	}
	srcu_read_unlock(&smartio_adapters_srcu, idx);
}
EXPORT_SYMBOL_GPL(smartio_node_flush);
