/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Index arithmetic of a single-producer/single-consumer byte ring holding
 * variable-length records (one channel message each).
 *
 * Geometry: the ring is @size bytes, a power of two from SMARTIO_RING_MIN_SIZE
 * to SMARTIO_RING_MAX_SIZE.  The producer owns the free-running u32 counter
 * @head (bytes ever written), the consumer the free-running u32 counter
 * @tail (bytes ever consumed); both wrap around 2^32 and both start at the
 * same value, a multiple of SMARTIO_RING_ALIGN.  The byte offset of a
 * counter is counter & (size - 1).  used = head - tail (u32 arithmetic) is
 * always in [0, size]: 0 is empty, size is full, so the two never look
 * alike, and anything else means a corrupt counter (-EIO below).  The
 * producer never writes more than size - used bytes, so it never
 * overwrites unread data: the ring's memory is bounded by @size.
 *
 * Record: an 8-byte record header, then the payload, then 0 to 7 bytes of
 * alignment padding, so every record starts and ends on an 8-byte boundary
 * (smartio_ring_rec_len()).  Header, little-endian:
 *
 *	offset	size	field
 *	0	u32	len	payload bytes (excluding header and padding)
 *	4	u32	type	SMARTIO_RING_REC_DATA or SMARTIO_RING_REC_PAD
 *
 * No wrap inside a record: a record is always contiguous in the ring.  When
 * it does not fit between the head's offset and the end of the ring, the
 * producer first writes a PAD record there, whose header's len is the rest
 * of the ring after the header (size - offset - 8; offsets are 8-aligned,
 * so a PAD header always fits), and puts the data record at offset 0.  The
 * PAD and its data record are published together (one head update); the
 * consumer skips a PAD to offset 0 and never sees a PAD alone, nor two in a
 * row.  A data record whose total length exactly reaches the end of the
 * ring needs no PAD.
 *
 * Record size limit: a record takes at most size / 2 bytes (payload at most
 * smartio_ring_max_payload()).  That guarantees progress: once the ring is
 * empty, any record fits, either before the end or, after a PAD, at 0.
 *
 * Memory access: smartio_ring_reserve() is pure arithmetic; the producer
 * then writes the headers it names (smartio_ring_hdr_encode()) and the
 * payload itself, in whatever way its mapping needs (e.g. memcpy_toio()
 * into an NTB window), and only then publishes next_head.  The consumer's
 * smartio_ring_peek() reads the record headers from the ring through the
 * pointer it is given (ordinary memory) and nothing else.
 */
#ifndef _SMARTIO_RING_H
#define _SMARTIO_RING_H

#include <smartio/compat.h>

/* Record alignment, and size of a record header. */
#define SMARTIO_RING_ALIGN	8
#define SMARTIO_RING_HDR_LEN	8

/* Smallest ring: room for one header plus 8 payload bytes per half. */
#define SMARTIO_RING_MIN_SIZE	32U
#define SMARTIO_RING_MAX_SIZE	0x80000000U

/* Record types (header bytes 4..7). */
#define SMARTIO_RING_REC_DATA	1
#define SMARTIO_RING_REC_PAD	2

/**
 * struct smartio_ring_slot - Where the producer writes a record.
 * @pad_off: Offset of the PAD record to write first; meaningful only when
 *	@pad_len is not 0.
 * @pad_len: Bytes the PAD record takes (to the end of the ring, its header
 *	included), or 0 if no PAD is needed.
 * @off: Offset of the data record's header; its payload follows at
 *	@off + SMARTIO_RING_HDR_LEN.
 * @rec_len: Bytes the data record takes, header and padding included.
 * @next_head: Value of the head counter to publish once both records are
 *	written (head + @pad_len + @rec_len).
 */
struct smartio_ring_slot {
	u32 pad_off;
	u32 pad_len;
	u32 off;
	u32 rec_len;
	u32 next_head;
};

/**
 * struct smartio_ring_rec - The next record for the consumer.
 * @off: Offset of its payload in the ring.
 * @len: Payload bytes.
 * @next_tail: Value of the tail counter to publish once the payload has
 *	been consumed (any PAD before the record included).
 */
struct smartio_ring_rec {
	u32 off;
	u32 len;
	u32 next_tail;
};

/**
 * smartio_ring_size_valid() - Check a ring size.
 * @size: Ring size in bytes.
 *
 * Return: true if @size is a power of two from SMARTIO_RING_MIN_SIZE to
 * SMARTIO_RING_MAX_SIZE.
 */
static inline bool smartio_ring_size_valid(u32 size)
{
	return size >= SMARTIO_RING_MIN_SIZE && size <= SMARTIO_RING_MAX_SIZE &&
	       (size & (size - 1)) == 0;
}

/**
 * smartio_ring_offset() - Byte offset in the ring of a counter.
 * @size: Valid ring size.
 * @counter: Free-running head or tail counter.
 *
 * Return: @counter modulo @size.
 */
static inline u32 smartio_ring_offset(u32 size, u32 counter)
{
	return counter & (size - 1);
}

/**
 * smartio_ring_used() - Bytes written but not yet consumed.
 * @head: Producer counter.
 * @tail: Consumer counter.
 *
 * Return: head - tail modulo 2^32; more than the ring size means a corrupt
 * counter.
 */
static inline u32 smartio_ring_used(u32 head, u32 tail)
{
	return head - tail;
}

/**
 * smartio_ring_free() - Bytes the producer may still write.
 * @size: Valid ring size.
 * @head: Producer counter.
 * @tail: Consumer counter.
 *
 * Return: @size minus the used bytes, or 0 if the counters are corrupt
 * (used above @size), so that a producer never overwrites unread data.
 */
static inline u32 smartio_ring_free(u32 size, u32 head, u32 tail)
{
	u32 used = smartio_ring_used(head, tail);

	return used > size ? 0 : size - used;
}

/**
 * smartio_ring_max_payload() - Largest payload of one record.
 * @size: Valid ring size.
 *
 * Return: Payload bytes of the largest record (size / 2 bytes in all).
 */
static inline u32 smartio_ring_max_payload(u32 size)
{
	return size / 2 - SMARTIO_RING_HDR_LEN;
}

/**
 * smartio_ring_rec_len() - Bytes a record takes in the ring.
 * @len: Payload bytes, at most SMARTIO_RING_MAX_SIZE.
 *
 * Return: SMARTIO_RING_HDR_LEN + @len, rounded up to SMARTIO_RING_ALIGN.
 */
static inline u32 smartio_ring_rec_len(u32 len)
{
	return (SMARTIO_RING_HDR_LEN + len + SMARTIO_RING_ALIGN - 1) &
	       ~(u32)(SMARTIO_RING_ALIGN - 1);
}

int smartio_ring_reserve(u32 size, u32 head, u32 tail, u32 len,
			 struct smartio_ring_slot *slot);
void smartio_ring_hdr_encode(void *hdr, u32 type, u32 len);
int smartio_ring_peek(const void *ring, u32 size, u32 head, u32 tail,
		      struct smartio_ring_rec *rec);

#endif /* _SMARTIO_RING_H */
