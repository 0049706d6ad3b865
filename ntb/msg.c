// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-to-kernel messaging over the NTB: one channel to every joined
 * peer, each way a ring of smartio/ring.h records holding smartio/msg.h
 * messages.
 *
 * Receive area (version 2). Every node allocates, per peer, one area of
 * memory that its inbound window 0 for that peer leads to (reach.c), at
 * an offset its hello tells (adapter.c); the peer writes into it through
 * its outbound window onto us. Only posted writes cross the fabric:
 * nobody ever reads the other side's memory.
 *
 *	offset	size		written by the sender
 *	0x0000	__le32		head: producer counter of the ring below
 *	0x0040	__le32		ack: the sender's consumer counter of the ring
 *				we write into (how far it has read our messages)
 *	0x0080	32 bytes	what our windows onto the sender lead to
 *				(struct smartio_reach_wire, reach.c)
 *	0x1000	RING_SIZE	the ring
 *
 * Sending: reserve a record (smartio_ring_reserve(), with the tail the
 * receiver last acknowledged), copy it through the window, wmb(), write
 * head, ring doorbell SMARTIO_DB_MSG. Receiving, on that doorbell: clear
 * it, read head, take the records, write our new tail into the sender's
 * ack field. The doorbell is only a wake-up: a sender that finds the ring
 * full polls for room (the receiver rings back only after draining a ring
 * that was a quarter full), so no message or doorbell can be missed.
 *
 * Session. The receive side is reset (counters and expected sequence
 * number zeroed) before every handshake hello that acknowledges the peer,
 * and the send side when the peer joins. A peer sends only while joined,
 * which it becomes only after reading such a hello; the fabric delivers
 * posted writes in order, so nothing of an earlier session lands after the
 * reset. When the peer leaves, every pending request fails with -ENOTCONN.
 *
 * Liveness: a node posts a keepalive (an ECHO event) to each joined peer
 * it has sent nothing to for a heartbeat tick, and notes when the peer
 * last wrote into its receive area (smartio_msg_chan_tick()); adapter.c
 * loses a peer not heard from for peer_timeout_ms as at a link down. The
 * keepalives go only on an idle channel: nothing is added per message.
 * They ring no doorbell: the receiver's own tick reads them.
 *
 * Leaving. A node whose adapter goes away posts a LEAVING event to each
 * joined peer and closes its sending side to it (smartio_msg_chan_leave());
 * it still reads, so that two nodes leaving at once ack each other's
 * events. The peer, reading the event, runs its handlers of it (its
 * processes' mappings of the leaving node's segments go: segment.c) and
 * closes its channel; its acknowledgment of the event is the last it
 * writes into the leaving node's memory. The leaving node waits for it,
 * then reads what the peer sent before it (a peer leaving at the same
 * time waits for our ack of its own LEAVING), before it takes its link
 * down. Once it has posted its LEAVING it acks
 * nothing but the peer's LEAVING: a peer that read our event may take its
 * own link down at any time after its ack, and waits for no ack of ours
 * unless it is leaving too. So no write of either
 * (a keepalive, an ack) meets a link that is down: the NTB
 * would drop it, as hardware does, and the rig would see a drop no test
 * asked for. A peer that does not acknowledge in time is left as at a
 * link down.
 *
 * Bounded memory: each node has at most SMARTIO_MSG_INFLIGHT requests
 * pending per peer, and a request or event is sent only if room for that
 * many largest responses stays free, so a response always finds room and
 * serving a request never waits on the peer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/pci.h>
#include <linux/rculist.h>
#include <linux/rwsem.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/srcu.h>

#include "smartio/ntb.h"
#include "smartio/ring.h"
#include "smartio_ntb_priv.h"

/*
 * Ring bytes kept free for responses: one largest per pending request
 * (a record of the largest message, header and alignment included).
 */
#define SMARTIO_MSG_RESERVE \
	(SMARTIO_MSG_INFLIGHT * \
	 ALIGN(SMARTIO_RING_HDR_LEN + SMARTIO_MSG_MAX_LEN, SMARTIO_RING_ALIGN))

/* Request ids: generation << 8 | (pending slot + 1); never 0. */
#define SMARTIO_MSG_ID_SLOT(id)		(((id) & 0xff) - 1)

static_assert(SMARTIO_MSG_INFLIGHT < 0xff);
static_assert(2 * SMARTIO_MSG_RESERVE <= SMARTIO_MSG_RING_SIZE);

/* Handlers by op; SMARTIO_MSG_OP_ECHO's is built in. */
static DECLARE_RWSEM(smartio_msg_handlers_rwsem);
static smartio_msg_handler_t smartio_msg_handlers[SMARTIO_MSG_OP_MAX];

static __le32 *smartio_msg_area_u32(struct smartio_msg_chan *chan, u32 off)
{
	return chan->area + off;
}

/**
 * smartio_msg_chan_init() - Initialise the messaging channel to a peer.
 * @peer: The peer; its channel is down until it joins.
 */
