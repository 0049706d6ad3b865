// SPDX-License-Identifier: GPL-2.0
/*
 * NTB window manager: slot allocation for a LUT-style outbound aperture
 * (see include/smartio/window.h for the model).
 *
 * Pure logic: no kernel headers, built both into the kernel module and into
 * the userspace unit tests.
 */
#include <smartio/compat.h>
#include <smartio/window.h>

static void window_notify(struct smartio_window_map *wm, u32 i)
{
	if (wm->notify)
		wm->notify(wm->notify_data, i, &wm->slots[i]);
}

/*
 * Can slots @s .. @s + @n - 1 map the @n peer pages starting at @first of
 * @peer?  On success, *@shared is how many of them are already in use for
 * exactly their page (and would be shared rather than claimed).
 */
static bool window_run_fits(const struct smartio_window_map *wm, u32 s, u32 n,
			    u16 peer, u64 first, u32 *shared)
{
	const struct smartio_window_slot *sl = &wm->slots[s];
	u32 k, m = 0;

	for (k = 0; k < n; k++, sl++) {
		if (!sl->refs)
			continue;
		if (sl->peer != peer || sl->refs == SMARTIO_WINDOW_REFS_MAX ||
		    sl->base != first + ((u64)k << wm->slot_shift))
			return false;
		m++;
	}
	*shared = m;
	return true;
}

/**
 * smartio_window_map_init() - Initialise a window map, every slot free.
 * @wm: Window map to initialise.
 * @slots: Caller-owned array of @count slots; overwritten.
 * @count: Number of slots, at least 1.
 * @slot_size: Bytes per slot: a power of two, at least 4096, such that the
 *	aperture (@count * @slot_size bytes) fits in 64 bits.
 *
 * No notify callback is registered.
 *
 * Return: 0 on success, -EINVAL if @wm or @slots is NULL or @count or
 * @slot_size is out of range; @wm and @slots are untouched on error.
 */
int smartio_window_map_init(struct smartio_window_map *wm,
			    struct smartio_window_slot *slots, u32 count,
			    u64 slot_size)
{
	u32 shift = SMARTIO_WINDOW_MIN_SHIFT;
	u32 i;

	if (!wm || !slots || !count)
		return -EINVAL;
	if (slot_size < ((u64)1 << SMARTIO_WINDOW_MIN_SHIFT) ||
	    (slot_size & (slot_size - 1)))
		return -EINVAL;
	while (((u64)1 << shift) != slot_size)
		shift++;
	/* The last slot's offset, (count - 1) << shift, must not overflow. */
	if ((u64)(count - 1) > (~(u64)0 >> shift))
		return -EINVAL;

	for (i = 0; i < count; i++) {
		slots[i].base = 0;
		slots[i].refs = 0;
		slots[i].peer = 0;
	}
	wm->slots = slots;
	wm->count = count;
	wm->slot_shift = shift;
	wm->notify = NULL;
	wm->notify_data = NULL;
	return 0;
}
EXPORT_SYMBOL_GPL(smartio_window_map_init);

/**
 * smartio_window_get() - Map a peer bus range into the aperture.
 * @wm: Window map.
 * @peer: Peer node owning the range.
 * @addr: Peer bus address of the range's first byte.
 * @size: Length of the range in bytes, at least 1; @addr + @size may be
 *	exactly 2^64 (the range ends at the last byte of the address space)
 *	but not more.
 * @offset: Receives the aperture offset at which @addr is reachable.
 * @first_slot: Receives the first slot of the mapping.
 * @nslots: Receives the number of slots of the mapping.
 *
 * Takes the n consecutive slots that translate the peer pages covering the
 * range, sharing the slots that already map the right page of @peer and
 * claiming free ones for the rest; among the runs that fit, the one sharing
 * the most slots wins, then the lowest.  The notify callback, if any, is
 * called for each claimed slot, in ascending order, once the map has been
 * updated.  Undo with smartio_window_put(@wm, *@first_slot, *@nslots).
 *
 * Cost: O(count * n) slot visits.
 *
 * Return: 0 on success, -EINVAL if a pointer is NULL, @size is 0 or the
 * range wraps past 2^64, -ENOSPC if no run of slots fits.  On error nothing
 * changes and the outputs are untouched.
 */
