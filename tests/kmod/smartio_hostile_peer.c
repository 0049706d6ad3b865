// SPDX-License-Identifier: GPL-2.0
/*
 * Test module: a hostile peer (tests/vm/fuzz-peer). Loaded on one node, it
 * sends another node random and malformed messages of every op over the
 * messaging channel (ntb/msg.c), and valid ones out of order; the other
 * node must take them all and stay whole.
 *
 *	echo "NODE SEED COUNT LENT BORROWED SEGMENT BUDGET CONFIG" \
 *		> <debugfs>/smartio_hostile_peer/run
 *	cat <debugfs>/smartio_hostile_peer/report
 *	echo "NODE KIND" > <debugfs>/smartio_hostile_peer/ring
 *
 * NODE is the target; LENT an fdid it lends (available: this module may
 * borrow it), BORROWED an fdid of ours it has borrowed, SEGMENT a segment
 * it exported to us (SEGMENT + 1 must be one it did not). COUNT inputs
 * (at least 1) are drawn from SEED, each:
 *
 *  - an op: one with a handler (ECHO, SEGMENT_INFO, DEVICE_NEXT, BORROW,
 *    RETURN, CONFIG_WRITE, RECLAIMED, CONFIG_READ, RESET,
 *    SEGMENT_DISCONNECT, SEGMENT_REVOKE, RETURNING, DMA_MAP, DMA_UNMAP,
 *    AVAILABLE, PEER_MAP, PEER_UNMAP), the retired 3, one without
 *    (20-63), or one past
 *    SMARTIO_MSG_OP_MAX; never LEAVING (14),
 *    which closes the target's channel to us (ntb/msg.c, "Leaving"):
 *    what came after it would not be read;
 *  - a payload of the op's wire format (lend/lend_priv.h, ntb/segment.c)
 *    with random fields or fields from what exists (LENT, BORROWED,
 *    SEGMENT, the target's and our node ids), of a random length: 0,
 *    short, exact, long, the maximum, or any;
 *  - sent as a request (smartio_msg_call(), the status counted), an
 *    event (smartio_msg_post()), or raw (smartio_msg_post_raw(): a header
 *    of any kind and id that, each with even chances, breaks the framing
 *    (a version, kind or flags the decoder refuses, or the record cut
 *    short), carries a sequence number of its own, not the channel's
 *    (SMARTIO_MSG_RAW_SEQ), or a length field other than the payload's).
 *
 * Ops: one in ten is 0, the retired 3, one without a handler or one past
 * SMARTIO_MSG_OP_MAX; the rest are spread over the ops with a handler.
 * The report counts the raw records that reach the target's decoder
 * (ntb/msg.c, smartio_msg_rx_one()) broken in any of these ways or with
 * an op without a handler ("decoder records"), those of them the decoder
 * must refuse ("refused", as smartio_msg_decode() here judges the same
 * bytes: the target's "received malformed" counter must grow by as much),
 * and per op with a handler the records the decoder passes to it, their
 * payload fuzzed ("handler:": requests answered, events and raw records
 * of kind request or event posted).
 *
 * An input that may change the target's state for real and cost it a
 * reset (a BORROW, RETURN, RETURNING, RECLAIMED or RESET of LENT or
 * BORROWED, well formed) uses up one of BUDGET, random inputs half of it
 * at most, the scenario below the rest; past it, the fdid sent is one next to it. CONFIG 0: no
 * random config write or read names LENT (the target would write its device's
 * config space: what is left of it is the config-space issue's, not the
 * wire's); 1: they do, whenever this module holds LENT.
 *
 * Every COUNT/64 inputs comes a scenario step: valid messages in an order
 * a borrower would not send them (RETURN before BORROW, a second BORROW,
 * RETURN of what another node lends, RECLAIMED of what the target
 * borrowed, AVAILABLE of the target's own device and of ours), whose answers are known: each that differs is a violation.
 * At the end LENT is returned if this module holds it. The report: the
 * seed, counts per op, way of sending and outcome, per length, the
 * scenario's steps, the violations (which must be 0).
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/unaligned.h>

#include "smartio/fdid.h"
#include "smartio/ntb.h"
#include "smartio/ring.h"
#include "../../lend/lend_priv.h"

/*
 * Op classes counted: 0, 1-19 by name (LEAVING, 14, never sent), 20-63 (no
 * handler), 64 and above.
 */
#define HP_OP_LAST		SMARTIO_MSG_OP_PEER_UNMAP
#define HP_OP_CLASSES	(HP_OP_LAST + 3)
#define HP_OP_UNREGISTERED	(HP_OP_LAST + 1)
#define HP_OP_PAST_MAX		(HP_OP_LAST + 2)

enum hp_way { HP_REQUEST, HP_EVENT, HP_RAW, HP_WAYS };
/* How a raw record is broken: the HP_BREAK_* bits of hp_raw(). */
enum hp_break { HP_BREAK_FRAMING, HP_BREAK_SEQ, HP_BREAK_LENGTH, HP_BREAK_OP,
		HP_BREAKS };
enum hp_len { HP_LEN_ZERO, HP_LEN_SHORT, HP_LEN_EXACT, HP_LEN_LONG,
	      HP_LEN_MAX, HP_LEN_ANY, HP_LENS };

#define HP_E(e)	{ e, #e }