void smartio_msg_chan_init(struct smartio_peer *peer)
{
	struct smartio_msg_chan *chan = &peer->chan;
	int i;

	mutex_init(&chan->rx_lock);
	spin_lock_init(&chan->lock);
	init_waitqueue_head(&chan->wait);
	chan->next_id = 1;
	chan->win_idx = -1;
	for (i = 0; i < SMARTIO_MSG_INFLIGHT; i++)
		init_completion(&chan->pending[i].done);
}

/**
 * smartio_msg_chan_open() - Open the windows of the channel to a peer.
 * @ad: The adapter.
 * @peer: The peer, whose link is up (NTBs tell window constraints only
 *	then); its channel is down.
 *
 * The first time, opens our inbound windows for @peer, its receive area
 * among what they lead to (reach.c); the peer's hello says where its own
 * is (smartio_msg_chan_locate()). They stay until smartio_msg_chan_exit();
 * each later time, the windows are translated again, as they were.
 *
 * Return: 0 or -errno, with the reason logged.
 */
int smartio_msg_chan_open(struct smartio_adapter *ad, struct smartio_peer *peer)
{
	if (peer->chan.area)
		return smartio_inbound_restore(ad, peer);

	return smartio_inbound_open(ad, peer);
}

/**
 * smartio_msg_chan_locate() - Learn where a peer's receive area is.
 * @ad: The adapter.
 * @peer: The peer, whose channel is down.
 * @widx: The window its hello says the area is in: its inbound window,
 *	which on an NTB with inbound-translated windows (one peer) is our
 *	outbound window of that index; elsewhere 0, and our outbound window
 *	onto the peer is window pidx (window 0 on two ports).
 * @offset: Where in that window.
 *
 * Maps the area; again only where the hello moved it.
 *
 * Return: 0, -ERANGE (logged) when the area would not be in the window,
 * or -ENOMEM.
 */
int smartio_msg_chan_locate(struct smartio_adapter *ad,
			    struct smartio_peer *peer, int widx, u64 offset)
{
	struct smartio_msg_chan *chan = &peer->chan;
	bool direct = smartio_inbound_direct(ad);
	int out = direct ? widx : peer->pidx;
	resource_size_t win_size = 0;
	phys_addr_t win_base;

	if (chan->win && chan->win_idx == widx && chan->win_offset == offset)
		return 0;
	if (chan->win) {
		iounmap(chan->win);
		chan->win = NULL;
		chan->win_idx = -1;
	}
	if ((!direct && widx) || widx >= SMARTIO_REACH_WINDOWS ||
	    ntb_peer_mw_get_addr(ad->ntb, out, &win_base, &win_size) ||
	    !smartio_range_within(offset, SMARTIO_MSG_AREA_SIZE, 0, win_size)) {
		dev_err_ratelimited(&ad->ntb->dev, "adapter %d: port %d puts its receive area at %#llx of its window %d, outside our %pa-byte window %d onto it\n",
				    ad->index, peer->port, offset, widx,
				    &win_size, out);
		return -ERANGE;
	}
	chan->win = ioremap_wc(win_base + offset, SMARTIO_MSG_AREA_SIZE);
	if (!chan->win)
		return -ENOMEM;
	chan->win_idx = widx;
	chan->win_offset = offset;
	return 0;
}

/**
 * smartio_msg_chan_exit() - Tear down the channel to a peer.
 * @ad: The adapter.
 * @peer: The peer; its channel is down and nothing receives on it.
 */
void smartio_msg_chan_exit(struct smartio_adapter *ad, struct smartio_peer *peer)
{
	struct smartio_msg_chan *chan = &peer->chan;

	if (chan->win) {
		iounmap(chan->win);
		chan->win = NULL;
		chan->win_idx = -1;
	}
	if (chan->area)
		smartio_inbound_close(ad, peer);
	mutex_destroy(&chan->rx_lock);
}

/**
 * smartio_msg_chan_reset_rx() - Start a new session on the receive side.
 * @peer: The peer, not joined: it sends nothing until it reads our hello.
 */
void smartio_msg_chan_reset_rx(struct smartio_peer *peer)
{
	struct smartio_msg_chan *chan = &peer->chan;

	mutex_lock(&chan->rx_lock);
	WRITE_ONCE(*smartio_msg_area_u32(chan, SMARTIO_MSG_AREA_HEAD), 0);
	WRITE_ONCE(*smartio_msg_area_u32(chan, SMARTIO_MSG_AREA_ACK), 0);
	chan->rx_tail = 0;
	chan->rx_seq = 0;
	chan->rx_acks_leaving_only = false;
	WRITE_ONCE(chan->rx_corrupt, false);
	mutex_unlock(&chan->rx_lock);
}

/**
 * smartio_msg_chan_up() - The peer joined: open the send side.
 * @peer: The peer.
 */
void smartio_msg_chan_up(struct smartio_peer *peer)
{
	struct smartio_msg_chan *chan = &peer->chan;

	spin_lock_irq(&chan->lock);
	chan->tx_head = 0;
	chan->tx_seq = 0;
	chan->up = true;
	chan->alive_tx = chan->tx_count;
	spin_unlock_irq(&chan->lock);
	WRITE_ONCE(chan->rx_open, true);
	chan->alive_head = le32_to_cpu(READ_ONCE(*smartio_msg_area_u32(chan, SMARTIO_MSG_AREA_HEAD)));
	chan->alive_ack = le32_to_cpu(READ_ONCE(*smartio_msg_area_u32(chan, SMARTIO_MSG_AREA_ACK)));
	chan->alive_heard = jiffies;
}

