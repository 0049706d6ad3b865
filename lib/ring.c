// SPDX-License-Identifier: GPL-2.0
/*
 * Index arithmetic of the smartio SPSC record ring (scheme in
 * include/smartio/ring.h).
 *
 * Pure logic: no kernel headers, built both into the kernel module and into
 * the userspace unit tests.  No barriers here: the caller orders its
 * counter loads and stores around these calls.
 */
#include <smartio/compat.h>
#include <smartio/le.h>
#include <smartio/ring.h>

#define RING_OFF_LEN	0
#define RING_OFF_TYPE	4

/* Counters are consistent: 8-aligned and at most @size bytes apart. */
static bool ring_counters_valid(u32 size, u32 head, u32 tail)
{
	return ((head | tail) & (SMARTIO_RING_ALIGN - 1)) == 0 &&
	       smartio_ring_used(head, tail) <= size;
}

/* Reads the record header at offset @off of @ring. */
static void ring_hdr_read(const u8 *ring, u32 off, u32 *type, u32 *len)
{
	*len = smartio_get_le32(ring + off + RING_OFF_LEN);
	*type = smartio_get_le32(ring + off + RING_OFF_TYPE);
}

/**
 * smartio_ring_reserve() - Find where the producer writes the next record.
 * @size: Ring size (see smartio_ring_size_valid()).
 * @head: Producer counter.
 * @tail: Consumer counter, as last read from the consumer.
 * @len: Payload bytes of the record.
 * @slot: Receives the position of the record (and of a PAD record before
 *	it, if the data record does not fit before the end of the ring); left
 *	untouched on error.
 *
 * Pure arithmetic, nothing is written to the ring.  The record fits when
 * the free space holds it, plus the PAD when one is needed.
 *
 * Return: 0 on success, -EINVAL if @size is invalid or @slot is NULL,
 * -EMSGSIZE if @len is above smartio_ring_max_payload() (it never fits),
 * -EIO if the counters are inconsistent (not 8-aligned, or more than @size
 * apart), -EAGAIN if the record does not fit until the consumer frees
 * space.
 */
int smartio_ring_reserve(u32 size, u32 head, u32 tail, u32 len,
			 struct smartio_ring_slot *slot)
{
	u32 off, room, rec_len, pad_len;

	if (!smartio_ring_size_valid(size) || !slot)
		return -EINVAL;
	if (len > smartio_ring_max_payload(size))
		return -EMSGSIZE;
	if (!ring_counters_valid(size, head, tail))
		return -EIO;

	off = smartio_ring_offset(size, head);
	room = size - off;
	rec_len = smartio_ring_rec_len(len);
	pad_len = rec_len <= room ? 0 : room;

	if (pad_len + rec_len > smartio_ring_free(size, head, tail))
		return -EAGAIN;

	slot->pad_off = off;
	slot->pad_len = pad_len;
	slot->off = pad_len ? 0 : off;
	slot->rec_len = rec_len;
	slot->next_head = head + pad_len + rec_len;
	return 0;
}
EXPORT_SYMBOL_GPL(smartio_ring_reserve);

/**
 * smartio_ring_hdr_encode() - Build a record header.
 * @hdr: Destination, SMARTIO_RING_HDR_LEN bytes, any alignment.
 * @type: SMARTIO_RING_REC_DATA or SMARTIO_RING_REC_PAD.
 * @len: Payload bytes of a data record; for a PAD record, the bytes it
 *	skips after its header (pad_len - SMARTIO_RING_HDR_LEN).
 *
 * Writes the header little-endian; the producer copies it to the offset
 * smartio_ring_reserve() named.
 */
void smartio_ring_hdr_encode(void *hdr, u32 type, u32 len)
{
	u8 *p = hdr;

	smartio_put_le32(p + RING_OFF_LEN, len);
	smartio_put_le32(p + RING_OFF_TYPE, type);
}
EXPORT_SYMBOL_GPL(smartio_ring_hdr_encode);

/**
 * smartio_ring_peek() - Find the next record for the consumer.
 * @ring: The ring's @size bytes; only record headers are read, each once.
 * @size: Ring size (see smartio_ring_size_valid()).
 * @head: Producer counter, as last read from the producer (read it before
 *	the ring's contents).
 * @tail: Consumer counter.
 * @rec: Receives the position of the next data record; left untouched on
 *	error.
 *
 * Skips a PAD record at @tail, if any, and checks the data record against
 * the scheme, since the producer is another node: it must lie within the
 * published bytes and before the end of the ring, and a PAD must span
 * exactly the rest of the ring and be followed by a data record.
 *
 * Return: 0 on success, -EINVAL if @ring or @rec is NULL or @size is
 * invalid, -EAGAIN if the ring is empty, -EIO if the counters are
 * inconsistent (not 8-aligned, or more than @size apart), -EBADMSG if a
 * record header breaks the scheme.
 */
int smartio_ring_peek(const void *ring, u32 size, u32 head, u32 tail,
		      struct smartio_ring_rec *rec)
{
	u32 used, off, skip = 0, type, len, rec_len;

	if (!ring || !rec || !smartio_ring_size_valid(size))
		return -EINVAL;
	if (!ring_counters_valid(size, head, tail))
		return -EIO;

	used = smartio_ring_used(head, tail);
	if (used == 0)
		return -EAGAIN;

	off = smartio_ring_offset(size, tail);
	ring_hdr_read(ring, off, &type, &len);
	if (type == SMARTIO_RING_REC_PAD) {
		skip = size - off;
		if (len != skip - SMARTIO_RING_HDR_LEN ||
		    used < skip + SMARTIO_RING_HDR_LEN)
			return -EBADMSG;
		off = 0;
		ring_hdr_read(ring, off, &type, &len);
	}
	if (type != SMARTIO_RING_REC_DATA)
		return -EBADMSG;
	if (len > smartio_ring_max_payload(size))
		return -EBADMSG;
	rec_len = smartio_ring_rec_len(len);
	if (rec_len > size - off || rec_len > used - skip)
		return -EBADMSG;

	rec->off = off + SMARTIO_RING_HDR_LEN;
	rec->len = len;
	rec->next_tail = tail + skip + rec_len;
	return 0;
}
EXPORT_SYMBOL_GPL(smartio_ring_peek);