static const struct {
	int err;
	const char *name;
} hp_errnos[] = {
	{ 0, "ok" }, HP_E(EINVAL), HP_E(EPERM), HP_E(ENOENT), HP_E(EBUSY),
	HP_E(EACCES), HP_E(EOPNOTSUPP), HP_E(EXDEV), HP_E(ETIMEDOUT),
	HP_E(EMSGSIZE), HP_E(EBADMSG), HP_E(ENOTCONN), HP_E(EHOSTUNREACH),
	HP_E(EAGAIN), HP_E(ENOMEM), HP_E(EALREADY),
};

#define HP_OUTCOMES	(ARRAY_SIZE(hp_errnos) + 1)	/* and "other" */
#define HP_STEPS	14
#define HP_VIOLATIONS_SHOWN	8

static const char * const hp_op_names[HP_OP_CLASSES] = {
	"op-0", "echo", "segment-info", "retired-3", "device-next", "borrow",
	"return", "config-write", "reclaimed", "config-read", "reset",
	"segment-disconnect", "segment-revoke", "returning", "leaving",
	"dma-map", "dma-unmap", "available", "peer-map", "peer-unmap",
	"op-20-63",
	"op-64-up",
};

static const char * const hp_way_names[HP_WAYS] = { "request", "event", "raw" };

static const char * const hp_break_names[HP_BREAKS] = {
	"framing", "sequence", "length", "op",
};

static const char * const hp_len_names[HP_LENS] = {
	"zero", "short", "exact", "long", "max", "any",
};

/* The scenario's steps: valid messages, out of order. */
enum hp_step {
	HP_RETURN_FREE, HP_CONFIG_FREE, HP_BORROW, HP_BORROW_AGAIN,
	HP_CONFIG_HELD, HP_RETURN_HELD, HP_BORROW_BAD, HP_SEGMENT,
	HP_SEGMENT_NOT_OURS, HP_DEVICE_NEXT, HP_RETURN_FOREIGN, HP_RECLAIMED,
	HP_AVAILABLE_FOREIGN, HP_AVAILABLE,
};

static const char * const hp_step_names[HP_STEPS] = {
	"return-before-borrow", "config-write-not-borrowed", "borrow",
	"borrow-twice", "config-write-borrowed", "return", "borrow-bad-window",
	"segment-info", "segment-info-not-exported", "device-next",
	"return-of-another-lender", "reclaimed",
	"available-of-another-lender", "available",
};

struct hp_run {
	u16 node;
	u64 seed;
	u32 count;
	u32 lent;
	u32 borrowed;
	u32 segment;
	u32 budget;
	bool config;

	struct rnd_state rng;
	bool held;		/* this module holds LENT, as far as it knows */
	u32 spent;		/* of the budget: half at most by random inputs */
	u32 spent_random;
	unsigned int borrows;	/* BORROWs the scenario tried */
	unsigned long sent;
	unsigned long stalls;	/* a full ring waited for */
	unsigned int timeouts;	/* requests unanswered in a row */
	unsigned long counts[HP_OP_CLASSES][HP_WAYS][HP_OUTCOMES];
	unsigned long lens[HP_LENS];
	unsigned long decoder;		/* raw records broken, sent */
	unsigned long refused;		/* of them, what the decoder refuses */
	unsigned long breaks[HP_BREAKS];
	unsigned long handled[HP_OP_CLASSES];	/* reached the op's handler */
	unsigned long steps[HP_STEPS][2];	/* as expected, not */
	unsigned long violations;
	char shown[HP_VIOLATIONS_SHOWN][128];
	u8 buf[SMARTIO_MSG_MAX_LEN];
	u8 resp[SMARTIO_MSG_MAX_PAYLOAD];
};

static struct dentry *hp_dir;
static DEFINE_MUTEX(hp_lock);
static struct hp_run *hp_last;	/* the last run's, for the report */

static u64 hp_u64(struct hp_run *r)
{
	u64 hi = prandom_u32_state(&r->rng);

	return hi << 32 | prandom_u32_state(&r->rng);
}

static u64 hp_below(struct hp_run *r, u64 n)
{
	return n ? hp_u64(r) % n : 0;
}

static bool hp_chance(struct hp_run *r, unsigned int num, unsigned int den)
{
	return hp_below(r, den) < num;
}

static void hp_bytes(struct hp_run *r, u8 *p, size_t len)
{
	size_t i;
	u64 x = 0;

	for (i = 0; i < len; i++) {
		if (!(i % 8))
			x = hp_u64(r);
		p[i] = (u8)x;
		x >>= 8;
	}
}

/* An integer worth trying, of BITS bits: boundaries, small, random. */
static u64 hp_int(struct hp_run *r, unsigned int bits)
{
	u64 mask = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;

	switch (hp_below(r, 6)) {
	case 0:
		return 0;
	case 1:
		return hp_below(r, 8);
	case 2:
		return mask;
	case 3:
		return (1ULL << hp_below(r, bits)) & mask;
	default:
		return hp_u64(r) & mask;
	}
}

static void hp_violation(struct hp_run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->violations < HP_VIOLATIONS_SHOWN) {
		va_start(ap, fmt);
		vsnprintf(r->shown[r->violations], sizeof(r->shown[0]), fmt, ap);
		va_end(ap);
	}
	r->violations++;
}

static unsigned int hp_op_class(u16 op)
{
	if (op < HP_OP_UNREGISTERED)
		return op;
	return op < SMARTIO_MSG_OP_MAX ? HP_OP_UNREGISTERED : HP_OP_PAST_MAX;
}