/*
 * Closes the send side: every pending request completes with -ENOTCONN
 * now, and every later call fails with -ENOTCONN until the peer joins
 * again. Returns the number of requests failed.
 */
static unsigned int smartio_msg_chan_close_tx(struct smartio_peer *peer)
{
	struct smartio_msg_chan *chan = &peer->chan;
	unsigned int failed = 0;
	int i;

	spin_lock_irq(&chan->lock);
	chan->up = false;
	for (i = 0; i < SMARTIO_MSG_INFLIGHT; i++) {
		struct smartio_msg_pending *p = &chan->pending[i];

		if (!p->id || p->answered)
			continue;
		p->status = -ENOTCONN;
		p->resp_len = 0;
		p->answered = true;
		complete(&p->done);
		failed++;
	}
	spin_unlock_irq(&chan->lock);
	wake_up_all(&chan->wait);

	return failed;
}

/**
 * smartio_msg_chan_down() - The peer left: fail what waits on it.
 * @peer: The peer.
 *
 * Every pending request completes with -ENOTCONN now, every later call
 * fails with -ENOTCONN, and nothing more is read from the peer, until it
 * joins again.
 *
 * Return: The number of requests failed.
 */
unsigned int smartio_msg_chan_down(struct smartio_peer *peer)
{
	WRITE_ONCE(peer->chan.rx_open, false);
	return smartio_msg_chan_close_tx(peer);
}

/*
 * Sends the record chan->tx_buf holds, its header and LEN message bytes
 * (a smartio_msg_fill_t wrote them), keeping @reserve ring bytes free.
 * The record's slot is LEN bytes long whatever its header says: only the
 * test hooks (test_hooks.c) make a header that says otherwise. Returns
 * -ENOTCONN when the channel is down, -ENOSPC when the ring has no room
 * now. Called with chan->lock held.
 */
static int smartio_msg_push_locked(struct smartio_adapter *ad,
				   struct smartio_peer *peer, u32 len,
				   u32 reserve, bool wake)
{
	struct smartio_msg_chan *chan = &peer->chan;
	void __iomem *ring = chan->win + SMARTIO_MSG_AREA_RING;
	struct smartio_ring_slot slot;
	u32 tail, room;
	u8 pad[SMARTIO_RING_HDR_LEN];
	int ret;

	if (!chan->up)
		return -ENOTCONN;

	tail = le32_to_cpu(READ_ONCE(*smartio_msg_area_u32(chan, SMARTIO_MSG_AREA_ACK)));
	ret = smartio_ring_reserve(SMARTIO_MSG_RING_SIZE, chan->tx_head, tail,
				   len, &slot);
	if (ret)
		return ret == -EAGAIN ? -ENOSPC : ret;
	room = smartio_ring_free(SMARTIO_MSG_RING_SIZE, chan->tx_head, tail);
	if (slot.next_head - chan->tx_head + reserve > room)
		return -ENOSPC;

	if (slot.pad_len) {
		smartio_ring_hdr_encode(pad, SMARTIO_RING_REC_PAD,
					slot.pad_len - SMARTIO_RING_HDR_LEN);
		memcpy_toio(ring + slot.pad_off, pad, sizeof(pad));
	}
	memcpy_toio(ring + slot.off, chan->tx_buf, SMARTIO_RING_HDR_LEN + len);
	/* The records reach the peer before the head that publishes them. */
	wmb();
	iowrite32(slot.next_head, chan->win + SMARTIO_MSG_AREA_HEAD);
	chan->tx_head = slot.next_head;
	chan->tx_seq++;
	WRITE_ONCE(chan->tx_count, chan->tx_count + 1);
	if (wake)
		ntb_peer_db_set(ad->ntb, SMARTIO_DB_MSG);

	return 0;
}

/*
 * Encodes @arg, a struct smartio_msg whose seq is set here, as the
 * channel's next record (a smartio_msg_fill_t). Called with chan->lock
 * held.
 */
static int smartio_msg_fill_encode(struct smartio_msg_chan *chan, void *arg)
{
	struct smartio_msg *m = arg;
	int ret;

	lockdep_assert_held(&chan->lock);
	m->seq = chan->tx_seq;
	ret = smartio_msg_encode(m, chan->tx_buf + SMARTIO_RING_HDR_LEN,
				 sizeof(chan->tx_buf) - SMARTIO_RING_HDR_LEN);
	if (ret < 0)
		return ret;
	ret = smartio_msg_wire_len(m);
	smartio_ring_hdr_encode(chan->tx_buf, SMARTIO_RING_REC_DATA, ret);
	return ret;
}

/*
 * Sends @m (its seq is set here), keeping @reserve ring bytes free, and
 * rings the peer's doorbell if @wake (a keepalive does not: the peer's
 * own heartbeat finds it). Returns -ENOTCONN when the channel is down,
 * -ENOSPC when the ring has no room now. Called with chan->lock held.
 */