int smartio_window_get(struct smartio_window_map *wm, u16 peer, u64 addr,
		       u64 size, u64 *offset, u32 *first_slot, u32 *nslots)
{
	u64 first, pages;
	u32 n, s, k, shared, best = 0, best_shared = 0;
	bool found = false;

	if (!wm || !offset || !first_slot || !nslots || !size)
		return -EINVAL;
	if (size - 1 > ~(u64)0 - addr)
		return -EINVAL;

	first = addr & ~(smartio_window_slot_size(wm) - 1);
	pages = ((addr + (size - 1) - first) >> wm->slot_shift) + 1;
	if (pages > wm->count)
		return -ENOSPC;
	n = (u32)pages;

	for (s = 0; s <= wm->count - n; s++) {
		if (!window_run_fits(wm, s, n, peer, first, &shared))
			continue;
		if (!found || shared > best_shared) {
			found = true;
			best = s;
			best_shared = shared;
			if (shared == n)
				break;
		}
	}
	if (!found)
		return -ENOSPC;

	for (k = 0; k < n; k++) {
		struct smartio_window_slot *sl = &wm->slots[best + k];

		if (!sl->refs) {
			sl->base = first + ((u64)k << wm->slot_shift);
			sl->peer = peer;
		}
		sl->refs++;
	}
	/* Claimed slots are the ones now used once; shared ones are above. */
	for (k = 0; k < n; k++)
		if (wm->slots[best + k].refs == 1)
			window_notify(wm, best + k);

	*offset = ((u64)best << wm->slot_shift) + (addr - first);
	*first_slot = best;
	*nslots = n;
	return 0;
}
EXPORT_SYMBOL_GPL(smartio_window_get);

/**
 * smartio_window_put() - Unmap what smartio_window_get() mapped.
 * @wm: Window map.
 * @first_slot: First slot of the mapping, as returned by the get.
 * @nslots: Number of slots of the mapping, as returned by the get.
 *
 * Drops one reference from each slot of the mapping; a slot whose last
 * reference goes is free, and the notify callback, if any, is called for it
 * right then.  Already free slots are skipped, and a range beyond the map
 * is ignored as a whole.  A mapping must be put once, and not at all after
 * smartio_window_clear_peer() tore it down: its slots may have been claimed
 * again since.
 */
void smartio_window_put(struct smartio_window_map *wm, u32 first_slot,
			u32 nslots)
{
	u32 i;

	if (!wm || first_slot >= wm->count || nslots > wm->count - first_slot)
		return;

	for (i = first_slot; i < first_slot + nslots; i++) {
		struct smartio_window_slot *sl = &wm->slots[i];

		if (!sl->refs)
			continue;
		if (--sl->refs == 0)
			window_notify(wm, i);
	}
}
EXPORT_SYMBOL_GPL(smartio_window_put);

/**
 * smartio_window_clear_peer() - Tear down every mapping of a peer.
 * @wm: Window map.
 * @peer: Peer node whose link was lost.
 *
 * Frees every slot of @peer whatever its reference count, calling the
 * notify callback, if any, for each right after freeing it.  The mappings
 * that used them are dead: their users must be told and must not put them.
 *
 * Return: The number of slots freed.
 */
u32 smartio_window_clear_peer(struct smartio_window_map *wm, u16 peer)
{
	u32 i, freed = 0;

	if (!wm)
		return 0;

	for (i = 0; i < wm->count; i++) {
		struct smartio_window_slot *sl = &wm->slots[i];

		if (!sl->refs || sl->peer != peer)
			continue;
		sl->refs = 0;
		freed++;
		window_notify(wm, i);
	}
	return freed;
}
EXPORT_SYMBOL_GPL(smartio_window_clear_peer);

/**
 * smartio_window_slots_used() - Count the slots in use.
 * @wm: Window map.
 *
 * Return: The number of slots whose reference count is not 0.
 */
u32 smartio_window_slots_used(const struct smartio_window_map *wm)
{
	u32 i, used = 0;

	if (!wm)
		return 0;

	for (i = 0; i < wm->count; i++)
		if (wm->slots[i].refs)
			used++;
	return used;
}
EXPORT_SYMBOL_GPL(smartio_window_slots_used);