static unsigned int hp_outcome(int ret)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hp_errnos); i++)
		if (-ret == hp_errnos[i].err)
			return i;
	return ARRAY_SIZE(hp_errnos);
}

/* The wire length of OP's payload; 0 for an op without a format. */
static u32 hp_exact_len(u16 op)
{
	switch (op) {
	case SMARTIO_MSG_OP_SEGMENT_INFO:
	case SMARTIO_MSG_OP_SEGMENT_DISCONNECT:
	case SMARTIO_MSG_OP_SEGMENT_REVOKE:
	case SMARTIO_MSG_OP_RETURN:
	case SMARTIO_MSG_OP_RETURNING:
	case SMARTIO_MSG_OP_RECLAIMED:
	case SMARTIO_MSG_OP_RESET:
	case SMARTIO_MSG_OP_AVAILABLE:
		return sizeof(__le32);
	case SMARTIO_MSG_OP_DEVICE_NEXT:
		return sizeof(struct smartio_device_next_req);
	case SMARTIO_MSG_OP_BORROW:
		return sizeof(struct smartio_borrow_req);
	case SMARTIO_MSG_OP_CONFIG_WRITE:
		return sizeof(struct smartio_config_write);
	case SMARTIO_MSG_OP_CONFIG_READ:
		return sizeof(struct smartio_config_read_req);
	case SMARTIO_MSG_OP_DMA_MAP:
	case SMARTIO_MSG_OP_DMA_UNMAP:
		return sizeof(struct smartio_dma_map_req);
	case SMARTIO_MSG_OP_PEER_MAP:
	case SMARTIO_MSG_OP_PEER_UNMAP:
		return sizeof(struct smartio_peer_map_req);
	default:
		return 0;
	}
}

/* An fdid next to FDID that names no device: an index none gets. */
static u32 hp_near_miss(struct hp_run *r, u32 fdid)
{
	return smartio_fdid_make(smartio_fdid_node(fdid),
				 0xff00 + (u16)hp_below(r, 0x100));
}

static u32 hp_fdid(struct hp_run *r)
{
	switch (hp_below(r, 6)) {
	case 0:
	case 1:
		return r->lent;
	case 2:
		return r->borrowed;
	case 3:
		return hp_near_miss(r, r->lent);
	case 4:
		return smartio_fdid_make((u16)hp_int(r, 16), (u16)hp_int(r, 16));
	default:
		return (u32)hp_int(r, 32);
	}
}

/* The target's window onto our memory a real borrower would ask for. */
static void hp_borrow_req(struct smartio_borrow_req *b, u32 fdid, u16 node)
{
	struct smartio_iova_window *w;
	u64 base = 0, size = smartio_ram_end();

	w = smartio_iova_window_get(node, &base, &size);
	if (IS_ERR(w))
		size = SZ_1M;
	else
		smartio_iova_window_put(w);
	memset(b, 0, sizeof(*b));
	b->fdid = cpu_to_le32(fdid);
	b->dma_addr = cpu_to_le64(base);
	b->dma_size = cpu_to_le64(size);
	b->msi_addr = cpu_to_le64(SMARTIO_MSI_ADDR);
	b->msi_size = cpu_to_le64(SMARTIO_MSI_SIZE);
}

/* A 64-bit address or size: plausible (page-aligned, in RAM) or not. */
static u64 hp_addr(struct hp_run *r)
{
	if (hp_chance(r, 1, 2))
		return hp_below(r, smartio_ram_end() >> PAGE_SHIFT) << PAGE_SHIFT;
	return hp_int(r, 64);
}

/*
 * Fills r->buf with LEN bytes of OP's payload: random, the fields of its
 * wire format random or from what exists. Returns whether it would change
 * the target's state for real (if LEN is its exact length).
 */
