// SPDX-License-Identifier: GPL-2.0
/*
 * Test hooks: what tests need of smartio_ntb and nothing else may use,
 * linked into it only when built with CONFIG_SMARTIO_TEST_HOOKS=y (make
 * SMARTIO_TEST_HOOKS=1, as make vm-image and make check do; see the
 * top-level Kbuild). make and make install build smartio_ntb without them,
 * and tests/check's install suite proves they are not there.
 *
 * - smartio_msg_post_raw(): any bytes as a message, for a test module that
 *   plays a hostile peer (tests/kmod/smartio_hostile_peer.c,
 *   tests/vm/fuzz-peer);
 * - writes to <debugfs>/smartio/requesters, "add NODE BDF" and "remove
 *   NODE BDF", which change this node's requester-ID table entries behind
 *   their users' backs (requester.c; tests/vm/lend-requester);
 * - <debugfs>/smartio/served, how often this node's handlers returned
 *   what, by op (tests/vm/lend-three, tests/vm/lend-duplicate-id). Tests
 *   once traced the handlers' returns with kretprobes instead, but
 *   registering a probe or enabling an event patches kernel text at run
 *   time, and under TCG a second vCPU at the site being patched can spin
 *   on its int3 for good (a soft lockup in text_poke_bp_batch(), CI).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/unaligned.h>

#include "smartio/ntb.h"
#include "smartio/pci_addr.h"
#include "smartio_ntb_priv.h"

/* What smartio_msg_post_raw() sends. */
struct smartio_msg_raw {
	const void *buf;
	u32 len;
	unsigned int flags;
};

/* The bytes of a raw record's header that its sender made: all or none. */
static u32 smartio_msg_raw_hdr_len(unsigned int flags)
{
	return flags & SMARTIO_MSG_RAW_RING ? SMARTIO_RING_HDR_LEN : 0;
}

/*
 * Copies the raw record in, behind the channel's record header unless the
 * caller made its own, with the channel's sequence number unless asked.
 */
static int smartio_msg_fill_raw(struct smartio_msg_chan *chan, void *arg)
{
	const struct smartio_msg_raw *raw = arg;
	u32 hdr_len = smartio_msg_raw_hdr_len(raw->flags);
	u8 *rec = chan->tx_buf + SMARTIO_RING_HDR_LEN;
	u32 len = raw->len - hdr_len;

	lockdep_assert_held(&chan->lock);
	memcpy(rec - hdr_len, raw->buf, raw->len);
	if (!hdr_len)
		smartio_ring_hdr_encode(chan->tx_buf, SMARTIO_RING_REC_DATA,
					len);
	if (len >= 8 && !(raw->flags & SMARTIO_MSG_RAW_SEQ))
		put_unaligned_le32(chan->tx_seq, rec + 4);
	return len;
}

/**
 * smartio_msg_post_raw() - Send bytes to a node as one message, unchecked.
 * @node_id: A joined node.
 * @buf: What the record is to hold: a message's header and payload as the
 *	caller made them, malformed or not (smartio/msg.h); with
 *	SMARTIO_MSG_RAW_RING, the record header before them.
 * @len: Bytes of @buf, at most SMARTIO_MSG_MAX_LEN (plus
 *	SMARTIO_RING_HDR_LEN with SMARTIO_MSG_RAW_RING).
 * @flags: SMARTIO_MSG_RAW_SEQ: the sequence number is @buf's too;
 *	SMARTIO_MSG_RAW_RING: so is the record header.
 *
 * For tests that play a hostile peer (tests/kmod/smartio_hostile_peer.c):
 * whatever a peer writes into our ring, the receiver must take it. The
 * bytes are sent as they are but for the sequence number (header bytes 4
 * to 7, when @len covers them), which is the channel's unless @flags has
 * SMARTIO_MSG_RAW_SEQ, so that a message is out of order only when the
 * caller sends it out of order or with a sequence number of its own. The
 * ring's framing (the record header) is the channel's unless @flags has
 * SMARTIO_MSG_RAW_RING: the record takes @len - SMARTIO_RING_HDR_LEN
 * bytes of the ring, whatever the caller's header says. A header that
 * breaks the ring's scheme stops the receiver at it for good, and the
 * peer is lost when its heartbeat times out (smartio_msg_rx();
 * tests/vm/fuzz-peer, case ring).
 *
 * Context: Any context but NMI; does not sleep.
 * Return: 0, -EHOSTUNREACH or -ENOTCONN (not joined), -EAGAIN (no room in
 * the ring now), -EMSGSIZE.
 */