static int smartio_msg_send_locked(struct smartio_adapter *ad,
				   struct smartio_peer *peer,
				   struct smartio_msg *m, u32 reserve,
				   bool wake)
{
	int len = smartio_msg_fill_encode(&peer->chan, m);

	if (len < 0)
		return len;
	return smartio_msg_push_locked(ad, peer, len, reserve, wake);
}

static void smartio_msg_rx(struct smartio_adapter *ad,
			   struct smartio_peer *peer);

/**
 * smartio_msg_chan_leave() - Tell a joined peer we leave, and close to it.
 * @ad: The adapter, going away: its link goes down next.
 * @peer: The peer.
 * @ack: Where the peer's acknowledgment must reach for the event to be
 *	read (smartio_msg_chan_left()).
 *
 * Posts a LEAVING event, then closes the send side as at a link down:
 * every pending request fails with -ENOTCONN, and nothing more is sent to
 * the peer. Its messages are still read until our link goes down: a peer
 * leaving at the same time waits for our ack of its own LEAVING.
 *
 * Return: 0, or -ENOTCONN if the channel was not up, -ENOSPC if the ring
 * had no room: the peer is not told then, and not waited for.
 */
int smartio_msg_chan_leave(struct smartio_adapter *ad,
			   struct smartio_peer *peer, u32 *ack)
{
	struct smartio_msg_chan *chan = &peer->chan;
	struct smartio_msg leaving = {
		.kind = SMARTIO_MSG_EVENT,
		.op = SMARTIO_MSG_OP_LEAVING,
	};
	int ret;

	/*
	 * Under rx_lock: a receive that reads the peer's own LEAVING meanwhile
	 * acks it after our event's writes, never before them, so that the
	 * peer, seeing that ack, finds our event in its ring too.
	 */
	mutex_lock(&chan->rx_lock);
	spin_lock_irq(&chan->lock);
	ret = smartio_msg_send_locked(ad, peer, &leaving, 0, true);
	*ack = chan->tx_head;
	spin_unlock_irq(&chan->lock);
	chan->rx_acks_leaving_only = true;
	mutex_unlock(&chan->rx_lock);
	smartio_msg_chan_close_tx(peer);
	return ret;
}

/**
 * smartio_msg_chan_drain() - Read what a peer that read our LEAVING sent.
 * @ad: The adapter, leaving.
 * @peer: The peer; smartio_msg_chan_left() said it read our LEAVING.
 *
 * Having read it, the peer sends nothing more, so what is in our ring is
 * all it will send: read it now, while our link is up. Among it may be the
 * peer's own LEAVING, posted as it left at the same time as we, which it
 * waits for us to ack; nothing else is acked (smartio_msg_chan_leave()).
 */
void smartio_msg_chan_drain(struct smartio_adapter *ad,
			    struct smartio_peer *peer)
{
	struct smartio_msg_chan *chan = &peer->chan;

	smartio_msg_rx(ad, peer);
	/* Nothing read later is acked: our link goes down next. */
	mutex_lock(&chan->rx_lock);
	WRITE_ONCE(chan->rx_open, false);
	mutex_unlock(&chan->rx_lock);
}

/**
 * smartio_msg_chan_left() - Has the peer read our LEAVING event?
 * @peer: The peer, told by smartio_msg_chan_leave().
 * @ack: The position smartio_msg_chan_leave() gave.
 *
 * Return: True once the peer's acknowledgment reached @ack: it read the
 * event, and writes nothing more into our memory.
 */
bool smartio_msg_chan_left(struct smartio_peer *peer, u32 ack)
{
	struct smartio_msg_chan *chan = &peer->chan;

	return le32_to_cpu(READ_ONCE(*smartio_msg_area_u32(chan, SMARTIO_MSG_AREA_ACK))) == ack;
}

/* Takes a free pending entry, or returns NULL. Called with chan->lock held. */
static struct smartio_msg_pending *
smartio_msg_pending_get(struct smartio_msg_chan *chan, void *resp,
			u32 resp_max)
{
	struct smartio_msg_pending *p;
	int i;

	for (i = 0; i < SMARTIO_MSG_INFLIGHT; i++) {
		p = &chan->pending[i];
		if (p->id)
			continue;
		p->id = chan->next_id++ << 8 | (i + 1);
		p->resp = resp;
		p->resp_max = resp_max;
		p->resp_len = 0;
		p->status = 0;
		p->answered = false;
		reinit_completion(&p->done);
		return p;
	}
	return NULL;
}

static bool smartio_msg_can_try(struct smartio_msg_chan *chan)
{
	int i;

	if (!chan->up)
		return true;
	for (i = 0; i < SMARTIO_MSG_INFLIGHT; i++)
		if (!chan->pending[i].id)
			return true;
	return false;
}

/**
 * smartio_msg_call_peer() - Send a request to a peer and wait for its response.
 * @ad: The adapter.
 * @peer: The peer.
 * @op: Operation.
 * @req: Request payload.
 * @len: Bytes of @req, at most SMARTIO_MSG_MAX_PAYLOAD.
 * @resp: Buffer for the response's payload.
 * @resp_max: Size of @resp.
 * @resp_len: Set to the response's payload bytes.
 * @timeout: Jiffies to wait in all (for a pending slot, ring room and the
 *	response).
 *
 * Context: Process context; sleeps. A fatal signal ends the wait.
 * Return: The response's status, or -ENOTCONN (the peer is not joined or
 * left), -ETIMEDOUT, -EINTR, -EMSGSIZE (@len too large, or the response
 * did not fit @resp).
 */
