/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages of the smartio kernel-to-kernel request/response channel.
 *
 * Every control operation between two nodes (borrow, config-space access,
 * window set-up...) travels as one message: a fixed 24-byte header followed
 * by up to SMARTIO_MSG_MAX_PAYLOAD bytes of payload.  Wire format, every
 * field little-endian whatever the host:
 *
 *	offset	size	field
 *	0	u8	version		SMARTIO_MSG_VERSION
 *	1	u8	kind		SMARTIO_MSG_REQUEST, _RESPONSE or _EVENT
 *	2	u16	op		operation code, opaque here but never 0
 *	4	u32	seq		per-peer sequence number
 *	8	u32	id		request id; a response carries its request's
 *	12	s32	status		0, or in a response 0 or -errno (>= -4095)
 *	16	u32	len		payload bytes following the header
 *	20	u32	flags		reserved, must be 0
 *	24	len	payload
 *
 * A header with another version is rejected as a whole (its layout may
 * differ); everything else that breaks the rules above is malformed.
 */
#ifndef _SMARTIO_MSG_H
#define _SMARTIO_MSG_H

#include <smartio/compat.h>

#define SMARTIO_MSG_VERSION	1

/* Message kinds (header byte 1). */
#define SMARTIO_MSG_REQUEST	1
#define SMARTIO_MSG_RESPONSE	2
#define SMARTIO_MSG_EVENT	3

#define SMARTIO_MSG_HDR_LEN	24
/* Largest message, header included. */
#define SMARTIO_MSG_MAX_LEN	4096
#define SMARTIO_MSG_MAX_PAYLOAD	(SMARTIO_MSG_MAX_LEN - SMARTIO_MSG_HDR_LEN)
/* Most negative status a response may carry (like the kernel's MAX_ERRNO). */
#define SMARTIO_MSG_MAX_ERRNO	4095

/**
 * struct smartio_msg - A message, decoded.
 * @kind: SMARTIO_MSG_REQUEST, SMARTIO_MSG_RESPONSE or SMARTIO_MSG_EVENT.
 * @op: Operation code, never 0.
 * @seq: Per-peer sequence number.
 * @id: Request id; a response carries the id of its request.
 * @status: 0 in requests and events; 0 or a negative errno (at least
 *	-SMARTIO_MSG_MAX_ERRNO) in responses.
 * @len: Payload length in bytes, at most SMARTIO_MSG_MAX_PAYLOAD.
 * @payload: The @len payload bytes; may be NULL only when @len is 0.  After
 *	smartio_msg_decode() it points into the decoded buffer.
 */
struct smartio_msg {
	u8 kind;
	u16 op;
	u32 seq;
	u32 id;
	s32 status;
	u32 len;
	const void *payload;
};

/**
 * smartio_msg_wire_len() - Bytes a message takes on the wire.
 * @m: Message (its @len is not checked).
 *
 * Return: SMARTIO_MSG_HDR_LEN + @m->len.
 */
static inline size_t smartio_msg_wire_len(const struct smartio_msg *m)
{
	return (size_t)SMARTIO_MSG_HDR_LEN + m->len;
}

/**
 * smartio_msg_init_response() - Start the response to a request.
 * @resp: Message to fill in; may not alias @req.
 * @req: The request being answered.
 * @status: 0 or a negative errno (at least -SMARTIO_MSG_MAX_ERRNO).
 *
 * Sets @resp to a response with the op and id of @req, the given status,
 * seq 0 (the channel numbers what it sends) and no payload; the caller may
 * then set @resp->payload and @resp->len.
 */
static inline void smartio_msg_init_response(struct smartio_msg *resp,
					     const struct smartio_msg *req,
					     s32 status)
{
	resp->kind = SMARTIO_MSG_RESPONSE;
	resp->op = req->op;
	resp->seq = 0;
	resp->id = req->id;
	resp->status = status;
	resp->len = 0;
	resp->payload = NULL;
}

int smartio_msg_encode(const struct smartio_msg *m, void *buf, size_t buflen);
int smartio_msg_decode(const void *buf, size_t buflen, struct smartio_msg *out);

#endif /* _SMARTIO_MSG_H */