static bool hp_payload(struct hp_run *r, u16 op, u32 len)
{
	struct smartio_config_write *cw = (void *)r->buf;
	struct smartio_config_read_req *cr = (void *)r->buf;
	struct smartio_borrow_req *b = (void *)r->buf;
	struct smartio_dma_map_req *dm = (void *)r->buf;
	struct smartio_peer_map_req *pm = (void *)r->buf;
	bool costly = false;
	u32 fdid;

	hp_bytes(r, r->buf, max(len, hp_exact_len(op)));
	switch (op) {
	case SMARTIO_MSG_OP_SEGMENT_INFO:
	case SMARTIO_MSG_OP_SEGMENT_DISCONNECT:
	case SMARTIO_MSG_OP_SEGMENT_REVOKE:
		put_unaligned_le32(hp_chance(r, 1, 2) ? r->segment + (u32)hp_below(r, 2) :
				   (u32)hp_int(r, 32), r->buf);
		break;
	case SMARTIO_MSG_OP_DEVICE_NEXT:
		put_unaligned_le16(hp_chance(r, 1, 2) ? (u16)hp_below(r, 3) :
				   (u16)hp_int(r, 16), r->buf);
		break;
	case SMARTIO_MSG_OP_BORROW:
		fdid = hp_fdid(r);
		if (hp_chance(r, 1, 2))
			hp_borrow_req(b, fdid, r->node);
		else
			b->fdid = cpu_to_le32(fdid);
		if (hp_chance(r, 3, 4))
			b->reserved = 0;
		if (hp_chance(r, 1, 2)) {
			b->dma_addr = cpu_to_le64(hp_addr(r));
			b->dma_size = cpu_to_le64(hp_addr(r));
		}
		if (hp_chance(r, 1, 4)) {
			b->msi_addr = cpu_to_le64(hp_addr(r));
			b->msi_size = cpu_to_le64(hp_int(r, 64));
		}
		costly = (fdid == r->lent || fdid == r->borrowed) && !b->reserved;
		break;
	case SMARTIO_MSG_OP_RETURN:
	case SMARTIO_MSG_OP_RETURNING:
	case SMARTIO_MSG_OP_RECLAIMED:
	case SMARTIO_MSG_OP_RESET:
		fdid = hp_fdid(r);
		put_unaligned_le32(fdid, r->buf);
		costly = fdid == r->lent || fdid == r->borrowed;
		break;
	case SMARTIO_MSG_OP_AVAILABLE:	/* the target tells its users, at most */
		put_unaligned_le32(hp_fdid(r), r->buf);
		break;
	case SMARTIO_MSG_OP_PEER_MAP:	/* LENT has no peer lent to us */
	case SMARTIO_MSG_OP_PEER_UNMAP:
		pm->fdid = cpu_to_le32(hp_fdid(r));
		pm->peer_fdid = cpu_to_le32(hp_fdid(r));
		if (hp_chance(r, 3, 4))
			pm->bar = cpu_to_le32((u32)hp_below(r, PCI_STD_NUM_BARS + 1));
		if (hp_chance(r, 3, 4))
			pm->reserved = 0;
		if (hp_chance(r, 1, 2)) {
			pm->dev_addr = cpu_to_le64(hp_addr(r));
			pm->size = cpu_to_le64(hp_addr(r));
		}
		break;
	case SMARTIO_MSG_OP_CONFIG_READ:
		fdid = hp_fdid(r);
		if (fdid == r->lent && !r->config)
			fdid = hp_near_miss(r, fdid);
		cr->fdid = cpu_to_le32(fdid);
		cr->offset = cpu_to_le16(hp_chance(r, 3, 4) ? (u16)hp_below(r, 4096) :
					 (u16)hp_u64(r));
		cr->size = cpu_to_le16(hp_chance(r, 3, 4) ? 1 << hp_below(r, 12) :
				       (u16)hp_u64(r));
		break;
	case SMARTIO_MSG_OP_CONFIG_WRITE:
		fdid = hp_fdid(r);
		if (fdid == r->lent && !r->config)
			fdid = hp_near_miss(r, fdid);
		cw->fdid = cpu_to_le32(fdid);
		cw->offset = cpu_to_le16(hp_chance(r, 3, 4) ? (u16)hp_below(r, 4096) :
					 (u16)hp_u64(r));
		cw->size = hp_chance(r, 3, 4) ? 1 << hp_below(r, 3) : (u8)hp_u64(r);
		cw->value = cpu_to_le32((u32)hp_int(r, 32));
		if (hp_chance(r, 3, 4))
			cw->reserved = 0;
		break;
	case SMARTIO_MSG_OP_DMA_MAP:
	case SMARTIO_MSG_OP_DMA_UNMAP:
		/* Of LENT while held: in its domain until returned, no reset. */
		dm->fdid = cpu_to_le32(hp_fdid(r));
		if (hp_chance(r, 3, 4))
			dm->flags = cpu_to_le32(op == SMARTIO_MSG_OP_DMA_UNMAP ? 0 :
						1 + (u32)hp_below(r, 3));
		if (hp_chance(r, 3, 4)) {
			dm->dev_addr = cpu_to_le64(hp_addr(r));
			dm->offset = cpu_to_le64(hp_below(r, 64) << PAGE_SHIFT);
			dm->size = cpu_to_le64((1 + hp_below(r, 16)) << PAGE_SHIFT);
		}
		break;
	}
	return costly && len == hp_exact_len(op);
}

/* The fdid field (the first) of a costly payload, made one of nothing. */
static void hp_defuse(struct hp_run *r)
{
	put_unaligned_le32(hp_near_miss(r, get_unaligned_le32(r->buf)), r->buf);
}

/* A payload length for OP: of a class, around its wire format's. */
static u32 hp_length(struct hp_run *r, u16 op, enum hp_len *cls)
{
	u32 exact = hp_exact_len(op);

	if (!exact)	/* no format: any short one is as exact */
		exact = (u32)hp_below(r, 65);
	*cls = hp_below(r, HP_LENS);
	switch (*cls) {
	case HP_LEN_ZERO:
		return 0;
	case HP_LEN_SHORT:
		return exact ? (u32)hp_below(r, exact) : 0;
	case HP_LEN_EXACT:
		return exact;
	case HP_LEN_LONG:
		return exact + 1 + (u32)hp_below(r, 64);
	case HP_LEN_MAX:
		return SMARTIO_MSG_MAX_PAYLOAD;
	default:
		return (u32)hp_below(r, SMARTIO_MSG_MAX_PAYLOAD + 1);
	}
}

/*
 * Posts an event, or raw bytes (RAW), waiting while the target's ring is
 * full; false when it stays full for 30 s (the target stopped reading).
 */
static bool hp_post(struct hp_run *r, u16 op, const void *buf, u32 len,
		    bool raw, unsigned int flags, int *ret)
{
	unsigned long deadline = jiffies + 30 * HZ;

	for (;;) {
		*ret = raw ? smartio_msg_post_raw(r->node, buf, len, flags) :
			     smartio_msg_post(r->node, op, buf, len);
		if (*ret != -EAGAIN)
			return true;
		r->stalls++;
		if (time_after(jiffies, deadline) || fatal_signal_pending(current))
			return false;
		usleep_range(50, 200);
	}
}