int smartio_msg_call_peer(struct smartio_adapter *ad, struct smartio_peer *peer,
			  u16 op, const void *req, u32 len, void *resp,
			  u32 resp_max, u32 *resp_len, unsigned long timeout)
{
	struct smartio_msg_chan *chan = &peer->chan;
	unsigned long deadline = jiffies + timeout;
	struct smartio_msg m = {
		.kind = SMARTIO_MSG_REQUEST,
		.op = op,
		.len = len,
		.payload = req,
	};
	struct smartio_msg_pending *p;
	long left;
	int ret;

	if (len > SMARTIO_MSG_MAX_PAYLOAD)
		return -EMSGSIZE;

	spin_lock_irq(&chan->lock);
	while (!(p = smartio_msg_pending_get(chan, resp, resp_max))) {
		if (!chan->up) {
			ret = -ENOTCONN;
			goto unlock;
		}
		left = wait_event_lock_irq_timeout(chan->wait,
						   smartio_msg_can_try(chan),
						   chan->lock,
						   max_t(long, deadline - jiffies, 1));
		if (!left) {
			ret = -ETIMEDOUT;
			goto unlock;
		}
	}
	m.id = p->id;

	/* A full ring drains as the peer reads it: poll for room. */
	while ((ret = smartio_msg_send_locked(ad, peer, &m,
					      SMARTIO_MSG_RESERVE,
					      true)) == -ENOSPC) {
		spin_unlock_irq(&chan->lock);
		if (time_after(jiffies, deadline))
			ret = -ETIMEDOUT;
		else if (fatal_signal_pending(current))
			ret = -EINTR;
		else
			schedule_timeout_killable(1);
		spin_lock_irq(&chan->lock);
		if (ret != -ENOSPC)
			break;
	}
	if (ret)
		goto put;

	spin_unlock_irq(&chan->lock);
	left = wait_for_completion_killable_timeout(&p->done,
						    max_t(long, deadline - jiffies, 1));
	spin_lock_irq(&chan->lock);
	if (p->answered) {
		ret = p->status;
		*resp_len = p->resp_len;
	} else {
		ret = left < 0 ? -EINTR : -ETIMEDOUT;
	}
put:
	p->id = 0;
	wake_up(&chan->wait);
unlock:
	spin_unlock_irq(&chan->lock);
	return ret;
}

/* Hands a response to the request waiting for it. */
static void smartio_msg_deliver(struct smartio_adapter *ad,
				struct smartio_peer *peer,
				const struct smartio_msg *m)
{
	struct smartio_msg_chan *chan = &peer->chan;
	u32 slot = SMARTIO_MSG_ID_SLOT(m->id);
	struct smartio_msg_pending *p;
	unsigned long flags;

	spin_lock_irqsave(&chan->lock, flags);
	if (slot >= SMARTIO_MSG_INFLIGHT)
		goto unlock;
	p = &chan->pending[slot];
	/* A request that timed out no longer waits. */
	if (p->id != m->id || p->answered)
		goto unlock;
	if (m->len > p->resp_max) {
		p->status = -EMSGSIZE;
	} else {
		p->status = m->status;
		p->resp_len = m->len;
		memcpy(p->resp, m->payload, m->len);
	}
	p->answered = true;
	complete(&p->done);
unlock:
	spin_unlock_irqrestore(&chan->lock, flags);
}

/* Answers a request with its payload; an event is a keepalive. */
static int smartio_msg_echo(u16 node_id, const struct smartio_msg *req,
			    void *resp, u32 *resp_len)
{
	if (!resp)
		return 0;
	memcpy(resp, req->payload, req->len);
	*resp_len = req->len;
	return 0;
}

/* Serves a request or event; answers a request. Called with rx_lock held. */
static void smartio_msg_serve(struct smartio_adapter *ad,
			      struct smartio_peer *peer,
			      const struct smartio_msg *m)
{
	struct smartio_msg_chan *chan = &peer->chan;
	bool request = m->kind == SMARTIO_MSG_REQUEST;
	smartio_msg_handler_t handler = NULL;
	struct smartio_msg resp;
	u32 resp_len = 0;
	int status, ret;

	down_read(&smartio_msg_handlers_rwsem);
	if (m->op < SMARTIO_MSG_OP_MAX)
		handler = smartio_msg_handlers[m->op];
	/*
	 * A peer picks the kind, not the handler: an event of an op that
	 * answers gets a buffer all the same, and its answer is dropped.
	 */
	status = handler ? handler(peer->node_id, m, chan->rx_resp,
				   &resp_len) : -EOPNOTSUPP;
	up_read(&smartio_msg_handlers_rwsem);
	smartio_test_served(m->op, status);
	if (!request)
		return;

	smartio_msg_init_response(&resp, m, status);
	resp.payload = chan->rx_resp;
	resp.len = min_t(u32, resp_len, SMARTIO_MSG_MAX_PAYLOAD);
	spin_lock_irq(&chan->lock);
	ret = smartio_msg_send_locked(ad, peer, &resp, 0, true);
	spin_unlock_irq(&chan->lock);
	if (ret && ret != -ENOTCONN)
		dev_err_ratelimited(&ad->ntb->dev, "adapter %d: node %u: cannot answer request %u: %d\n",
				    ad->index, peer->node_id, m->id, ret);
}

