// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for channel messages (lib/msg.c, include/smartio/msg.h).
 */
#include <stdio.h>
#include <string.h>
#include <limits.h>

#include <smartio/msg.h>

#include "unit.h"

#define N_ELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

#define FILL	0xa5

static const struct smartio_msg sentinel = {
	.kind = 0xee, .op = 0xeeee, .seq = 0xdeadbeefU, .id = 0xfeedfaceU,
	.status = 12345, .len = 0xcafef00dU, .payload = &sentinel,
};

static int msg_eq(const struct smartio_msg *a, const struct smartio_msg *b)
{
	return a->kind == b->kind && a->op == b->op && a->seq == b->seq &&
	       a->id == b->id && a->status == b->status && a->len == b->len &&
	       a->payload == b->payload;
}

static int all_bytes(const u8 *p, size_t n, u8 v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

static u32 xorshift32(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* ---- golden vector / layout ---- */

static const u8 golden_payload[] = { 'a', 'b', 'c' };

static const struct smartio_msg golden = {
	.kind = SMARTIO_MSG_RESPONSE, .op = 0x1234, .seq = 0x89abcdefU,
	.id = 0x01020304, .status = -22, .len = 3, .payload = golden_payload,
};

static const u8 golden_bytes[] = {
	0x01,				/* version */
	0x02,				/* kind: response */
	0x34, 0x12,			/* op */
	0xef, 0xcd, 0xab, 0x89,		/* seq */
	0x04, 0x03, 0x02, 0x01,		/* id */
	0xea, 0xff, 0xff, 0xff,		/* status -22 */
	0x03, 0x00, 0x00, 0x00,		/* len */
	0x00, 0x00, 0x00, 0x00,		/* flags */
	'a', 'b', 'c',			/* payload */
};

START_TEST(test_golden_encode)
{
	u8 buf[64];
	int ret;

	memset(buf, FILL, sizeof(buf));
	ret = smartio_msg_encode(&golden, buf, sizeof(buf));
	ck_assert_int_eq(ret, (int)sizeof(golden_bytes));
	ck_assert_int_eq(ret, 27);
	ck_assert_mem_eq(buf, golden_bytes, sizeof(golden_bytes));
	/* Nothing written past the message. */
	ck_assert(all_bytes(buf + ret, sizeof(buf) - ret, FILL));
}
END_TEST

START_TEST(test_golden_decode)
{
	struct smartio_msg m = sentinel, want = golden;
	int ret;

	ret = smartio_msg_decode(golden_bytes, sizeof(golden_bytes), &m);
	ck_assert_int_eq(ret, (int)sizeof(golden_bytes));
	want.payload = golden_bytes + SMARTIO_MSG_HDR_LEN;
	ck_assert(msg_eq(&m, &want));
}
END_TEST

/* Every multi-byte field, with distinct bytes, read back little-endian. */
START_TEST(test_little_endian)
{
	static const u8 hdr[SMARTIO_MSG_HDR_LEN] = {
		1, SMARTIO_MSG_REQUEST, 0x01, 0x80,	/* op 0x8001 */
		0x11, 0x22, 0x33, 0x44,			/* seq */
		0x55, 0x66, 0x77, 0x88,			/* id */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	static const u8 rsp[SMARTIO_MSG_HDR_LEN] = {
		1, SMARTIO_MSG_RESPONSE, 0xff, 0x00,	/* op 0x00ff */
		0, 0, 0, 0, 0, 0, 0, 0,
		0x01, 0xf0, 0xff, 0xff,			/* status -4095 */
		0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct smartio_msg m = sentinel;
	u8 buf[SMARTIO_MSG_HDR_LEN];
	u32 one = 1;

	ck_assert_int_eq(smartio_msg_decode(hdr, sizeof(hdr), &m), 24);
	ck_assert_uint_eq(m.op, 0x8001);
	ck_assert_uint_eq(m.seq, 0x44332211U);
	ck_assert_uint_eq(m.id, 0x88776655U);
	ck_assert_int_eq(smartio_msg_encode(&m, buf, sizeof(buf)), 24);
	ck_assert_mem_eq(buf, hdr, sizeof(hdr));

	ck_assert_int_eq(smartio_msg_decode(rsp, sizeof(rsp), &m), 24);
	ck_assert_uint_eq(m.op, 0xff);
	ck_assert_int_eq(m.status, -4095);
	ck_assert_int_eq(smartio_msg_encode(&m, buf, sizeof(buf)), 24);
	ck_assert_mem_eq(buf, rsp, sizeof(rsp));

	/* Same bytes whatever the host: compare with the host's own order. */
	if (*(u8 *)&one == 1) {
		u32 seq;

		memcpy(&seq, hdr + 4, 4);
		ck_assert_uint_eq(seq, 0x44332211U);
	}
}
END_TEST

/* ---- round trip ---- */

static u8 rt_buf[SMARTIO_MSG_MAX_LEN + 16];
static u8 rt_payload[SMARTIO_MSG_MAX_PAYLOAD];

static void roundtrip_one(const struct smartio_msg *m)
{
	struct smartio_msg got = sentinel, want = *m;
	size_t total = SMARTIO_MSG_HDR_LEN + m->len;
	int ret;

	memset(rt_buf, FILL, sizeof(rt_buf));
	ret = smartio_msg_encode(m, rt_buf, sizeof(rt_buf));
	if (ret != (int)total)
		ck_abort_msg("encode kind %u op %#x status %d len %u = %d",
			     m->kind, m->op, m->status, m->len, ret);
	if (!all_bytes(rt_buf + total, sizeof(rt_buf) - total, FILL))
		ck_abort_msg("encode len %u wrote past the message", m->len);

	ret = smartio_msg_decode(rt_buf, sizeof(rt_buf), &got);
	want.payload = rt_buf + SMARTIO_MSG_HDR_LEN;
	if (ret != (int)total || !msg_eq(&got, &want) ||
	    memcmp(got.payload, m->payload ? m->payload : "", m->len))
		ck_abort_msg("round trip kind %u op %#x seq %#x id %#x status %d len %u: ret %d",
			     m->kind, m->op, m->seq, m->id, m->status, m->len,
			     ret);

	/* Exactly the message's bytes are enough. */
	got = sentinel;
	ret = smartio_msg_decode(rt_buf, total, &got);
	if (ret != (int)total || !msg_eq(&got, &want))
		ck_abort_msg("exact-length decode len %u: %d", m->len, ret);
}

START_TEST(test_roundtrip_edges)
{
	static const u16 ops[] = { 1, 2, 0xff, 0x100, 0x7fff, 0x8000, 0xffff };
	static const u32 words[] = { 0, 1, 0xff, 0x100, 0x7fffffffU,
				     0x80000000U, 0xfffffffeU, 0xffffffffU };
	static const s32 statuses[] = { 0, -1, -22, -4094, -4095 };
	static const u32 lens[] = { 0, 1, 7, 8, 255, 256,
				    SMARTIO_MSG_MAX_PAYLOAD - 1,
				    SMARTIO_MSG_MAX_PAYLOAD };
	struct smartio_msg m;
	unsigned int i, j, k;

	for (i = 0; i < sizeof(rt_payload); i++)
		rt_payload[i] = (u8)(i * 7 + 3);

	for (i = 0; i < N_ELEM(ops); i++) {
		for (j = 0; j < N_ELEM(words); j++) {
			for (k = 0; k < N_ELEM(lens); k++) {
				m = (struct smartio_msg){
					.kind = SMARTIO_MSG_REQUEST,
					.op = ops[i], .seq = words[j],
					.id = words[N_ELEM(words) - 1 - j],
					.len = lens[k],
					.payload = lens[k] ? rt_payload : NULL,
				};
				roundtrip_one(&m);
				m.kind = SMARTIO_MSG_EVENT;
				roundtrip_one(&m);
				m.kind = SMARTIO_MSG_RESPONSE;
				m.status = statuses[(i + j + k) %
						    N_ELEM(statuses)];
				roundtrip_one(&m);
			}
		}
	}
}
END_TEST

START_TEST(test_roundtrip_random)
{
	u32 x = 2463534242U;	/* xorshift32 seed */
	struct smartio_msg m;
	unsigned int i, j;

	for (i = 0; i < 20000; i++) {
		u32 r = xorshift32(&x);

		m.kind = 1 + r % 3;
		m.op = (u16)(xorshift32(&x) % 0xffff + 1);
		m.seq = xorshift32(&x);
		m.id = xorshift32(&x);
		m.status = 0;
		if (m.kind == SMARTIO_MSG_RESPONSE && (r >> 8) & 1)
			m.status = -(s32)(xorshift32(&x) % 4095 + 1);
		/* Mostly small payloads, sometimes up to the maximum. */
		if ((r >> 9) & 7)
			m.len = xorshift32(&x) % 65;
		else
			m.len = xorshift32(&x) % (SMARTIO_MSG_MAX_PAYLOAD + 1);
		for (j = 0; j < m.len; j++)
			rt_payload[j] = (u8)xorshift32(&x);
		m.payload = m.len || (r >> 12) & 1 ? rt_payload : NULL;
		roundtrip_one(&m);
	}
}
END_TEST

START_TEST(test_response_helper)
{
	struct smartio_msg req = {
		.kind = SMARTIO_MSG_REQUEST, .op = 0x42, .seq = 7, .id = 99,
		.len = 3, .payload = "abc",
	};
	struct smartio_msg resp = sentinel, got = sentinel;
	u8 buf[64];
	int ret;

	smartio_msg_init_response(&resp, &req, -5);
	ck_assert_uint_eq(resp.kind, SMARTIO_MSG_RESPONSE);
	ck_assert_uint_eq(resp.op, 0x42);
	ck_assert_uint_eq(resp.id, 99);
	ck_assert_uint_eq(resp.seq, 0);
	ck_assert_int_eq(resp.status, -5);
	ck_assert_uint_eq(resp.len, 0);
	ck_assert_ptr_null(resp.payload);

	ret = smartio_msg_encode(&resp, buf, sizeof(buf));
	ck_assert_int_eq(ret, 24);
	ck_assert_int_eq(smartio_msg_decode(buf, ret, &got), 24);
	ck_assert_uint_eq(got.id, req.id);
	ck_assert_int_eq(got.status, -5);
}
END_TEST

/* ---- decode errors ---- */

/* A valid header (status 0) with payload length @len, in a zeroed buffer. */
static void make_hdr(u8 *buf, size_t buflen, u8 kind, u16 op, u32 len)
{
	memset(buf, 0, buflen);
	buf[0] = SMARTIO_MSG_VERSION;
	buf[1] = kind;
	buf[2] = (u8)op;
	buf[3] = (u8)(op >> 8);
	buf[16] = (u8)len;
	buf[17] = (u8)(len >> 8);
	buf[18] = (u8)(len >> 16);
	buf[19] = (u8)(len >> 24);
}

static void put32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

static u8 dec_buf[SMARTIO_MSG_MAX_LEN + 64];

START_TEST(test_decode_truncated_header)
{
	struct smartio_msg m = sentinel;
	int ret;

	make_hdr(dec_buf, sizeof(dec_buf), SMARTIO_MSG_REQUEST, 7, 0);
	ret = smartio_msg_decode(dec_buf, (size_t)_i, &m);
	ck_assert_msg(ret == -EBADMSG, "decode(%d bytes) = %d, want -EBADMSG",
		      _i, ret);
	ck_assert(msg_eq(&m, &sentinel));
	/* A bad version does not change the answer for a short buffer. */
	dec_buf[0] = 2;
	ck_assert_int_eq(smartio_msg_decode(dec_buf, (size_t)_i, &m), -EBADMSG);
	ck_assert(msg_eq(&m, &sentinel));
}
END_TEST

static const struct {
	const char *what;
	u8 kind;
	u16 op;
	u32 len;	/* header's payload length */
	size_t buflen;
	int off;	/* byte to patch, -1 for none */
	u8 val;
	int word;	/* 1: patch the u32 at off with wval instead */
	u32 wval;
	int want;
} dec_cases[] = {
#define REQ SMARTIO_MSG_REQUEST
#define RSP SMARTIO_MSG_RESPONSE
#define EVT SMARTIO_MSG_EVENT
	{ "header only", REQ, 7, 0, 24, -1, 0, 0, 0, 24 },
	{ "len 10, buf 34", REQ, 7, 10, 34, -1, 0, 0, 0, 34 },
	{ "len 10, buf 33", REQ, 7, 10, 33, -1, 0, 0, 0, -EBADMSG },
	{ "len 1, buf 24", REQ, 7, 1, 24, -1, 0, 0, 0, -EBADMSG },
	{ "len 10, buf 35", REQ, 7, 10, 35, -1, 0, 0, 0, 34 },
	{ "len max", REQ, 7, SMARTIO_MSG_MAX_PAYLOAD, 4096, -1, 0, 0, 0, 4096 },
	{ "len max, buf short", REQ, 7, SMARTIO_MSG_MAX_PAYLOAD, 4095,
	  -1, 0, 0, 0, -EBADMSG },
	{ "len max+1", REQ, 7, SMARTIO_MSG_MAX_PAYLOAD + 1, 4097,
	  -1, 0, 0, 0, -EBADMSG },
	{ "len 0xffffffff", REQ, 7, 0, 4097, 16, 0, 1, 0xffffffffU, -EBADMSG },
	{ "len 0xffffffe8", REQ, 7, 0, 4097, 16, 0, 1, 0xffffffe8U, -EBADMSG },
	{ "version 0", REQ, 7, 0, 24, 0, 0, 0, 0, -EPROTONOSUPPORT },
	{ "version 2", REQ, 7, 0, 24, 0, 2, 0, 0, -EPROTONOSUPPORT },
	{ "version 0xff", REQ, 7, 0, 24, 0, 0xff, 0, 0, -EPROTONOSUPPORT },
	{ "kind 0", REQ, 7, 0, 24, 1, 0, 0, 0, -EBADMSG },
	{ "kind 4", REQ, 7, 0, 24, 1, 4, 0, 0, -EBADMSG },
	{ "kind 0xff", REQ, 7, 0, 24, 1, 0xff, 0, 0, -EBADMSG },
	{ "event ok", EVT, 7, 0, 24, -1, 0, 0, 0, 24 },
	{ "response ok", RSP, 7, 0, 24, -1, 0, 0, 0, 24 },
	{ "op 0", REQ, 0, 0, 24, -1, 0, 0, 0, -EBADMSG },
	{ "op 0x100", REQ, 0x100, 0, 24, -1, 0, 0, 0, 24 },
	{ "op 0xffff", REQ, 0xffff, 0, 24, -1, 0, 0, 0, 24 },
	{ "response op 0", RSP, 0, 0, 24, -1, 0, 0, 0, -EBADMSG },
	{ "flags bit 0", REQ, 7, 0, 24, 20, 1, 0, 0, -EBADMSG },
	{ "flags bit 31", REQ, 7, 0, 24, 23, 0x80, 0, 0, -EBADMSG },
	{ "flags bit 15", RSP, 7, 0, 24, 21, 0x80, 0, 0, -EBADMSG },
	{ "request status -1", REQ, 7, 0, 24, 12, 0, 1, 0xffffffffU, -EBADMSG },
	{ "request status 1", REQ, 7, 0, 24, 12, 0, 1, 1, -EBADMSG },
	{ "event status -1", EVT, 7, 0, 24, 12, 0, 1, 0xffffffffU, -EBADMSG },
	{ "response status -1", RSP, 7, 0, 24, 12, 0, 1, 0xffffffffU, 24 },
	{ "response status -4095", RSP, 7, 0, 24, 12, 0, 1, (u32)-4095, 24 },
	{ "response status -4096", RSP, 7, 0, 24, 12, 0, 1, (u32)-4096,
	  -EBADMSG },
	{ "response status 1", RSP, 7, 0, 24, 12, 0, 1, 1, -EBADMSG },
	{ "response status INT_MAX", RSP, 7, 0, 24, 12, 0, 1, 0x7fffffffU,
	  -EBADMSG },
	{ "response status INT_MIN", RSP, 7, 0, 24, 12, 0, 1, 0x80000000U,
	  -EBADMSG },
#undef REQ
#undef RSP
#undef EVT
};

START_TEST(test_decode_cases)
{
	struct smartio_msg m = sentinel;
	int ret;

	make_hdr(dec_buf, sizeof(dec_buf), dec_cases[_i].kind, dec_cases[_i].op,
		 dec_cases[_i].len);
	if (dec_cases[_i].word)
		put32(dec_buf + dec_cases[_i].off, dec_cases[_i].wval);
	else if (dec_cases[_i].off >= 0)
		dec_buf[dec_cases[_i].off] = dec_cases[_i].val;

	ret = smartio_msg_decode(dec_buf, dec_cases[_i].buflen, &m);
	ck_assert_msg(ret == dec_cases[_i].want, "%s: decode = %d, want %d",
		      dec_cases[_i].what, ret, dec_cases[_i].want);
	if (ret < 0) {
		ck_assert_msg(msg_eq(&m, &sentinel), "%s: out changed",
			      dec_cases[_i].what);
	} else {
		ck_assert_uint_eq(m.len, ret - SMARTIO_MSG_HDR_LEN);
		ck_assert_ptr_eq(m.payload, dec_buf + SMARTIO_MSG_HDR_LEN);
	}
}
END_TEST

START_TEST(test_decode_null)
{
	struct smartio_msg m = sentinel;

	ck_assert_int_eq(smartio_msg_decode(golden_bytes, sizeof(golden_bytes),
					    NULL), -EINVAL);
	ck_assert_int_eq(smartio_msg_decode(NULL, 24, &m), -EINVAL);
	ck_assert_int_eq(smartio_msg_decode(NULL, 0, &m), -EBADMSG);
	ck_assert(msg_eq(&m, &sentinel));
}
END_TEST

START_TEST(test_decode_back_to_back)
{
	struct smartio_msg a = golden, b = {
		.kind = SMARTIO_MSG_EVENT, .op = 9, .seq = 2, .id = 3,
		.len = 5, .payload = "hello",
	}, c = {
		.kind = SMARTIO_MSG_REQUEST, .op = 1, .seq = 3, .id = 4,
	};
	struct smartio_msg got = sentinel;
	u8 buf[128];
	size_t pos = 0, left;
	int na, nb, nc, ret;

	memset(buf, FILL, sizeof(buf));
	na = smartio_msg_encode(&a, buf, sizeof(buf));
	ck_assert_int_eq(na, 27);
	nb = smartio_msg_encode(&b, buf + na, sizeof(buf) - na);
	ck_assert_int_eq(nb, 29);
	nc = smartio_msg_encode(&c, buf + na + nb, sizeof(buf) - na - nb);
	ck_assert_int_eq(nc, 24);
	left = (size_t)(na + nb + nc);

	ret = smartio_msg_decode(buf, left, &got);
	ck_assert_int_eq(ret, na);
	ck_assert_uint_eq(got.seq, a.seq);
	ck_assert_mem_eq(got.payload, "abc", 3);
	pos += ret;
	left -= ret;

	ret = smartio_msg_decode(buf + pos, left, &got);
	ck_assert_int_eq(ret, nb);
	ck_assert_uint_eq(got.kind, SMARTIO_MSG_EVENT);
	ck_assert_uint_eq(got.len, 5);
	ck_assert_ptr_eq(got.payload, buf + pos + SMARTIO_MSG_HDR_LEN);
	ck_assert_mem_eq(got.payload, "hello", 5);
	pos += ret;
	left -= ret;

	ret = smartio_msg_decode(buf + pos, left, &got);
	ck_assert_int_eq(ret, nc);
	ck_assert_uint_eq(got.op, 1);
	ck_assert_uint_eq(got.id, 4);
	pos += ret;
	left -= ret;
	ck_assert_uint_eq(left, 0);

	/* The FILL bytes that follow are no message (version 0xa5). */
	ck_assert_int_eq(smartio_msg_decode(buf + pos, sizeof(buf) - pos, &got),
			 -EPROTONOSUPPORT);
}
END_TEST

/* ---- encode errors ---- */

static const struct {
	const char *what;
	struct smartio_msg m;
} enc_bad[] = {
	{ "kind 0", { .kind = 0, .op = 1 } },
	{ "kind 4", { .kind = 4, .op = 1 } },
	{ "kind 0xff", { .kind = 0xff, .op = 1 } },
	{ "op 0", { .kind = SMARTIO_MSG_REQUEST, .op = 0 } },
	{ "response op 0", { .kind = SMARTIO_MSG_RESPONSE, .op = 0 } },
	{ "request status -1",
	  { .kind = SMARTIO_MSG_REQUEST, .op = 1, .status = -1 } },
	{ "event status -1",
	  { .kind = SMARTIO_MSG_EVENT, .op = 1, .status = -1 } },
	{ "event status 1",
	  { .kind = SMARTIO_MSG_EVENT, .op = 1, .status = 1 } },
	{ "response status 1",
	  { .kind = SMARTIO_MSG_RESPONSE, .op = 1, .status = 1 } },
	{ "response status -4096",
	  { .kind = SMARTIO_MSG_RESPONSE, .op = 1, .status = -4096 } },
	{ "response status INT_MIN",
	  { .kind = SMARTIO_MSG_RESPONSE, .op = 1, .status = INT_MIN } },
	{ "len max+1",
	  { .kind = SMARTIO_MSG_REQUEST, .op = 1,
	    .len = SMARTIO_MSG_MAX_PAYLOAD + 1, .payload = rt_payload } },
	{ "len 0xffffffff",
	  { .kind = SMARTIO_MSG_REQUEST, .op = 1,
	    .len = 0xffffffffU, .payload = rt_payload } },
	{ "payload NULL, len 1",
	  { .kind = SMARTIO_MSG_REQUEST, .op = 1, .len = 1 } },
};

START_TEST(test_encode_bad)
{
	static u8 buf[2 * SMARTIO_MSG_MAX_LEN];
	int ret;

	memset(buf, FILL, sizeof(buf));
	ret = smartio_msg_encode(&enc_bad[_i].m, buf, sizeof(buf));
	ck_assert_msg(ret == -EINVAL, "%s: encode = %d, want -EINVAL",
		      enc_bad[_i].what, ret);
	ck_assert_msg(all_bytes(buf, sizeof(buf), FILL), "%s: buf written",
		      enc_bad[_i].what);
}
END_TEST

START_TEST(test_encode_null)
{
	u8 buf[32];

	ck_assert_int_eq(smartio_msg_encode(NULL, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(smartio_msg_encode(&golden, NULL, 27), -EINVAL);
	ck_assert_int_eq(smartio_msg_encode(&golden, NULL, 0), -ENOSPC);
}
END_TEST

static const u32 enc_lens[] = { 0, 1, 7, 8, 100, SMARTIO_MSG_MAX_PAYLOAD };

START_TEST(test_encode_exact_and_short)
{
	static u8 buf[SMARTIO_MSG_MAX_LEN + 8];
	struct smartio_msg m = {
		.kind = SMARTIO_MSG_EVENT, .op = 3, .seq = 1, .id = 2,
		.len = enc_lens[_i], .payload = rt_payload,
	};
	size_t total = SMARTIO_MSG_HDR_LEN + m.len;
	int ret;

	memset(buf, FILL, sizeof(buf));
	ret = smartio_msg_encode(&m, buf, total - 1);
	ck_assert_msg(ret == -ENOSPC, "len %u, buflen %zu: %d", m.len,
		      total - 1, ret);
	ck_assert(all_bytes(buf, sizeof(buf), FILL));
	ck_assert_int_eq(smartio_msg_encode(&m, buf, 0), -ENOSPC);
	ck_assert_int_eq(smartio_msg_encode(&m, buf, SMARTIO_MSG_HDR_LEN - 1),
			 -ENOSPC);
	ck_assert(all_bytes(buf, sizeof(buf), FILL));

	ret = smartio_msg_encode(&m, buf, total);
	ck_assert_int_eq(ret, (int)total);
	ck_assert(all_bytes(buf + total, sizeof(buf) - total, FILL));
	ck_assert_int_eq(smartio_msg_decode(buf, total, &m), (int)total);
}
END_TEST

Suite *msg_suite(void)
{
	Suite *s = suite_create("msg");
	TCase *tc;

	tc = tcase_create("layout");
	tcase_add_test(tc, test_golden_encode);
	tcase_add_test(tc, test_golden_decode);
	tcase_add_test(tc, test_little_endian);
	tcase_add_test(tc, test_response_helper);
	suite_add_tcase(s, tc);

	tc = tcase_create("roundtrip");
	tcase_add_test(tc, test_roundtrip_edges);
	tcase_add_test(tc, test_roundtrip_random);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tc = tcase_create("decode");
	tcase_add_loop_test(tc, test_decode_truncated_header, 0,
			    SMARTIO_MSG_HDR_LEN);
	tcase_add_loop_test(tc, test_decode_cases, 0, N_ELEM(dec_cases));
	tcase_add_test(tc, test_decode_null);
	tcase_add_test(tc, test_decode_back_to_back);
	suite_add_tcase(s, tc);

	tc = tcase_create("encode");
	tcase_add_loop_test(tc, test_encode_bad, 0, N_ELEM(enc_bad));
	tcase_add_test(tc, test_encode_null);
	tcase_add_loop_test(tc, test_encode_exact_and_short, 0,
			    N_ELEM(enc_lens));
	suite_add_tcase(s, tc);

	return s;
}
