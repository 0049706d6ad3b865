// SPDX-License-Identifier: GPL-2.0
/*
 * Wire encoding of the messages of the smartio request/response channel
 * (format in include/smartio/msg.h).
 *
 * Pure logic: no kernel headers, built both into the kernel module and into
 * the userspace unit tests.  Every field is stored byte by byte, so the
 * result is little-endian on any host and the buffer needs no alignment.
 */
#include <smartio/compat.h>
#include <smartio/le.h>
#include <smartio/msg.h>

/* Header field offsets. */
#define MSG_OFF_VERSION	0
#define MSG_OFF_KIND	1
#define MSG_OFF_OP	2
#define MSG_OFF_SEQ	4
#define MSG_OFF_ID	8
#define MSG_OFF_STATUS	12
#define MSG_OFF_LEN	16
#define MSG_OFF_FLAGS	20

/* The kind, op and status rules shared by encode and decode. */
static bool msg_fields_valid(u8 kind, u16 op, s32 status)
{
	if (op == 0)
		return false;
	switch (kind) {
	case SMARTIO_MSG_REQUEST:
	case SMARTIO_MSG_EVENT:
		return status == 0;
	case SMARTIO_MSG_RESPONSE:
		return status <= 0 && status >= -SMARTIO_MSG_MAX_ERRNO;
	default:
		return false;
	}
}

/**
 * smartio_msg_encode() - Encode a message into its wire format.
 * @m: Message to encode.
 * @buf: Destination buffer, any alignment.
 * @buflen: Size of @buf in bytes.
 *
 * The message is checked first: @m->kind must be a known kind, @m->op
 * non-zero, @m->status 0 in a request or event and 0 or a negative errno
 * (at least -SMARTIO_MSG_MAX_ERRNO) in a response, @m->len at most
 * SMARTIO_MSG_MAX_PAYLOAD and @m->payload non-NULL unless @m->len is 0.
 * @buf is not written to unless the call succeeds.
 *
 * Return: Bytes written (SMARTIO_MSG_HDR_LEN + @m->len) on success,
 * -EINVAL if @m is NULL or invalid or @buf is NULL while @buflen is not 0,
 * -ENOSPC if @buflen is smaller than the encoded message.
 */
int smartio_msg_encode(const struct smartio_msg *m, void *buf, size_t buflen)
{
	const u8 *src;
	u8 *p = buf;
	size_t total;
	u32 i;

	if (!m || (!buf && buflen))
		return -EINVAL;
	if (!msg_fields_valid(m->kind, m->op, m->status))
		return -EINVAL;
	if (m->len > SMARTIO_MSG_MAX_PAYLOAD || (m->len && !m->payload))
		return -EINVAL;

	total = smartio_msg_wire_len(m);
	if (buflen < total)
		return -ENOSPC;

	p[MSG_OFF_VERSION] = SMARTIO_MSG_VERSION;
	p[MSG_OFF_KIND] = m->kind;
	smartio_put_le16(p + MSG_OFF_OP, m->op);
	smartio_put_le32(p + MSG_OFF_SEQ, m->seq);
	smartio_put_le32(p + MSG_OFF_ID, m->id);
	smartio_put_le32(p + MSG_OFF_STATUS, (u32)m->status);
	smartio_put_le32(p + MSG_OFF_LEN, m->len);
	smartio_put_le32(p + MSG_OFF_FLAGS, 0);

	src = m->payload;
	for (i = 0; i < m->len; i++)
		p[SMARTIO_MSG_HDR_LEN + i] = src[i];

	return (int)total;
}
EXPORT_SYMBOL_GPL(smartio_msg_encode);

/**
 * smartio_msg_decode() - Decode one message from its wire format.
 * @buf: Source buffer, any alignment; it may hold more than one message.
 * @buflen: Bytes available at @buf.
 * @out: Receives the message on success; left untouched on error.
 *	@out->payload points into @buf, just past the header (even when the
 *	payload is empty), so @buf must outlive its use.
 *
 * Each header byte is read exactly once, so a buffer the peer may still be
 * writing cannot make a checked field change afterwards; the payload is
 * not copied.
 *
 * Return: Bytes consumed (SMARTIO_MSG_HDR_LEN + payload length; the next
 * message, if any, starts there) on success, -EINVAL if @out is NULL or
 * @buf is NULL while @buflen is not 0, -EPROTONOSUPPORT if the version is
 * not SMARTIO_MSG_VERSION, -EBADMSG if @buflen is shorter than the header
 * or than the message, or the header is malformed: payload length above
 * SMARTIO_MSG_MAX_PAYLOAD, unknown kind, op 0, non-zero flags, positive
 * status or one below -SMARTIO_MSG_MAX_ERRNO, non-zero status in a request
 * or event.
 */
int smartio_msg_decode(const void *buf, size_t buflen, struct smartio_msg *out)
{
	u8 hdr[SMARTIO_MSG_HDR_LEN];
	const u8 *p = buf;
	s32 status;
	u32 len, i;
	u16 op;

	if (!out || (!buf && buflen))
		return -EINVAL;
	if (buflen < SMARTIO_MSG_HDR_LEN)
		return -EBADMSG;

	for (i = 0; i < SMARTIO_MSG_HDR_LEN; i++)
		hdr[i] = p[i];

	if (hdr[MSG_OFF_VERSION] != SMARTIO_MSG_VERSION)
		return -EPROTONOSUPPORT;

	op = smartio_get_le16(hdr + MSG_OFF_OP);
	status = (s32)smartio_get_le32(hdr + MSG_OFF_STATUS);
	len = smartio_get_le32(hdr + MSG_OFF_LEN);

	if (!msg_fields_valid(hdr[MSG_OFF_KIND], op, status))
		return -EBADMSG;
	if (smartio_get_le32(hdr + MSG_OFF_FLAGS) != 0)
		return -EBADMSG;
	if (len > SMARTIO_MSG_MAX_PAYLOAD ||
	    len > buflen - SMARTIO_MSG_HDR_LEN)
		return -EBADMSG;

	out->kind = hdr[MSG_OFF_KIND];
	out->op = op;
	out->seq = smartio_get_le32(hdr + MSG_OFF_SEQ);
	out->id = smartio_get_le32(hdr + MSG_OFF_ID);
	out->status = status;
	out->len = len;
	out->payload = p + SMARTIO_MSG_HDR_LEN;

	return (int)(SMARTIO_MSG_HDR_LEN + len);
}
EXPORT_SYMBOL_GPL(smartio_msg_decode);