/*
 * Takes one message off the ring. Returns true if it was the peer's
 * LEAVING: nothing after it is read. Called with rx_lock held.
 */
static bool smartio_msg_rx_one(struct smartio_adapter *ad,
			       struct smartio_peer *peer, const void *buf,
			       u32 len)
{
	struct smartio_msg_chan *chan = &peer->chan;
	struct smartio_msg m;
	int ret;

	ret = smartio_msg_decode(buf, len, &m);
	if (ret < 0) {
		WRITE_ONCE(chan->rx_malformed, chan->rx_malformed + 1);
		dev_err_ratelimited(&ad->ntb->dev, "adapter %d: node %u: dropping a malformed message: %d\n",
				    ad->index, peer->node_id, ret);
		return false;
	}
	if (m.seq != chan->rx_seq) {
		WRITE_ONCE(chan->rx_misordered, chan->rx_misordered + 1);
		dev_err_ratelimited(&ad->ntb->dev, "adapter %d: node %u: message %u arrived, %u expected\n",
				    ad->index, peer->node_id, m.seq,
				    chan->rx_seq);
	}
	chan->rx_seq = m.seq + 1;
	WRITE_ONCE(chan->rx_count, chan->rx_count + 1);
	if (m.kind == SMARTIO_MSG_EVENT && m.op == SMARTIO_MSG_OP_ECHO)
		WRITE_ONCE(chan->rx_keepalives, chan->rx_keepalives + 1);

	/*
	 * The peer's link goes down next: close to it now, so that nothing
	 * of ours but the ack of this event (smartio_msg_rx()) meets it.
	 * A peer may only close its own channel so: it stays joined until
	 * its link goes down or its heartbeat times it out.
	 */
	if (m.kind == SMARTIO_MSG_EVENT && m.op == SMARTIO_MSG_OP_LEAVING) {
		dev_info(&ad->ntb->dev, "adapter %d: node %u is leaving\n",
			 ad->index, peer->node_id);
		/* What leads into it goes first (segment.c), before our ack. */
		smartio_msg_serve(ad, peer, &m);
		smartio_msg_chan_down(peer);
		return true;
	}

	if (m.kind == SMARTIO_MSG_RESPONSE)
		smartio_msg_deliver(ad, peer, &m);
	else
		smartio_msg_serve(ad, peer, &m);
	return false;
}

/* Receives everything a peer has sent. */
static void smartio_msg_rx(struct smartio_adapter *ad, struct smartio_peer *peer)
{
	struct smartio_msg_chan *chan = &peer->chan;
	const void *ring = chan->area + SMARTIO_MSG_AREA_RING;
	struct smartio_ring_rec rec;
	bool peer_leaving = false;
	u32 head, start;
	int ret;

	mutex_lock(&chan->rx_lock);
	if (!READ_ONCE(chan->rx_open))
		goto unlock;

	head = le32_to_cpu(READ_ONCE(*smartio_msg_area_u32(chan, SMARTIO_MSG_AREA_HEAD)));
	/* The records were written before the head: read them after it. */
	dma_rmb();
	start = chan->rx_tail;
	while (!(ret = smartio_ring_peek(ring, SMARTIO_MSG_RING_SIZE, head,
					 chan->rx_tail, &rec))) {
		peer_leaving = smartio_msg_rx_one(ad, peer, ring + rec.off,
						  rec.len);
		WRITE_ONCE(chan->rx_tail, rec.next_tail);
		/* The peer is leaving: nothing after its event is read. */
		if (peer_leaving) {
			ret = -EAGAIN;
			break;
		}
	}
	/*
	 * A record that breaks the ring's scheme hides everything after it
	 * for good: the peer is as good as silent, and its heartbeat times
	 * it out (smartio_msg_chan_tick()) rather than its head, moving or
	 * unread, keeping it joined with nothing ever read again.
	 */
	if (ret != -EAGAIN && !chan->rx_corrupt) {
		WRITE_ONCE(chan->rx_corrupt, true);
		dev_err(&ad->ntb->dev, "adapter %d: node %u: receive ring corrupt (%d) at %u, head %u: nothing more is read from it\n",
			ad->index, peer->node_id, ret, chan->rx_tail, head);
	}
	if (chan->rx_tail == start ||
	    (chan->rx_acks_leaving_only && !peer_leaving))
		goto unlock;

	iowrite32(chan->rx_tail, chan->win + SMARTIO_MSG_AREA_ACK);
	/*
	 * A sender may be polling for room: tell it there is some; not a
	 * peer that is leaving, to which the ack is the last write.
	 */
	if (READ_ONCE(chan->rx_open) &&
	    smartio_ring_used(head, start) >= SMARTIO_MSG_RING_SIZE / 4)
		ntb_peer_db_set(ad->ntb, SMARTIO_DB_MSG);
unlock:
	mutex_unlock(&chan->rx_lock);
}