/*
 * Does OP have a handler (hp_op_names: 1 to HP_OP_LAST but the retired 3
 * and LEAVING, which the decoder serves itself)?
 */
static bool hp_handled_op(u16 op)
{
	return op && op <= HP_OP_LAST && op != SMARTIO_MSG_OP_RETIRED_3 &&
	       op != SMARTIO_MSG_OP_LEAVING;
}

/*
 * A raw message: the payload at r->buf behind a header of any kind that
 * breaks, each with even chances, the framing, the sequence number or the
 * length field (see the top of this file). Sets *BROKEN to the HP_BREAK_*
 * bits, *FLAGS to smartio_msg_post_raw()'s, *VALID to whether the decoder
 * takes it; returns its length.
 */
static u32 hp_raw(struct hp_run *r, u16 op, u32 len, u8 *msg,
		  unsigned int *broken, unsigned int *flags, bool *valid)
{
	u8 kind = (u8)(1 + hp_below(r, 3));
	u32 total = SMARTIO_MSG_HDR_LEN + len, field = len;
	struct smartio_msg m;

	*broken = hp_handled_op(op) ? 0 : BIT(HP_BREAK_OP);
	*flags = 0;
	msg[0] = SMARTIO_MSG_VERSION;
	msg[1] = kind;
	put_unaligned_le16(op, msg + 2);
	put_unaligned_le32(0, msg + 4);		/* the channel's, unless RAW_SEQ */
	/* A response's id: its slot in the target's table, a generation. */
	put_unaligned_le32(hp_chance(r, 1, 2) ?
			   (u32)(hp_below(r, 256) << 8 | (1 + hp_below(r, 32))) :
			   (u32)hp_u64(r), msg + 8);
	put_unaligned_le32(kind == SMARTIO_MSG_RESPONSE && hp_chance(r, 3, 4) ?
			   (u32)-(s32)hp_below(r, 4096) : 0, msg + 12);
	put_unaligned_le32(0, msg + 20);
	memcpy(msg + SMARTIO_MSG_HDR_LEN, r->buf, len);
	if (hp_chance(r, 1, 2)) {
		*broken |= BIT(HP_BREAK_FRAMING);
		switch (hp_below(r, 5)) {
		case 0:
			msg[0] = (u8)(SMARTIO_MSG_VERSION + 1 + hp_below(r, 255));
			break;
		case 1:
			msg[1] = hp_chance(r, 1, 4) ? 0 : (u8)(4 + hp_below(r, 252));
			break;
		case 2:
			put_unaligned_le32((u32)hp_int(r, 32) | 1u << hp_below(r, 32),
					   msg + 20);
			break;
		case 3:		/* a status where none may be, or out of range */
			put_unaligned_le32(kind == SMARTIO_MSG_RESPONSE ?
					   (u32)(1 + hp_below(r, 0x7fffffff)) :
					   (u32)(1 + hp_int(r, 31)), msg + 12);
			break;
		default:	/* cut short, header and all */
			total = (u32)hp_below(r, total);
			break;
		}
	}
	if (hp_chance(r, 1, 2)) {
		*broken |= BIT(HP_BREAK_SEQ);
		*flags |= SMARTIO_MSG_RAW_SEQ;
		put_unaligned_le32(hp_chance(r, 1, 2) ? (u32)hp_int(r, 32) :
				   (u32)(r->sent + hp_below(r, 5)), msg + 4);
	}
	if (hp_chance(r, 1, 2)) {
		*broken |= BIT(HP_BREAK_LENGTH);
		do {
			field = hp_chance(r, 1, 2) ? len + 1 + (u32)hp_below(r, 64) :
				(u32)hp_int(r, 32);
		} while (field == len);
	}
	put_unaligned_le32(field, msg + 16);
	*valid = smartio_msg_decode(msg, total, &m) >= 0;
	return total;
}

/* Whether a request's status says the target's handler answered it. */
static bool hp_answered(int ret)
{
	return ret != -ETIMEDOUT && ret != -ENOTCONN && ret != -EHOSTUNREACH &&
	       ret != -EINTR;
}