int smartio_msg_post_raw(u16 node_id, const void *buf, u32 len,
			 unsigned int flags)
{
	struct smartio_msg_raw raw = { .buf = buf, .len = len, .flags = flags };
	u32 hdr_len = smartio_msg_raw_hdr_len(flags);

	if (len < hdr_len || len - hdr_len > SMARTIO_MSG_MAX_LEN)
		return -EMSGSIZE;
	return smartio_msg_post_fill(node_id, smartio_msg_fill_raw, &raw);
}
EXPORT_SYMBOL_GPL(smartio_msg_post_raw);

/*
 * <debugfs>/smartio/requesters: "add NODE BDF" or "remove NODE BDF"; BDF
 * in the NTB's PCI domain.
 */
ssize_t smartio_requesters_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char cmd[8], bdf[SMARTIO_PCI_ADDR_STR_MAX + 1], more, *line;
	struct smartio_pci_addr addr;
	struct smartio_adapter *ad;
	struct smartio_peer *peer;
	unsigned int node;
	int idx, ret;
	u32 session;
	u16 req_id;

	if (count > 64)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	/* Anything after the address is an error too (@more). */
	ret = sscanf(line, "%7s %u %17s %c", cmd, &node, bdf, &more) == 3 ?
	      0 : -EINVAL;
	kfree(line);
	if (ret || !node || node > U16_MAX ||
	    (strcmp(cmd, "add") && strcmp(cmd, "remove")))
		return -EINVAL;
	ret = smartio_pci_addr_parse(bdf, &addr);
	if (ret)
		return ret;
	req_id = PCI_DEVID(addr.bus, PCI_DEVFN(addr.dev, addr.fn));

	idx = srcu_read_lock(&smartio_adapters_srcu);
	peer = smartio_requester_peer(node, addr.domain, bdf, &ad, &session);
	if (IS_ERR(peer))
		ret = PTR_ERR(peer);
	else if (!strcmp(cmd, "add"))
		ret = smartio_requester_get(ad, peer, session, req_id);
	else
		ret = smartio_requester_put(ad, peer->pidx, req_id, true);
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	return ret ?: count;
}

/*
 * What handlers returned: one count per op and status seen. More pairs
 * than a test makes are not counted (served_lost says how many).
 */
#define SMARTIO_TEST_SERVED_MAX	128

static struct smartio_test_served {
	u16 op;
	int status;
	unsigned long count;
} smartio_served[SMARTIO_TEST_SERVED_MAX];
static unsigned int smartio_served_used;
static unsigned long smartio_served_lost;
static DEFINE_SPINLOCK(smartio_served_lock);

/* A handler of @op returned @status (msg.c, smartio_msg_serve()). */
void smartio_test_served(u16 op, int status)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&smartio_served_lock, flags);
	for (i = 0; i < smartio_served_used; i++)
		if (smartio_served[i].op == op &&
		    smartio_served[i].status == status)
			break;
	if (i == smartio_served_used) {
		if (i == SMARTIO_TEST_SERVED_MAX) {
			smartio_served_lost++;
			goto unlock;
		}
		smartio_served[i].op = op;
		smartio_served[i].status = status;
		smartio_served_used++;
	}
	smartio_served[i].count++;
unlock:
	spin_unlock_irqrestore(&smartio_served_lock, flags);
}

/* <debugfs>/smartio/served: "op OP status STATUS count COUNT" lines. */
static int smartio_served_show(struct seq_file *s, void *unused)
{
	unsigned int i;

	/* seq_printf() does not sleep: it fills the file's buffer. */
	spin_lock_irq(&smartio_served_lock);
	for (i = 0; i < smartio_served_used; i++)
		seq_printf(s, "op %u status %d count %lu\n",
			   smartio_served[i].op, smartio_served[i].status,
			   smartio_served[i].count);
	if (smartio_served_lost)
		seq_printf(s, "served_lost %lu\n", smartio_served_lost);
	spin_unlock_irq(&smartio_served_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smartio_served);

void smartio_test_debugfs(struct dentry *dir)
{
	debugfs_create_file("served", 0400, dir, NULL, &smartio_served_fops);
}