/**
 * smartio_msg_work() - Receives the messages of every peer of an adapter.
 * @work: The adapter's msg_work, queued on doorbell SMARTIO_DB_MSG.
 */
void smartio_msg_work(struct work_struct *work)
{
	struct smartio_adapter *ad = container_of(work, struct smartio_adapter,
						  msg_work);
	int pidx;

	/* Clear first: a message that arrives after this rings again. */
	if (ntb_db_read(ad->ntb) & SMARTIO_DB_MSG)
		ntb_db_clear(ad->ntb, SMARTIO_DB_MSG);

	for (pidx = 0; pidx < ad->peer_count; pidx++)
		smartio_msg_rx(ad, &ad->peers[pidx]);
}

/**
 * smartio_msg_chan_tick() - One heartbeat of the channel to a joined peer.
 * @ad: The adapter.
 * @peer: The peer, joined.
 *
 * Posts a keepalive, an ECHO event that nothing answers, when nothing went
 * to the peer since the last tick, so that a live node is heard at least
 * once a tick by each of its peers whatever it has to say. It rings no
 * doorbell: the peer's tick sees its ring's head move, and has the ring
 * read then, so that an idle channel or one busy only with the data path
 * interrupts no one (bench/datapath counts the lender's NTB interrupts
 * while a borrower runs I/O: none). And notes
 * whether the peer was heard: the head of our receive ring or the ack of
 * our messages moved (the peer writes both, the one as it sends, the
 * other as it reads). What the peer's message handlers do, and how fast,
 * does not matter: only that it still writes. Nothing here is done per
 * message: a tick reads two words of our own memory.
 *
 * A peer whose records broke our receive ring is never heard again
 * (smartio_msg_rx()): what it writes can no longer be read.
 *
 * Context: With the adapter's lock held; called once a tick.
 * Return: How long (jiffies) nothing came from the peer; 0 if something
 * did since the last tick, or if we have not read all it sent (we are
 * behind then, not the peer).
 */
unsigned long smartio_msg_chan_tick(struct smartio_adapter *ad,
				    struct smartio_peer *peer)
{
	struct smartio_msg_chan *chan = &peer->chan;
	struct smartio_msg keepalive = {
		.kind = SMARTIO_MSG_EVENT,
		.op = SMARTIO_MSG_OP_ECHO,
	};
	u32 head = le32_to_cpu(READ_ONCE(*smartio_msg_area_u32(chan, SMARTIO_MSG_AREA_HEAD)));
	u32 ack = le32_to_cpu(READ_ONCE(*smartio_msg_area_u32(chan, SMARTIO_MSG_AREA_ACK)));
	bool unread = head != READ_ONCE(chan->rx_tail);

	if (READ_ONCE(chan->rx_corrupt))
		unread = false;
	else if (head != chan->alive_head || ack != chan->alive_ack || unread)
		chan->alive_heard = jiffies;
	chan->alive_head = head;
	chan->alive_ack = ack;
	/* Keepalives ring no doorbell: read them now, with what came after. */
	if (unread)
		queue_work(system_highpri_wq, &ad->msg_work);

	/* A full ring (a peer that stopped reading) takes nothing: no matter. */
	spin_lock_irq(&chan->lock);
	if (chan->tx_count == chan->alive_tx &&
	    !smartio_msg_send_locked(ad, peer, &keepalive,
				     SMARTIO_MSG_RESERVE, false))
		WRITE_ONCE(chan->tx_keepalives, chan->tx_keepalives + 1);
	chan->alive_tx = chan->tx_count;
	spin_unlock_irq(&chan->lock);

	return jiffies - chan->alive_heard;
}

/*
 * The channel's counters for debugfs: the messages smartio sent and
 * received, and apart from them the keepalives, which an idle channel
 * carries once a heartbeat (what benchmarks and tests count is the
 * former: bench/datapath, tests/vm/lend-unprivileged); and what a peer
 * sent that the decoder refused or that came out of order (a healthy
 * peer sends neither; tests/vm/fuzz-peer counts them).
 */
void smartio_msg_chan_show(struct seq_file *s,
			   const struct smartio_msg_chan *chan)
{
	u64 tx = READ_ONCE(chan->tx_count), rx = READ_ONCE(chan->rx_count);
	u64 tx_alive = READ_ONCE(chan->tx_keepalives);
	u64 rx_alive = READ_ONCE(chan->rx_keepalives);

	seq_printf(s, "    messages sent %llu received %llu\n",
		   tx - tx_alive, rx - rx_alive);
	seq_printf(s, "    keepalives sent %llu received %llu\n",
		   tx_alive, rx_alive);
	seq_printf(s, "    received malformed %llu misordered %llu\n",
		   READ_ONCE(chan->rx_malformed),
		   READ_ONCE(chan->rx_misordered));
}

/**
 * smartio_msg_handler_register() - Serve the requests and events of an op.
 * @op: Operation, below SMARTIO_MSG_OP_MAX.
 * @handler: Its handler.
 *
 * Return: 0, -EINVAL for a bad op, -EBUSY if @op already has a handler.
 */