/* One random input; false when the target stopped taking them. */
static bool hp_input(struct hp_run *r, u8 *msg)
{
	unsigned int way = hp_below(r, 10) < 1 ? HP_REQUEST :
			   hp_chance(r, 1, 2) ? HP_EVENT : HP_RAW;
	unsigned int broken = 0, flags = 0, b;
	u32 len, resp_len = 0;
	bool valid = true;
	enum hp_len cls;
	u16 op;
	int ret;

	switch (hp_below(r, 40)) {
	case 0:
		op = 0;
		break;
	case 1:
		op = SMARTIO_MSG_OP_RETIRED_3;
		break;
	case 2:
		op = (u16)(HP_OP_UNREGISTERED + hp_below(r, SMARTIO_MSG_OP_MAX - HP_OP_UNREGISTERED));
		break;
	case 3:
		op = (u16)(SMARTIO_MSG_OP_MAX + hp_below(r, 0x10000 - SMARTIO_MSG_OP_MAX));
		break;
	default:
		do {
			op = (u16)(1 + hp_below(r, HP_OP_LAST));
		} while (!hp_handled_op(op));
		break;
	}
	/* Op 0 is refused by the encoder: only raw bytes carry it. */
	if (!op)
		way = HP_RAW;
	len = hp_length(r, op, &cls);
	if (hp_payload(r, op, len)) {
		if (r->spent_random < r->budget / 2 && r->spent < r->budget) {
			r->spent_random++;
			r->spent++;
		} else {
			hp_defuse(r);
		}
	}
	r->lens[cls]++;

	switch (way) {
	case HP_REQUEST:
		ret = smartio_msg_call(r->node, op, r->buf, len, r->resp,
				       sizeof(r->resp), &resp_len, 5 * HZ);
		if (!ret && op == SMARTIO_MSG_OP_BORROW &&
		    get_unaligned_le32(r->buf) == r->lent)
			r->held = true;
		/* A reset may take seconds, not three requests in a row. */
		r->timeouts = ret == -ETIMEDOUT ? r->timeouts + 1 : 0;
		if (r->timeouts == 3)
			return false;
		if (hp_answered(ret) && hp_handled_op(op))
			r->handled[op]++;
		break;
	case HP_EVENT:
		if (!hp_post(r, op, r->buf, len, false, 0, &ret))
			return false;
		if (!ret && hp_handled_op(op))
			r->handled[op]++;
		break;
	default:
		len = hp_raw(r, op, len, msg, &broken, &flags, &valid);
		if (!hp_post(r, op, msg, len, true, flags, &ret))
			return false;
		if (ret)
			break;
		if (broken) {
			r->decoder++;
			r->refused += !valid;
			for (b = 0; b < HP_BREAKS; b++)
				r->breaks[b] += !!(broken & BIT(b));
		}
		if (valid && hp_handled_op(op) && msg[1] != SMARTIO_MSG_RESPONSE)
			r->handled[op]++;
		break;
	}
	r->counts[hp_op_class(op)][way][hp_outcome(ret)]++;
	r->sent++;
	return true;
}

/* A request of the scenario; its status. */
static int hp_call(struct hp_run *r, u16 op, const void *req, u32 len,
		   u32 *resp_len)
{
	*resp_len = 0;
	return smartio_msg_call(r->node, op, req, len, r->resp,
				sizeof(r->resp), resp_len, 15 * HZ);
}

/* What the target says of LENT: does this node hold it? */
static int hp_sync(struct hp_run *r)
{
	struct smartio_device_next_req q = {
		.index = cpu_to_le16(smartio_fdid_index(r->lent)),
	};
	struct smartio_device_wire *w = (void *)r->resp;
	u32 len;
	int ret;

	ret = hp_call(r, SMARTIO_MSG_OP_DEVICE_NEXT, &q, sizeof(q), &len);
	if (ret || len != sizeof(*w) || le32_to_cpu(w->fdid) != r->lent) {
		hp_violation(r, "device-next of %x: %d, %u bytes", r->lent, ret, len);
		return ret ? ret : -EBADMSG;
	}
	r->held = le32_to_cpu(w->state) == SMARTIO_DEVICE_STATE_BORROWED &&
		  le16_to_cpu(w->borrower) == smartio_local_node_id();
	return 0;
}

static void hp_expect(struct hp_run *r, enum hp_step step, bool ok, int ret)
{
	r->steps[step][!ok]++;
	if (!ok)
		hp_violation(r, "%s: status %d", hp_step_names[step], ret);
}

