/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NTB window manager: slot allocation for a LUT-style outbound aperture.
 *
 * The aperture is @count slots of @slot_size bytes (a power of two, at least
 * 4096).  Slot i, while in use, translates aperture offsets
 * [i * slot_size, (i + 1) * slot_size) to the peer bus range
 * [base, base + slot_size) of one peer node; base is slot_size aligned.
 *
 * A mapping of the peer range [addr, addr + size) needs the n peer pages
 * (slot_size units) covering it, starting at first = addr & ~(slot_size - 1),
 * and takes a run of n consecutive slots s .. s + n - 1 where slot s + k maps
 * page first + k * slot_size of that peer.  A slot that already maps exactly
 * that page of that peer is shared (its reference count goes up); a free slot
 * is claimed.  Among the runs that fit, the one sharing the most slots wins,
 * then the lowest index, so overlapping and adjacent mappings share slots.
 *
 * Hardware programming: the caller may register a notify callback (see
 * smartio_window_set_notify()).  It is called once for every slot that
 * changes state, right after the change:
 *
 *	s->refs != 0	the slot was just claimed: program the translation of
 *			slot @slot to (s->peer, s->base)
 *	s->refs == 0	the slot was just freed: clear its translation;
 *			s->peer and s->base still tell what it mapped
 *
 * Sharing or unsharing an already used slot calls nothing.  The callback
 * must not call back into the map.  If programming fails, the caller undoes
 * the mapping with smartio_window_put() once smartio_window_get() returns.
 *
 * The functions here do no locking and no allocation: the caller owns the
 * slot array and serialises all calls on one map.
 */
#ifndef _SMARTIO_WINDOW_H
#define _SMARTIO_WINDOW_H

#include <smartio/compat.h>

/* Smallest slot size: one 4 KiB page. */
#define SMARTIO_WINDOW_MIN_SHIFT	12

/* A slot shared this many times cannot be shared once more. */
#define SMARTIO_WINDOW_REFS_MAX		((u32)~0U)

/**
 * struct smartio_window_slot - One aperture slot.
 * @base: Peer bus address the slot translates to, slot_size aligned.
 * @refs: Number of live mappings using the slot; 0 means free, and then
 *	@base and @peer are stale.
 * @peer: Peer node the slot translates to.
 */
struct smartio_window_slot {
	u64 base;
	u32 refs;
	u16 peer;
};

/**
 * struct smartio_window_map - An aperture's slots.
 * @slots: Caller-owned array of @count slots.
 * @count: Number of slots.
 * @slot_shift: log2 of the slot size.
 * @notify: Optional callback told of every slot claimed or freed, or NULL.
 * @notify_data: First argument of @notify.
 */
struct smartio_window_map {
	struct smartio_window_slot *slots;
	u32 count;
	u32 slot_shift;
	void (*notify)(void *data, u32 slot,
		       const struct smartio_window_slot *s);
	void *notify_data;
};

/**
 * smartio_window_set_notify() - Register the slot change callback.
 * @wm: Window map, initialised.
 * @notify: Called for every slot claimed or freed (see the comment at the
 *	top of this header), or NULL for none.
 * @data: First argument of @notify.
 */
static inline void
smartio_window_set_notify(struct smartio_window_map *wm,
			  void (*notify)(void *data, u32 slot,
					 const struct smartio_window_slot *s),
			  void *data)
{
	wm->notify = notify;
	wm->notify_data = data;
}

/**
 * smartio_window_slot_size() - Size of a map's slots.
 * @wm: Window map, initialised.
 *
 * Return: The slot size in bytes.
 */
static inline u64 smartio_window_slot_size(const struct smartio_window_map *wm)
{
	return (u64)1 << wm->slot_shift;
}

/**
 * smartio_range_within() - Is a range inside another, whole?
 * @addr: Start of the range.
 * @size: Its bytes; 0 is a point, within when @addr is.
 * @base: Start of the range it must lie in.
 * @limit: Bytes of that range.
 *
 * Containment, not overlap: a range that starts inside and runs past the
 * end is not within. No sum is formed, so no end wraps past 2^64: this is
 * the check for ranges a peer names (a window's publication, a receive
 * area, a range to map).
 *
 * Return: true when [@addr, @addr + @size) lies in [@base, @base + @limit).
 */
static inline bool smartio_range_within(u64 addr, u64 size, u64 base,
					u64 limit)
{
	return addr >= base && size <= limit && addr - base <= limit - size;
}

int smartio_window_map_init(struct smartio_window_map *wm,
			    struct smartio_window_slot *slots, u32 count,
			    u64 slot_size);
int smartio_window_get(struct smartio_window_map *wm, u16 peer, u64 addr,
		       u64 size, u64 *offset, u32 *first_slot, u32 *nslots);
void smartio_window_put(struct smartio_window_map *wm, u32 first_slot,
			u32 nslots);
u32 smartio_window_clear_peer(struct smartio_window_map *wm, u16 peer);
u32 smartio_window_slots_used(const struct smartio_window_map *wm);

#endif /* _SMARTIO_WINDOW_H */