int smartio_msg_handler_register(u16 op, smartio_msg_handler_t handler)
{
	int ret = 0;

	if (!op || op >= SMARTIO_MSG_OP_MAX)
		return -EINVAL;
	down_write(&smartio_msg_handlers_rwsem);
	if (smartio_msg_handlers[op])
		ret = -EBUSY;
	else
		smartio_msg_handlers[op] = handler;
	up_write(&smartio_msg_handlers_rwsem);
	return ret;
}
EXPORT_SYMBOL_GPL(smartio_msg_handler_register);

/**
 * smartio_msg_handler_unregister() - Stop serving an op.
 * @op: An op with a handler.
 *
 * Waits for the handler to return if it runs; requests of @op are then
 * answered with -EOPNOTSUPP.
 */
void smartio_msg_handler_unregister(u16 op)
{
	if (!op || op >= SMARTIO_MSG_OP_MAX)
		return;
	down_write(&smartio_msg_handlers_rwsem);
	smartio_msg_handlers[op] = NULL;
	up_write(&smartio_msg_handlers_rwsem);
}
EXPORT_SYMBOL_GPL(smartio_msg_handler_unregister);

/* Called at module load, before any adapter exists. */
void smartio_msg_init(void)
{
	smartio_msg_handlers[SMARTIO_MSG_OP_ECHO] = smartio_msg_echo;
}

/**
 * smartio_msg_call() - Send a request to a node and wait for its response.
 * @node_id: A joined node.
 * @op: Operation.
 * @req: Request payload.
 * @len: Bytes of @req, at most SMARTIO_MSG_MAX_PAYLOAD.
 * @resp: Buffer for the response's payload.
 * @resp_max: Size of @resp.
 * @resp_len: Set to the response's payload bytes.
 * @timeout: Jiffies to wait at most.
 *
 * Context: Process context; sleeps.
 * Return: The response's status (0 or -errno from the peer's handler), or
 * -EHOSTUNREACH (@node_id is not joined), -ENOTCONN (it left before
 * answering), -ETIMEDOUT, -EINTR (fatal signal), -EMSGSIZE.
 */
int smartio_msg_call(u16 node_id, u16 op, const void *req, u32 len,
		     void *resp, u32 resp_max, u32 *resp_len,
		     unsigned long timeout)
{
	struct smartio_adapter *ad;
	struct smartio_peer *peer;
	int idx, ret;

	idx = srcu_read_lock(&smartio_adapters_srcu);
	peer = smartio_node_peer(node_id, &ad);
	ret = peer ? smartio_msg_call_peer(ad, peer, op, req, len, resp,
					   resp_max, resp_len, timeout) :
		     -EHOSTUNREACH;
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	return ret;
}
EXPORT_SYMBOL_GPL(smartio_msg_call);

/**
 * smartio_msg_post_fill() - Post to a node the record @fill makes.
 * @node_id: A joined node.
 * @fill: Writes the record into the channel's tx_buf, under its lock.
 * @arg: What @fill is given.
 *
 * The one way into a channel's ring of smartio_msg_post() (which encodes
 * a message) and of the test hooks' smartio_msg_post_raw() (test_hooks.c).
 *
 * Context: Any context but NMI; does not sleep.
 * Return: As smartio_msg_post(), or what @fill returned if negative.
 */
int smartio_msg_post_fill(u16 node_id, smartio_msg_fill_t fill, void *arg)
{
	struct smartio_adapter *ad;
	struct smartio_peer *peer;
	unsigned long flags;
	int idx, ret;

	idx = srcu_read_lock(&smartio_adapters_srcu);
	peer = smartio_node_peer(node_id, &ad);
	if (peer) {
		spin_lock_irqsave(&peer->chan.lock, flags);
		ret = fill(&peer->chan, arg);
		if (ret >= 0)
			ret = smartio_msg_push_locked(ad, peer, ret,
						      SMARTIO_MSG_RESERVE,
						      true);
		spin_unlock_irqrestore(&peer->chan.lock, flags);
		if (ret == -ENOSPC)
			ret = -EAGAIN;
	} else {
		ret = -EHOSTUNREACH;
	}
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	return ret;
}

/**
 * smartio_msg_post() - Send an event to a node.
 * @node_id: A joined node.
 * @op: Operation.
 * @buf: Payload.
 * @len: Bytes of @buf, at most SMARTIO_MSG_MAX_PAYLOAD.
 *
 * The event is delivered in order with everything else sent to @node_id,
 * unless the node leaves first; it is not answered.
 *
 * Context: Any context but NMI; does not sleep.
 * Return: 0, -EHOSTUNREACH or -ENOTCONN (not joined), -EAGAIN (no room in
 * the ring now), -EMSGSIZE.
 */
int smartio_msg_post(u16 node_id, u16 op, const void *buf, u32 len)
{
	struct smartio_msg m = {
		.kind = SMARTIO_MSG_EVENT,
		.op = op,
		.len = len,
		.payload = buf,
	};

	if (len > SMARTIO_MSG_MAX_PAYLOAD)
		return -EMSGSIZE;
	return smartio_msg_post_fill(node_id, smartio_msg_fill_encode, &m);
}
EXPORT_SYMBOL_GPL(smartio_msg_post);