/* One step of the scenario, its answer known. */
static void hp_step(struct hp_run *r)
{
	struct smartio_config_write cw = {
		.fdid = cpu_to_le32(r->lent),
		.offset = cpu_to_le16(PCI_COMMAND),
		.size = 2,
		.value = cpu_to_le32(PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER),
	};
	struct smartio_borrow_resp *resp = (void *)r->resp;
	struct smartio_borrow_req b;
	__le32 fdid = cpu_to_le32(r->lent), seg;
	__le16 index = 0;
	u32 len;
	int ret;

	if (hp_sync(r))
		return;
	switch (hp_below(r, 6)) {
	case 0:
		/*
		 * A config write: done if this node holds it; else refused
		 * (EPERM: lend/lender.c, smartio_lent_config_find()), or
		 * dropped (0) while the target takes it back from us.
		 */
		ret = hp_call(r, SMARTIO_MSG_OP_CONFIG_WRITE, &cw, sizeof(cw), &len);
		if (r->held)
			hp_expect(r, HP_CONFIG_HELD, ret == 0, ret);
		else
			hp_expect(r, HP_CONFIG_FREE, ret == -EPERM || ret == 0,
				  ret);
		break;
	case 1:		/* RETURN before BORROW; or RETURN, held */
		ret = hp_call(r, SMARTIO_MSG_OP_RETURN, &fdid, sizeof(fdid), &len);
		if (r->held) {
			hp_expect(r, HP_RETURN_HELD, ret == 0, ret);
			r->held = false;
		} else {
			hp_expect(r, HP_RETURN_FREE, ret == -EPERM, ret);
		}
		break;
	case 2:		/* BORROW, a second one, or one without a DMA window */
		hp_borrow_req(&b, r->lent, r->node);
		if (r->held) {
			ret = hp_call(r, SMARTIO_MSG_OP_BORROW, &b, sizeof(b), &len);
			hp_expect(r, HP_BORROW_AGAIN, ret == -EBUSY, ret);
			break;
		}
		if (r->spent >= r->budget)
			break;
		r->spent++;
		if (r->borrows++ % 3 == 0) {	/* refused, nothing lent */
			b.dma_size = 0;
			ret = hp_call(r, SMARTIO_MSG_OP_BORROW, &b, sizeof(b), &len);
			hp_expect(r, HP_BORROW_BAD, ret == -EINVAL, ret);
			break;
		}
		ret = hp_call(r, SMARTIO_MSG_OP_BORROW, &b, sizeof(b), &len);
		hp_expect(r, HP_BORROW, !ret && len == sizeof(*resp) &&
			  le32_to_cpu(resp->device.fdid) == r->lent &&
			  le16_to_cpu(resp->device.borrower) == smartio_local_node_id(),
			  ret);
		r->held = !ret;
		break;
	case 3:		/* a segment exported to us, and one that is not */
		seg = cpu_to_le32(r->segment);
		ret = hp_call(r, SMARTIO_MSG_OP_SEGMENT_INFO, &seg, sizeof(seg), &len);
		hp_expect(r, HP_SEGMENT, !ret && len == 2 * sizeof(__le64) &&
			  get_unaligned_le64(r->resp + 8), ret);
		seg = cpu_to_le32(r->segment + 1);
		ret = hp_call(r, SMARTIO_MSG_OP_SEGMENT_INFO, &seg, sizeof(seg), &len);
		hp_expect(r, HP_SEGMENT_NOT_OURS, ret == -ENOENT, ret);
		break;
	case 4:		/* the devices it lends; RETURN of what another lends */
		ret = hp_call(r, SMARTIO_MSG_OP_DEVICE_NEXT, &index, sizeof(index), &len);
		hp_expect(r, HP_DEVICE_NEXT, !ret && len == sizeof(struct smartio_device_wire),
			  ret);
		fdid = cpu_to_le32(r->borrowed);
		ret = hp_call(r, SMARTIO_MSG_OP_RETURN, &fdid, sizeof(fdid), &len);
		hp_expect(r, HP_RETURN_FOREIGN, ret == -EXDEV, ret);
		/* A lender announces its own devices only (lend/devices.c). */
		fdid = cpu_to_le32(r->lent);
		ret = hp_call(r, SMARTIO_MSG_OP_AVAILABLE, &fdid, sizeof(fdid), &len);
		hp_expect(r, HP_AVAILABLE_FOREIGN, ret == -EPERM, ret);
		fdid = cpu_to_le32(r->borrowed);
		ret = hp_call(r, SMARTIO_MSG_OP_AVAILABLE, &fdid, sizeof(fdid), &len);
		hp_expect(r, HP_AVAILABLE, ret == 0, ret);
		break;
	default:	/* we take back what it borrowed: at most once */
		if (r->steps[HP_RECLAIMED][0] || r->spent >= r->budget)
			break;
		r->spent++;
		fdid = cpu_to_le32(r->borrowed);
		ret = hp_post(r, SMARTIO_MSG_OP_RECLAIMED, &fdid, sizeof(fdid),
			      false, 0, &ret) ? ret : -ETIMEDOUT;
		hp_expect(r, HP_RECLAIMED, ret == 0, ret);
		break;
	}
}

static int hp_run(struct hp_run *r)
{
	u8 *msg;
	u32 i, every = max_t(u32, r->count / 64, 1);
	__le32 fdid;
	int ret = 0;
	u32 len;

	msg = kmalloc(SMARTIO_MSG_MAX_LEN + SMARTIO_MSG_HDR_LEN, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	prandom_seed_state(&r->rng, r->seed);
	pr_info("node %u: seed %llu, %u inputs, budget %u, config writes to %x: %s\n",
		r->node, r->seed, r->count, r->budget, r->lent,
		r->config ? "random" : "none");
	for (i = 0; i < r->count; i++) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out;
		}
		if (!hp_input(r, msg)) {
			hp_violation(r, "input %u: the target stopped taking messages (%s)",
				     i, r->timeouts ? "3 requests unanswered" :
				     "its ring stayed full for 30 s");
			goto out;
		}
		if (i % every == every - 1)
			hp_step(r);
		cond_resched();
	}
	/* What this run borrowed goes back. */
	if (!hp_sync(r) && r->held) {
		fdid = cpu_to_le32(r->lent);
		ret = hp_call(r, SMARTIO_MSG_OP_RETURN, &fdid, sizeof(fdid), &len);
		hp_expect(r, HP_RETURN_HELD, ret == 0, ret);
	}
	ret = 0;
out:
	pr_info("node %u: seed %llu: %lu inputs sent, %lu violations\n",
		r->node, r->seed, r->sent, r->violations);
	kfree(msg);
	return ret;
}

static ssize_t hp_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct hp_run *r;
	unsigned int config;
	char line[160];
	int ret;

	if (count >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, count))
		return -EFAULT;
	line[count] = '\0';
	r = kvzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	if (sscanf(line, "%hu %llu %u %x %x %u %u %u", &r->node, &r->seed,
		   &r->count, &r->lent, &r->borrowed, &r->segment, &r->budget,
		   &config) != 8 || !r->count) {
		kvfree(r);
		return -EINVAL;
	}
	r->config = config;
	mutex_lock(&hp_lock);
	ret = hp_run(r);
	kvfree(hp_last);
	hp_last = r;
	mutex_unlock(&hp_lock);
	return ret ? ret : count;
}

