// SPDX-License-Identifier: GPL-2.0
/*
 * The window manager: maps a range of a peer's bus address space into
 * this host's physical address space, through the NTB's lookup-table
 * windows (outbound translation, set by this side with
 * ntb_peer_mw_set_trans(), as on IDT and Switchtec).
 *
 * An adapter's LUT aperture is its outbound windows that have no inbound
 * counterpart (those past ntb_mw_count()), when they are equal in size and
 * contiguous in our address space: slot i is window mw_count + i. Slot
 * allocation (sharing of overlapping and adjacent ranges, exhaustion) is
 * lib/window.c's; here the slots are programmed and cleared, keyed by NTB
 * peer index. When a peer leaves, the translations of its slots are
 * cleared at once (accesses then read all-ones and writes are dropped, as
 * on a dead link) but the slots stay allocated, to no peer, until their
 * users unmap them: a CPU or device mapping may still point there, so
 * they must not lead anywhere else before it is gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sizes.h>
#include <linux/slab.h>

#include "smartio_ntb_priv.h"

/* Slot change callback of lib/window.c: program the hardware. */
static void smartio_lut_notify(void *data, u32 slot,
			       const struct smartio_window_slot *s)
{
	struct smartio_adapter *ad = data;
	struct smartio_lut *lut = &ad->lut;
	int widx = lut->first_widx + slot;
	int ret;

	if (s->peer == SMARTIO_LUT_NO_PEER)
		return;		/* cleared when its peer left */
	if (s->refs) {
		ret = ntb_peer_mw_set_trans(ad->ntb, s->peer, widx, s->base,
					    lut->slot_size);
		if (ret && !lut->error)
			lut->error = ret;
	} else {
		ntb_peer_mw_clear_trans(ad->ntb, s->peer, widx);
	}
}

/**
 * smartio_lut_init() - Find an adapter's LUT aperture.
 * @ad: The adapter, being probed.
 *
 * An adapter without one has lut.count 0: every map fails with
 * -EOPNOTSUPP.
 *
 * Return: 0 or -ENOMEM.
 */
int smartio_lut_init(struct smartio_adapter *ad)
{
	struct smartio_lut *lut = &ad->lut;
	struct ntb_dev *ntb = ad->ntb;
	resource_size_t size, slot_size = 0;
	phys_addr_t base, first = 0;
	int widx, count = 0, inbound;

	mutex_init(&lut->lock);
	inbound = ntb_mw_count(ntb, 0);
	if (inbound < 0)
		return 0;
	for (widx = inbound; widx < ntb_peer_mw_count(ntb); widx++) {
		if (ntb_peer_mw_get_addr(ntb, widx, &base, &size))
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

	lut->slots = kcalloc(count, sizeof(*lut->slots), GFP_KERNEL);
	if (!lut->slots)
		return -ENOMEM;
	smartio_window_map_init(&lut->map, lut->slots, count, slot_size);
	smartio_window_set_notify(&lut->map, smartio_lut_notify, ad);
	lut->first_widx = inbound;
	lut->base = first;
	lut->slot_size = slot_size;
	lut->count = count;
	dev_info(&ntb->dev, "adapter %d: %d LUT windows of %pa\n", ad->index,
		 count, &slot_size);
	return 0;
}

void smartio_lut_exit(struct smartio_adapter *ad)
{
	kfree(ad->lut.slots);
	mutex_destroy(&ad->lut.lock);
}

/**
 * smartio_lut_map() - Map a range of a peer's bus address space.
 * @ad: The adapter.
 * @pidx: The peer.
 * @addr: Start of the range in the peer's bus address space.
 * @size: Bytes, not 0.
 * @m: Filled in with the mapping; @m->phys is where the range starts in
 *	our physical address space, for the CPU (ioremap) and for local
 *	devices (dma_map_resource).
 *
 * Return: 0, -EOPNOTSUPP (no LUT windows), -ENOSPC (not enough free
 * slots; logged), or the error of programming a slot.
 */
int smartio_lut_map(struct smartio_adapter *ad, int pidx, u64 addr, u64 size,
		    struct smartio_lut_mapping *m)
{
	struct smartio_lut *lut = &ad->lut;
	u64 offset;
	int ret;

	if (!lut->count)
		return -EOPNOTSUPP;

	mutex_lock(&lut->lock);
	lut->error = 0;
	ret = smartio_window_get(&lut->map, pidx, addr, size, &offset,
				 &m->first, &m->count);
	if (!ret && lut->error) {
		smartio_window_put(&lut->map, m->first, m->count);
		ret = lut->error;
	}
	if (ret == -ENOSPC)
		dev_err(&ad->ntb->dev, "adapter %d: no %llu free LUT windows for %#llx+%#llx (%u of %u in use)\n",
			ad->index, div64_u64(size + lut->slot_size - 1, lut->slot_size),
			addr, size, smartio_window_slots_used(&lut->map),
			lut->count);
	mutex_unlock(&lut->lock);
	if (ret)
		return ret;

	m->pidx = pidx;
	m->phys = lut->base + (phys_addr_t)m->first * lut->slot_size + offset;
	m->size = size;
	return 0;
}

/**
 * smartio_lut_unmap() - Undo smartio_lut_map().
 * @ad: The adapter.
 * @m: A mapping.
 */
void smartio_lut_unmap(struct smartio_adapter *ad,
		       struct smartio_lut_mapping *m)
{
	if (!m->count)
		return;
	mutex_lock(&ad->lut.lock);
	smartio_window_put(&ad->lut.map, m->first, m->count);
	mutex_unlock(&ad->lut.lock);
	m->count = 0;
}

/**
 * smartio_lut_peer_lost() - Clear every slot mapped to a peer that left.
 * @ad: The adapter.
 * @pidx: The peer.
 *
 * The slots stay allocated, leading nowhere, until smartio_lut_unmap().
 */
void smartio_lut_peer_lost(struct smartio_adapter *ad, int pidx)
{
	struct smartio_lut *lut = &ad->lut;
	u32 i, cleared = 0;

	mutex_lock(&lut->lock);
	for (i = 0; i < lut->count; i++) {
		struct smartio_window_slot *s = &lut->slots[i];

		if (!s->refs || s->peer != pidx)
			continue;
		ntb_peer_mw_clear_trans(ad->ntb, pidx, lut->first_widx + i);
		s->peer = SMARTIO_LUT_NO_PEER;
		cleared++;
	}
	mutex_unlock(&lut->lock);
	if (cleared)
		dev_info(&ad->ntb->dev, "adapter %d: port %d gone: %u LUT window%s cleared\n",
			 ad->index, ad->peers[pidx].port, cleared,
			 cleared == 1 ? "" : "s");
}