static int hp_report_show(struct seq_file *s, void *data)
{
	struct hp_run *r;
	unsigned int op, way, o;
	unsigned long total;

	mutex_lock(&hp_lock);
	r = hp_last;
	if (!r) {
		mutex_unlock(&hp_lock);
		return -ENOENT;
	}
	seq_printf(s, "seed %llu node %u inputs %lu budget %u spent %u stalls %lu\n",
		   r->seed, r->node, r->sent, r->budget, r->spent, r->stalls);
	for (op = 0; op < HP_OP_CLASSES; op++) {
		for (way = 0; way < HP_WAYS; way++) {
			total = 0;
			for (o = 0; o < HP_OUTCOMES; o++) {
				if (!r->counts[op][way][o])
					continue;
				total += r->counts[op][way][o];
				seq_printf(s, "count: %s/%s %s %lu\n",
					   hp_op_names[op], hp_way_names[way],
					   o < ARRAY_SIZE(hp_errnos) ?
					   hp_errnos[o].name : "other",
					   r->counts[op][way][o]);
			}
			if (total)
				seq_printf(s, "count: %s/%s total %lu\n", hp_op_names[op],
					   hp_way_names[way], total);
		}
	}
	for (o = 0; o < HP_LENS; o++)
		seq_printf(s, "length: %s %lu\n", hp_len_names[o], r->lens[o]);
	seq_printf(s, "decoder records %lu refused %lu\n", r->decoder, r->refused);
	for (o = 0; o < HP_BREAKS; o++)
		seq_printf(s, "decoder: %s %lu\n", hp_break_names[o], r->breaks[o]);
	for (op = 0; op < HP_OP_CLASSES; op++)
		if (hp_handled_op(op))
			seq_printf(s, "handler: %s %lu\n", hp_op_names[op],
				   r->handled[op]);
	for (o = 0; o < HP_STEPS; o++)
		seq_printf(s, "step: %s as expected %lu, not %lu\n", hp_step_names[o],
			   r->steps[o][0], r->steps[o][1]);
	for (o = 0; o < min_t(unsigned long, r->violations, HP_VIOLATIONS_SHOWN); o++)
		seq_printf(s, "violation: %s\n", r->shown[o]);
	seq_printf(s, "violations %lu\n", r->violations);
	mutex_unlock(&hp_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hp_report);

static const struct file_operations hp_run_fops = {
	.owner = THIS_MODULE,
	.write = hp_run_write,
	.llseek = noop_llseek,
};

/*
 * <debugfs>/smartio_hostile_peer/ring: "NODE KIND" sends NODE one record
 * whose ring header (smartio/ring.h) breaks the ring's scheme, KIND:
 *
 *  - type: a type neither DATA nor PAD;
 *  - pad: a PAD that does not reach the ring's end;
 *  - huge: DATA longer than any record may be;
 *  - short: DATA of no bytes, so that the record's own bytes are read as
 *    the next header, one of no type.
 *
 * Then NODE reads nothing more from us, and loses us when we have been
 * silent to it for its peer_timeout_ms (ntb/msg.c, smartio_msg_rx()).
 * Fails with EAGAIN when the ring has no room now.
 */
static ssize_t hp_ring_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	u8 rec[SMARTIO_RING_HDR_LEN * 3] = {};
	u8 *bytes = rec + SMARTIO_RING_HDR_LEN;
	unsigned int node;
	char kind[8], *line;
	int ret;

	if (count > 32)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	ret = sscanf(line, "%u %7s", &node, kind);
	kfree(line);
	if (ret != 2 || !node || node > U16_MAX)
		return -EINVAL;

	/* The record's bytes: a header of no type, read as one by "short". */
	smartio_ring_hdr_encode(bytes, 0x5a5a5a5a, 0);
	if (!strcmp(kind, "type"))
		smartio_ring_hdr_encode(rec, 0x5a5a5a5a,
					sizeof(rec) - SMARTIO_RING_HDR_LEN);
	else if (!strcmp(kind, "pad"))
		smartio_ring_hdr_encode(rec, SMARTIO_RING_REC_PAD, 0);
	else if (!strcmp(kind, "huge"))
		smartio_ring_hdr_encode(rec, SMARTIO_RING_REC_DATA,
					U32_MAX - SMARTIO_RING_ALIGN + 1);
	else if (!strcmp(kind, "short"))
		smartio_ring_hdr_encode(rec, SMARTIO_RING_REC_DATA, 0);
	else
		return -EINVAL;

	/* The sequence number stays out of the bytes "short" has read. */
	ret = smartio_msg_post_raw(node, rec, sizeof(rec),
				   SMARTIO_MSG_RAW_RING | SMARTIO_MSG_RAW_SEQ);
	return ret ? ret : count;
}

static const struct file_operations hp_ring_fops = {
	.owner = THIS_MODULE,
	.write = hp_ring_write,
	.llseek = noop_llseek,
};

static int __init hp_init(void)
{
	hp_dir = debugfs_create_dir("smartio_hostile_peer", NULL);
	debugfs_create_file("run", 0200, hp_dir, NULL, &hp_run_fops);
	debugfs_create_file("report", 0400, hp_dir, NULL, &hp_report_fops);
	debugfs_create_file("ring", 0200, hp_dir, NULL, &hp_ring_fops);
	return 0;
}

static void __exit hp_exit(void)
{
	debugfs_remove_recursive(hp_dir);
	kvfree(hp_last);
}

module_init(hp_init);
module_exit(hp_exit);
MODULE_DESCRIPTION("smartio test: a hostile peer on the messaging channel");
MODULE_LICENSE("GPL");
