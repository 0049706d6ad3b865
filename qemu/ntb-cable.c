/*
 * ntb-cable: the cable between two ports of an emulated NTB
 *
 * Threads and locks. Each cabled port has a connection thread, which
 * connects or accepts and then receives messages, a sender thread, which
 * writes queued messages to the socket, and an inbound thread, which
 * performs received messages. Nothing blocks on the cable while holding
 * the BQL: posted writes are queued (or, to the other port of a loopback
 * pair, performed at once: ntb_cable_perform_here()); reads of the peer
 * queue a request and wait for the reply with the BQL, and the main
 * AioContext, released. The inbound thread takes the BQL to call the
 * device's handler; replies to our own reads are handed over by the
 * receive thread without it. Lock order: BQL, then the main AioContext,
 * then NtbCable.lock.
 *
 * Copyright (c) 2026 smartio authors
 *
 * SPDX-License-Identifier: GPL-2.0
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/sockets.h"
#include "qemu/timer.h"
#include "qemu/bswap.h"
#include "qapi/error.h"
#include "block/aio.h"
#include "hw/qdev-core.h"
#include "ntb-cable.h"

#include <sys/un.h>
#include <poll.h>

#define NTB_CABLE_CONNECT_RETRY_MS 200
#define NTB_CABLE_SENDQ_MAX     (16 * MiB)
/*
 * Queued stores of one size to adjacent addresses merge up to this, within
 * a page; the receiver splits them again unless the target is RAM.
 */
/*
 * Posted writes a busy device has yet to take: at most this much, each
 * for at most NTB_CABLE_DEFERRED_MS; then the cable stalls, then drops.
 */
#define NTB_CABLE_DEFERRED_MAX  (16 * MiB)
#define NTB_CABLE_DEFERRED_MS   30000
#define NTB_CABLE_COALESCE_MAX  256
#define NTB_CABLE_COALESCE_PAGE (4 * KiB)

QEMU_BUILD_BUG_ON(sizeof(NtbCableHdr) != 24);

struct NtbCableMsg {
    QSIMPLEQ_ENTRY(NtbCableMsg) next;
    size_t size;                /* header + payload */
    size_t cap;                 /* room in data[] */
    uint8_t data[];             /* wire format */
};

/*
 * A received message other than a read reply, waiting to be performed by
 * the inbound thread, in the order received.
 */
struct NtbCableInbound {
    QSIMPLEQ_ENTRY(NtbCableInbound) next;
    uint32_t gen;               /* connection it came on */
    NtbCableHdr h;
    uint8_t payload[];
};

/*
 * A posted write for a device that was busy in an access of its own (a
 * bottom half or an MMIO access of it that waits for the cable with the
 * BQL released): accepted, as a real device's receive buffer takes it
 * while its DMA engine runs, and performed once the device is free.
 */
struct NtbCableDeferred {
    QSIMPLEQ_ENTRY(NtbCableDeferred) next;
    AddressSpace *as;
    dma_addr_t da;
    MemTxAttrs attrs;
    const DeviceState *dev;     /* the busy device: compared, never used */
    int64_t since;              /* QEMU_CLOCK_REALTIME, ms */
    uint32_t len;
    uint8_t data[];
};

struct NtbCableWaiter {
    QTAILQ_ENTRY(NtbCableWaiter) next;
    uint32_t tag;
    uint32_t len;
    uint8_t *buf;
    uint8_t *ahead;             /* room for a longer answer, or NULL */
    uint32_t ahead_len;         /* its size */
    uint32_t got;               /* bytes answered */
    uint64_t after;             /* inq_received when the reply came */
    bool done;
    bool ok;
};

/*
 * Set in receive threads: they must never access an NTB aperture, since
 * they deliver the replies that a read through one waits for.
 */
static __thread bool ntb_cable_rx;

/* The cable whose inbound thread this is, or NULL. */
static __thread NtbCable *ntb_cable_inbound;

/* Set while this thread performs a message for the peer port (below). */
static __thread bool ntb_cable_performing;

bool ntb_cable_in_rx(void)
{
    return ntb_cable_rx;
}

bool ntb_cable_connected_locked(NtbCable *c)
{
    return c->fd >= 0 && !c->stop;
}

void ntb_cable_enqueue_locked(NtbCable *c, uint32_t type, uint64_t addr,
                              uint32_t tag, uint32_t value,
                              const void *payload, uint32_t len)
{
    NtbCableMsg *m;
    NtbCableHdr h;
    size_t cap = sizeof(h) + len;

    if (c->fd < 0 || c->stop) {
        return;
    }
    if (type == NTB_CABLE_MSG_MEM_WRITE && !QSIMPLEQ_EMPTY(&c->sendq)) {
        /* Append to a queued write that ends where this one starts. */
        NtbCableMsg *t = QSIMPLEQ_LAST(&c->sendq, NtbCableMsg, next);
        NtbCableHdr *th = (NtbCableHdr *)t->data;
        uint64_t taddr = le64_to_cpu(th->addr);
        uint32_t tlen = le32_to_cpu(th->len);

        if (le32_to_cpu(th->type) == NTB_CABLE_MSG_MEM_WRITE &&
            le32_to_cpu(th->value) == len && value == len &&
            taddr + tlen == addr && t->size + len <= t->cap &&
            taddr / NTB_CABLE_COALESCE_PAGE ==
            (addr + len - 1) / NTB_CABLE_COALESCE_PAGE) {
            memcpy(t->data + t->size, payload, len);
            t->size += len;
            th->len = cpu_to_le32(tlen + len);
            c->sendq_bytes += len;
            return;
        }
    }
    if (type == NTB_CABLE_MSG_MEM_WRITE) {
        cap = sizeof(h) + MAX(len, NTB_CABLE_COALESCE_MAX);
    }
    m = g_malloc(sizeof(*m) + cap);
    m->cap = cap;
    h.type = cpu_to_le32(type);
    h.len = cpu_to_le32(len);
    h.addr = cpu_to_le64(addr);
    h.tag = cpu_to_le32(tag);
    h.value = cpu_to_le32(value);
    memcpy(m->data, &h, sizeof(h));
    if (len) {
        memcpy(m->data + sizeof(h), payload, len);
    }
    m->size = sizeof(h) + len;
    QSIMPLEQ_INSERT_TAIL(&c->sendq, m, next);
    c->sendq_bytes += m->size;
    c->tx_msgs++;
    qemu_cond_signal(&c->send_cond);
}

/*
 * Let go of the BQL, if held, and of the main AioContext, however deeply
 * held (a block layer completion in a coroutine holds it): the inbound
 * thread, or a vCPU, takes it under the BQL when a device starts I/O, so
 * we could not have the BQL back while holding it
 * (aio-context-release-all.patch). Returns the depth to take back.
 */
static unsigned ntb_cable_unlock_bql(bool bql)
{
    unsigned depth = 0;

    if (bql) {
        depth = aio_context_release_all(qemu_get_aio_context());
        qemu_mutex_unlock_iothread();
    }
    return depth;
}

static void ntb_cable_relock_bql(bool bql, unsigned depth)
{
    if (bql) {
        qemu_mutex_lock_iothread();
        aio_context_reacquire(qemu_get_aio_context(), depth);
    }
}

static bool ntb_cable_up(NtbCable *c)
{
    bool up;

    qemu_mutex_lock(&c->lock);
    up = ntb_cable_connected_locked(c);
    qemu_mutex_unlock(&c->lock);
    return up;
}

/*
 * Has @p, the other port of this QEMU, performed every message @c sent it?
 * Sets *@stalled when @p's inbound thread waits for a busy device, which
 * may be the one whose access is sending. With the BQL, without which
 * nothing but the greeting queues a message.
 */
static bool ntb_cable_drained(NtbCable *c, NtbCable *p, bool *stalled)
{
    uint64_t tx;
    bool idle;

    qemu_mutex_lock(&c->lock);
    idle = QSIMPLEQ_EMPTY(&c->sendq) && !c->sending;
    tx = c->tx_msgs;
    qemu_mutex_unlock(&c->lock);
    qemu_mutex_lock(&p->lock);
    idle = idle && p->rx_msgs == tx && p->inq_performed == p->inq_received;
    *stalled = p->inq_stalled;
    qemu_mutex_unlock(&p->lock);
    return idle;
}

/*
 * Perform a posted message @h for the peer port in this QEMU, in the
 * sending thread, with the BQL held: on hardware a posted write reaches
 * the other port of the same NTB within about a microsecond, long before
 * the CPU that issued it does anything else that could look (a script's
 * next command, or even its next instructions); through the cable's
 * threads it could arrive milliseconds later on a loaded host, after the
 * sender read the other port's doorbell or scratchpad and found it
 * unchanged. Only with everything sent earlier performed first (waiting
 * for it with the BQL released), so the order stays the cable's; and only
 * what the peer's immediate() allows, so the sender never waits on a
 * device, on the cable or on itself. False: queue it as posted.
 */
static bool ntb_cable_perform_here(NtbCable *c, NtbCableHdr *h,
                                   const void *payload)
{
    int64_t deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                       NTB_CABLE_READ_TIMEOUT_MS;
    NtbCable *p;
    bool stalled;

    if (!c->local_peer || h->type == NTB_CABLE_MSG_READ_REPLY ||
        ntb_cable_rx || ntb_cable_inbound || ntb_cable_performing ||
        !qemu_mutex_iothread_locked()) {
        return false;
    }
    for (;;) {
        unsigned depth;

        /* Again after each wait: the peer may have gone meanwhile. */
        p = c->local_peer;
        if (!p || !p->ops->immediate || !ntb_cable_up(c) ||
            !ntb_cable_up(p) || !p->ops->immediate(p->opaque, h)) {
            return false;
        }
        if (ntb_cable_drained(c, p, &stalled)) {
            break;
        }
        if (stalled) {
            return false;
        }
        if (qemu_clock_get_ms(QEMU_CLOCK_REALTIME) >= deadline) {
            error_report("%s: port %u: the peer did not perform what was "
                         "sent before a write within %d ms; queueing it",
                         c->name, c->port, NTB_CABLE_READ_TIMEOUT_MS);
            return false;
        }
        depth = ntb_cable_unlock_bql(true);
        g_usleep(50);
        ntb_cable_relock_bql(true, depth);
    }
    /* As a message received: it empties the receiver's read-ahead */
    ntb_cable_ra_drop(p);
    ntb_cable_performing = true;
    p->ops->handle(p->opaque, h, (uint8_t *)payload);
    ntb_cable_performing = false;
    return true;
}

/*
 * Send a posted message: performed at once for a peer in this QEMU where
 * ntb_cable_perform_here() can, else queued. Never blocks on the cable;
 * only when the queue is very full (a peer that stopped reading), and
 * never in a receive thread, it waits for room with the BQL released.
 */
void ntb_cable_send(NtbCable *c, uint32_t type, uint64_t addr, uint32_t tag,
                    uint32_t value, const void *payload, uint32_t len)
{
    NtbCableHdr h = {
        .type = type, .len = len, .addr = addr, .tag = tag, .value = value,
    };

    if (ntb_cable_perform_here(c, &h, payload)) {
        return;
    }
    qemu_mutex_lock(&c->lock);
    if (c->sendq_bytes > NTB_CABLE_SENDQ_MAX && !ntb_cable_rx) {
        bool bql = qemu_mutex_iothread_locked();

        qemu_mutex_unlock(&c->lock);
        if (bql) {
            qemu_mutex_unlock_iothread();
        }
        qemu_mutex_lock(&c->lock);
        while (c->sendq_bytes > NTB_CABLE_SENDQ_MAX && c->fd >= 0 &&
               !c->stop) {
            qemu_cond_timedwait(&c->idle_cond, &c->lock, 100);
        }
        ntb_cable_enqueue_locked(c, type, addr, tag, value, payload, len);
        qemu_mutex_unlock(&c->lock);
        if (bql) {
            qemu_mutex_lock_iothread();
        }
        return;
    }
    ntb_cable_enqueue_locked(c, type, addr, tag, value, payload, len);
    qemu_mutex_unlock(&c->lock);
}

void ntb_cable_reply(NtbCable *c, const NtbCableHdr *h, bool ok,
                     const void *data, uint32_t len)
{
    ntb_cable_send(c, NTB_CABLE_MSG_READ_REPLY, h->addr, h->tag, ok ? 0 : 1,
                   data, len);
}

/*
 * Would the reply @w pass writes that the peer sent before it? PCIe lets
 * no read completion pass a posted write going the same way: a driver that
 * reads a device's status register after the device wrote its data must
 * find the data in memory. The receive thread hands replies over at once
 * and leaves other messages to the inbound thread, so a reply is held
 * here until the inbound thread has performed everything received before
 * it. Not in the inbound thread itself (a device it drives may read the
 * peer: it would wait for itself), nor while that thread waits for a
 * device that is busy in its own access (the re-entrancy guard): that
 * device may be the reader. Under lock.
 */
static bool ntb_cable_reply_early_locked(NtbCable *c, NtbCableWaiter *w)
{
    return w->ok && w->after > c->inq_performed && !c->inq_stalled &&
           !c->stop && !ntb_cable_inbound;
}

/*
 * Read from the peer: send a tagged request and wait for its READ_REPLY
 * with the BQL released. With @wp->ahead set, the answer may be longer;
 * @wp->got says how long. Returns false (the caller answers all-ones) on a
 * dead link, an error reply or a timeout.
 */
static bool ntb_cable_read_ahead(NtbCable *c, uint32_t type, uint64_t addr,
                                 uint32_t value, NtbCableWaiter *wp)
{
    NtbCableWaiter w = *wp;
    unsigned aio_depth;
    bool bql;
    int64_t deadline;

    if (ntb_cable_rx) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: read of the peer from an inbound "
                      "access refused (addr 0x%" PRIx64 ")\n", c->name, addr);
        return false;
    }

    qemu_mutex_lock(&c->lock);
    if (!c->ops->may_read_locked(c->opaque) || c->fd < 0 || c->stop) {
        qemu_mutex_unlock(&c->lock);
        return false;
    }
    w.tag = c->next_tag++;
    QTAILQ_INSERT_TAIL(&c->waiters, &w, next);
    ntb_cable_enqueue_locked(c, type, addr, w.tag, value, NULL, 0);
    qemu_mutex_unlock(&c->lock);

    bql = qemu_mutex_iothread_locked();
    aio_depth = ntb_cable_unlock_bql(bql);
    qemu_mutex_lock(&c->lock);
    deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
               NTB_CABLE_READ_TIMEOUT_MS;
    while (!w.done || ntb_cable_reply_early_locked(c, &w)) {
        int64_t left = deadline - qemu_clock_get_ms(QEMU_CLOCK_REALTIME);

        if (left <= 0) {
            break;
        }
        qemu_cond_timedwait(&c->reply_cond, &c->lock, left);
    }
    if (!w.done) {
        QTAILQ_REMOVE(&c->waiters, &w, next);
        error_report("%s: port %u: no answer from the peer within %d ms "
                     "(read at 0x%" PRIx64 "); returning all-ones",
                     c->name, c->port, NTB_CABLE_READ_TIMEOUT_MS, addr);
    } else if (ntb_cable_reply_early_locked(c, &w)) {
        error_report("%s: port %u: writes received before the answer to "
                     "the read at 0x%" PRIx64 " not performed within %d ms",
                     c->name, c->port, addr, NTB_CABLE_READ_TIMEOUT_MS);
    }
    qemu_mutex_unlock(&c->lock);
    ntb_cable_relock_bql(bql, aio_depth);
    wp->got = w.got;
    return w.done && w.ok;
}

bool ntb_cable_read(NtbCable *c, uint32_t type, uint64_t addr,
                    uint32_t value, void *buf, uint32_t len)
{
    NtbCableWaiter w = { .len = len, .buf = buf };

    return ntb_cable_read_ahead(c, type, addr, value, &w);
}

/* Empty the read-ahead. Under lock. */
static void ntb_cable_ra_drop_locked(NtbCable *c)
{
    c->ra.len = 0;
    c->ra.epoch++;
}

void ntb_cable_ra_drop(NtbCable *c)
{
    qemu_mutex_lock(&c->lock);
    ntb_cable_ra_drop_locked(c);
    qemu_mutex_unlock(&c->lock);
}

/* Serve a read from the read-ahead if it continues the last one. */
static bool ntb_cable_ra_hit(NtbCable *c, uint64_t target, void *buf,
                             unsigned size)
{
    NtbCableReadAhead *ra = &c->ra;
    bool hit;

    qemu_mutex_lock(&c->lock);
    hit = ra->len && target == ra->next &&
          target + size <= ra->addr + ra->len;
    if (hit) {
        memcpy(buf, ra->data + (target - ra->addr), size);
        ra->next = target + size;
    }
    qemu_mutex_unlock(&c->lock);
    return hit;
}

/*
 * Read @size bytes at @target, asking for the rest of the page with them,
 * and for the pages after it that the read goes on into (@extent).
 * What comes beyond @size is kept only if nothing emptied the read-ahead
 * while the request was out: the peer may have read its memory before
 * changing it and telling us so.
 */
static bool ntb_cable_ra_read(NtbCable *c, uint64_t target, void *buf,
                              unsigned size, uint64_t extent)
{
    uint64_t reach = target % NTB_CABLE_READ_AHEAD_PAGE + MAX(extent, size);
    uint32_t pages = MIN(DIV_ROUND_UP(reach, NTB_CABLE_READ_AHEAD_PAGE),
                         NTB_CABLE_READ_AHEAD_PAGES_MASK + 1);
    g_autofree uint8_t *ahead = NULL;
    NtbCableWaiter w = { .len = size, .buf = buf };
    uint32_t epoch;

    qemu_mutex_lock(&c->lock);
    epoch = c->ra.epoch;
    qemu_mutex_unlock(&c->lock);
    w.ahead_len = pages * NTB_CABLE_READ_AHEAD_PAGE;
    w.ahead = ahead = g_malloc(w.ahead_len);
    if (!ntb_cable_read_ahead(c, NTB_CABLE_MSG_MEM_READ, target,
                              size | NTB_CABLE_READ_AHEAD |
                              (pages - 1) << NTB_CABLE_READ_AHEAD_PAGES_SHIFT,
                              &w)) {
        return false;
    }
    qemu_mutex_lock(&c->lock);
    if (w.got > size && w.got <= w.ahead_len && c->ra.epoch == epoch) {
        memcpy(c->ra.data, ahead, w.got);
        c->ra.addr = target;
        c->ra.len = w.got;
        c->ra.next = target + size;
    }
    qemu_mutex_unlock(&c->lock);
    return true;
}

uint32_t ntb_cable_read_ahead_len(AddressSpace *as, dma_addr_t da,
                                  uint32_t size, uint32_t value,
                                  uint64_t room, MemTxAttrs attrs)
{
    uint32_t pages = ((value >> NTB_CABLE_READ_AHEAD_PAGES_SHIFT) &
                      NTB_CABLE_READ_AHEAD_PAGES_MASK) + 1;
    uint64_t want = pages * NTB_CABLE_READ_AHEAD_PAGE -
                    da % NTB_CABLE_READ_AHEAD_PAGE;
    uint64_t len = 0;

    if (!(value & NTB_CABLE_READ_AHEAD)) {
        return size;
    }
    want = MIN(want, room);
    while (len < want) {
        uint64_t chunk = MIN(NTB_CABLE_READ_AHEAD_PAGE -
                             (da + len) % NTB_CABLE_READ_AHEAD_PAGE,
                             want - len);

        if (!ntb_cable_dma_is_ram(as, da + len, chunk, false, attrs)) {
            break;
        }
        len += chunk;
    }
    return MAX(len, size);
}

MemTxResult ntb_cable_mem_read(NtbCable *c, uint64_t target, unsigned size,
                               uint64_t extent, uint64_t *data)
{
    uint64_t val = 0;

    if (!ntb_cable_ra_hit(c, target, &val, size) &&
        !ntb_cable_ra_read(c, target, &val, size, extent)) {
        *data = ~0ULL;
        return MEMTX_ERROR;
    }
    *data = le64_to_cpu(val);
    return MEMTX_OK;
}

/* Complete every outstanding read with an error. Under lock. */
static void ntb_cable_fail_waiters_locked(NtbCable *c)
{
    NtbCableWaiter *w, *tmp;

    QTAILQ_FOREACH_SAFE(w, &c->waiters, next, tmp) {
        QTAILQ_REMOVE(&c->waiters, w, next);
        w->ok = false;
        w->done = true;
    }
    qemu_cond_broadcast(&c->reply_cond);
}

/* The inbound thread waits for a busy device, or no longer: see above. */
static void ntb_cable_set_stalled(bool stalled)
{
    NtbCable *c = ntb_cable_inbound;

    if (!c) {
        return;
    }
    qemu_mutex_lock(&c->lock);
    c->inq_stalled = stalled;
    qemu_cond_broadcast(&c->reply_cond);
    qemu_mutex_unlock(&c->lock);
}

/*
 * The device that decodes @da, if QEMU's re-entrancy guard protects it,
 * else NULL. A device model that reads the peer across the cable (its DMA
 * into our window) waits for the answer with the BQL released and its
 * guard engaged; a peer's access to its registers that arrives meanwhile
 * must wait its turn, not be tried and refused: the guard would log it as
 * a fault. Under the BQL, which the guard's owner holds to change it.
 */
static DeviceState *ntb_cable_target_dev(AddressSpace *as, dma_addr_t da,
                                         uint32_t len, bool is_write,
                                         MemTxAttrs attrs)
{
    hwaddr xlat, plen = len;
    MemoryRegion *mr;

    RCU_READ_LOCK_GUARD();
    mr = address_space_translate(as, da, &xlat, &plen, is_write, attrs);
    return mr->disable_reentrancy_guard ? NULL : mr->dev;
}

static bool ntb_cable_dev_busy(const DeviceState *dev)
{
    return dev && dev->mem_reentrancy_guard.engaged_in_io;
}

/* Has @dev posted writes yet to take? */
static bool ntb_cable_deferred_for(NtbCable *c, const DeviceState *dev)
{
    NtbCableDeferred *d;

    QSIMPLEQ_FOREACH(d, &c->deferred, next) {
        if (d->dev == dev) {
            return true;
        }
    }
    return false;
}

/*
 * Perform the deferred writes whose devices are free now, each device's
 * in the order received; drop, with one line each, those a device left
 * waiting NTB_CABLE_DEFERRED_MS. In the inbound thread, with the BQL.
 */
static void ntb_cable_drain_deferred(NtbCable *c)
{
    const DeviceState *held[8];
    unsigned nheld = 0, i;
    NtbCableDeferred *d, *next;
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);

    QSIMPLEQ_FOREACH_SAFE(d, &c->deferred, next, next) {
        /* Where it leads now: a device may have gone since. */
        DeviceState *dev = ntb_cable_target_dev(d->as, d->da, d->len, true,
                                                d->attrs);
        bool wait = nheld == ARRAY_SIZE(held);

        for (i = 0; i < nheld && !wait; i++) {
            wait = held[i] == d->dev;
        }
        if (!wait && now - d->since >= NTB_CABLE_DEFERRED_MS) {
            error_report("ntb-cable: write of %u bytes at 0x%" PRIx64
                         " dropped: its device stayed busy for %d ms",
                         d->len, (uint64_t)d->da, NTB_CABLE_DEFERRED_MS);
        } else if (wait || ntb_cable_dev_busy(dev) ||
                   dma_memory_rw(d->as, d->da, d->data, d->len,
                                 DMA_DIRECTION_FROM_DEVICE, d->attrs) ==
                   MEMTX_ACCESS_ERROR) {
            /* Still busy (or refused whole, spanning two): keep order. */
            if (!wait) {
                held[nheld++] = d->dev;
            }
            continue;
        }
        QSIMPLEQ_REMOVE(&c->deferred, d, NtbCableDeferred, next);
        c->deferred_bytes -= d->len;
        g_free(d);
    }
}

/* Accept a posted write for busy @dev. In the inbound thread. */
static void ntb_cable_defer(NtbCable *c, AddressSpace *as, dma_addr_t da,
                            const void *buf, uint32_t len, MemTxAttrs attrs,
                            const DeviceState *dev)
{
    NtbCableDeferred *d = g_malloc(sizeof(*d) + len);

    d->as = as;
    d->da = da;
    d->attrs = attrs;
    d->dev = dev;
    d->since = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    d->len = len;
    memcpy(d->data, buf, len);
    QSIMPLEQ_INSERT_TAIL(&c->deferred, d, next);
    c->deferred_bytes += len;
}

static void ntb_cable_deferred_free(NtbCable *c)
{
    NtbCableDeferred *d;

    while ((d = QSIMPLEQ_FIRST(&c->deferred))) {
        QSIMPLEQ_REMOVE_HEAD(&c->deferred, next);
        g_free(d);
    }
    c->deferred_bytes = 0;
}

MemTxResult ntb_cable_dma(AddressSpace *as, dma_addr_t da, void *buf,
                          uint32_t len, DMADirection dir, MemTxAttrs attrs)
{
    int64_t deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                       NTB_CABLE_READ_TIMEOUT_MS;
    bool is_write = dir == DMA_DIRECTION_FROM_DEVICE;
    NtbCable *c = ntb_cable_inbound;
    DeviceState *dev = ntb_cable_target_dev(as, da, len, is_write, attrs);
    bool stalled = false;
    MemTxResult r = MEMTX_ACCESS_ERROR;

    if (c) {
        ntb_cable_drain_deferred(c);
        if (is_write && c->deferred_bytes + len <= NTB_CABLE_DEFERRED_MAX &&
            (ntb_cable_dev_busy(dev) || ntb_cable_deferred_for(c, dev))) {
            ntb_cable_defer(c, as, da, buf, len, attrs, dev);
            return MEMTX_OK;
        }
    }
    for (;;) {
        /*
         * An access that spans two devices may still meet a busy one
         * after the first: the guard refuses it whole, and it is tried
         * again. What the device has yet to take of earlier writes goes
         * first.
         */
        if (c) {
            ntb_cable_drain_deferred(c);
        }
        if (!ntb_cable_dev_busy(dev) &&
            !(c && ntb_cable_deferred_for(c, dev))) {
            r = dma_memory_rw(as, da, buf, len, dir, attrs);
            if (r != MEMTX_ACCESS_ERROR) {
                break;
            }
        }
        if (qemu_clock_get_ms(QEMU_CLOCK_REALTIME) >= deadline) {
            break;
        }
        if (!stalled) {
            stalled = true;
            ntb_cable_set_stalled(true);
        }
        qemu_mutex_unlock_iothread();
        g_usleep(100);
        qemu_mutex_lock_iothread();
    }
    if (stalled) {
        ntb_cable_set_stalled(false);
    }
    if (r == MEMTX_ACCESS_ERROR) {
        error_report("ntb-cable: %s of %u bytes at 0x%" PRIx64 " dropped: "
                     "its device stayed busy for %d ms",
                     is_write ? "write" : "read", len, (uint64_t)da,
                     NTB_CABLE_READ_TIMEOUT_MS);
    }
    return r;
}

bool ntb_cable_dma_is_ram(AddressSpace *as, dma_addr_t da, uint32_t len,
                          bool is_write, MemTxAttrs attrs)
{
    hwaddr xlat, plen = len;
    MemoryRegion *mr;

    RCU_READ_LOCK_GUARD();
    mr = address_space_translate(as, da, &xlat, &plen, is_write, attrs);
    return memory_region_is_ram(mr) && !memory_region_is_ram_device(mr) &&
           plen >= len;
}

/*
 * A coalesced MEM_WRITE (@unit, the size of each store it merged, below
 * @len) is one write into RAM, but into a device register file it is split
 * back into the original stores: two adjacent 16-bit registers must not
 * become one 32-bit write the device decodes as a write to the first alone.
 */
void ntb_cable_dma_write(AddressSpace *as, dma_addr_t da,
                         const uint8_t *payload, uint32_t len, uint32_t unit,
                         MemTxAttrs attrs)
{
    uint32_t off;

    if (!unit || unit >= len || ntb_cable_dma_is_ram(as, da, len, true,
                                                     attrs)) {
        ntb_cable_dma(as, da, (uint8_t *)payload, len,
                      DMA_DIRECTION_FROM_DEVICE, attrs);
        return;
    }
    for (off = 0; off < len; off += unit) {
        ntb_cable_dma(as, da + off, (uint8_t *)payload + off,
                      MIN(unit, len - off), DMA_DIRECTION_FROM_DEVICE, attrs);
    }
}

static bool ntb_cable_read_full(int fd, void *buf, size_t len)
{
    uint8_t *p = buf;

    while (len) {
        ssize_t r = recv(fd, p, len, 0);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return false;
        }
        p += r;
        len -= r;
    }
    return true;
}

static void ntb_cable_got_reply(NtbCable *c, NtbCableHdr *h, uint8_t *payload)
{
    NtbCableWaiter *w;

    qemu_mutex_lock(&c->lock);
    c->rx_msgs++;
    QTAILQ_FOREACH(w, &c->waiters, next) {
        if (w->tag == h->tag) {
            QTAILQ_REMOVE(&c->waiters, w, next);
            memcpy(w->buf, payload, MIN(w->len, h->len));
            if (h->len < w->len) {
                memset(w->buf + h->len, 0xff, w->len - h->len);
            }
            if (w->ahead && h->len <= w->ahead_len) {
                memcpy(w->ahead, payload, h->len);
            }
            w->got = h->len;
            w->after = c->inq_received;
            w->ok = h->value == 0;
            w->done = true;
            qemu_cond_broadcast(&c->reply_cond);
            break;
        }
    }
    qemu_mutex_unlock(&c->lock);
}

/* Under lock. */
static void ntb_cable_inbound_drop_locked(NtbCable *c)
{
    while (!QSIMPLEQ_EMPTY(&c->inq)) {
        NtbCableInbound *in = QSIMPLEQ_FIRST(&c->inq);

        QSIMPLEQ_REMOVE_HEAD(&c->inq, next);
        g_free(in);
        c->inq_performed++;
    }
    qemu_cond_broadcast(&c->reply_cond);
}

/*
 * Receive threads only read the cable: a read reply wakes its reader at
 * once, everything else is performed, in order, by the inbound thread.
 * Performing an access may make a device read through an aperture (QEMU's
 * NVMe reads its shadow doorbells in host memory when a doorbell is
 * written), which waits for a reply that only the receive thread can
 * deliver.
 */
static void ntb_cable_inbound_queue(NtbCable *c, NtbCableHdr *h,
                                    uint8_t *payload)
{
    NtbCableInbound *in = g_malloc(sizeof(*in) + h->len);

    in->h = *h;
    memcpy(in->payload, payload, h->len);
    qemu_mutex_lock(&c->lock);
    in->gen = c->conn_gen;
    QSIMPLEQ_INSERT_TAIL(&c->inq, in, next);
    c->inq_received++;
    c->rx_msgs++;
    qemu_cond_signal(&c->inq_cond);
    qemu_mutex_unlock(&c->lock);
}

static void *ntb_cable_inbound_thread(void *opaque)
{
    NtbCable *c = opaque;

    ntb_cable_inbound = c;
    qemu_mutex_lock(&c->lock);
    for (;;) {
        NtbCableInbound *in;
        bool current;

        while (!c->stop && QSIMPLEQ_EMPTY(&c->inq)) {
            if (QSIMPLEQ_EMPTY(&c->deferred)) {
                qemu_cond_wait(&c->inq_cond, &c->lock);
                continue;
            }
            /* A busy device has writes to take: look again soon. */
            qemu_cond_timedwait(&c->inq_cond, &c->lock, 1);
            qemu_mutex_unlock(&c->lock);
            qemu_mutex_lock_iothread();
            ntb_cable_drain_deferred(c);
            qemu_mutex_unlock_iothread();
            qemu_mutex_lock(&c->lock);
        }
        if (c->stop) {
            break;
        }
        in = QSIMPLEQ_FIRST(&c->inq);
        QSIMPLEQ_REMOVE_HEAD(&c->inq, next);
        qemu_mutex_unlock(&c->lock);

        /* The link state changes under the BQL: check the connection there. */
        qemu_mutex_lock_iothread();
        qemu_mutex_lock(&c->lock);
        current = in->gen == c->conn_gen && !c->stop;
        qemu_mutex_unlock(&c->lock);
        if (current) {
            c->ops->handle(c->opaque, &in->h, in->payload);
        }
        qemu_mutex_unlock_iothread();
        g_free(in);

        qemu_mutex_lock(&c->lock);
        c->inq_performed++;
        qemu_cond_broadcast(&c->reply_cond);
    }
    ntb_cable_inbound_drop_locked(c);
    qemu_mutex_unlock(&c->lock);
    return NULL;
}

/* Run one connection until it ends. */
static void ntb_cable_run_connection(NtbCable *c, int fd)
{
    g_autofree uint8_t *payload = g_malloc(NTB_CABLE_MAX_PAYLOAD);
    NtbCableHdr h;

    qemu_mutex_lock(&c->lock);
    if (c->stop) {
        qemu_mutex_unlock(&c->lock);
        close(fd);
        return;
    }
    c->fd = fd;
    c->ops->connected_locked(c->opaque);
    qemu_mutex_unlock(&c->lock);

    for (;;) {
        if (!ntb_cable_read_full(fd, &h, sizeof(h))) {
            break;
        }
        h.type = le32_to_cpu(h.type);
        h.len = le32_to_cpu(h.len);
        h.addr = le64_to_cpu(h.addr);
        h.tag = le32_to_cpu(h.tag);
        h.value = le32_to_cpu(h.value);
        if (h.len > NTB_CABLE_MAX_PAYLOAD) {
            error_report("%s: port %u: message of %u bytes, dropping the "
                         "connection", c->name, c->port, h.len);
            break;
        }
        if (h.len && !ntb_cable_read_full(fd, payload, h.len)) {
            break;
        }
        if (h.type == NTB_CABLE_MSG_READ_REPLY) {
            ntb_cable_got_reply(c, &h, payload);
            continue;
        }
        ntb_cable_ra_drop(c);
        ntb_cable_inbound_queue(c, &h, payload);
    }

    /*
     * The cable is gone: forget what it brought and was not performed,
     * stop the sender, drop the queue, fail reads.
     */
    qemu_mutex_lock(&c->lock);
    c->conn_gen++;
    ntb_cable_ra_drop_locked(c);
    ntb_cable_inbound_drop_locked(c);
    c->fd = -1;
    shutdown(fd, SHUT_RDWR);
    while (c->sending) {
        qemu_cond_wait(&c->idle_cond, &c->lock);
    }
    close(fd);
    while (!QSIMPLEQ_EMPTY(&c->sendq)) {
        NtbCableMsg *m = QSIMPLEQ_FIRST(&c->sendq);

        QSIMPLEQ_REMOVE_HEAD(&c->sendq, next);
        g_free(m);
    }
    c->sendq_bytes = 0;
    qemu_cond_broadcast(&c->idle_cond);
    ntb_cable_fail_waiters_locked(c);
    qemu_mutex_unlock(&c->lock);

    qemu_mutex_lock_iothread();
    c->ops->disconnected(c->opaque);
    qemu_mutex_unlock_iothread();
}

static bool ntb_cable_stopping(NtbCable *c)
{
    bool stop;

    qemu_mutex_lock(&c->lock);
    stop = c->stop;
    qemu_mutex_unlock(&c->lock);
    return stop;
}

static int ntb_cable_connect(NtbCable *c)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    fd = qemu_socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        return -1;
    }
    pstrcpy(sa.sun_path, sizeof(sa.sun_path), c->socket_path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int ntb_cable_accept(NtbCable *c)
{
    struct pollfd pfd = { .fd = c->listen_fd, .events = POLLIN };

    if (poll(&pfd, 1, NTB_CABLE_CONNECT_RETRY_MS) <= 0) {
        return -1;
    }
    return qemu_accept(c->listen_fd, NULL, NULL);
}

static void *ntb_cable_conn_thread(void *opaque)
{
    NtbCable *c = opaque;
    bool warned = false;

    ntb_cable_rx = true;
    if (c->loop_fd >= 0) {
        ntb_cable_run_connection(c, c->loop_fd);
        c->loop_fd = -1;
        return NULL;
    }
    while (!ntb_cable_stopping(c)) {
        int fd = c->listen ? ntb_cable_accept(c) : ntb_cable_connect(c);

        if (fd < 0) {
            if (!c->listen) {
                if (!warned) {
                    info_report("%s: port %u: waiting for %s",
                                c->name, c->port, c->socket_path);
                    warned = true;
                }
                g_usleep(NTB_CABLE_CONNECT_RETRY_MS * 1000);
            }
            continue;
        }
        warned = false;
        ntb_cable_run_connection(c, fd);
    }
    return NULL;
}

static void *ntb_cable_send_thread(void *opaque)
{
    NtbCable *c = opaque;

    qemu_mutex_lock(&c->lock);
    for (;;) {
        NtbCableMsg *m;
        int fd;

        while (!c->stop && (QSIMPLEQ_EMPTY(&c->sendq) || c->fd < 0)) {
            qemu_cond_wait(&c->send_cond, &c->lock);
        }
        if (c->stop) {
            break;
        }
        m = QSIMPLEQ_FIRST(&c->sendq);
        QSIMPLEQ_REMOVE_HEAD(&c->sendq, next);
        c->sendq_bytes -= m->size;
        fd = c->fd;
        c->sending = true;
        qemu_mutex_unlock(&c->lock);

        if (qemu_send_full(fd, m->data, m->size) < (ssize_t)m->size) {
            /*
             * A dead peer (SIGPIPE is ignored): the receive side sees EOF
             * and ends the connection, failing what waits on it.
             */
        }
        g_free(m);

        qemu_mutex_lock(&c->lock);
        c->sending = false;
        qemu_cond_broadcast(&c->idle_cond);
    }
    qemu_mutex_unlock(&c->lock);
    return NULL;
}

void ntb_cable_start(NtbCable *c)
{
    char name[32];

    if (c->loop_fd < 0 && !c->socket_path) {
        return;
    }
    snprintf(name, sizeof(name), "ntb%u-send", c->port);
    qemu_thread_create(&c->send_thread, name, ntb_cable_send_thread, c,
                       QEMU_THREAD_JOINABLE);
    snprintf(name, sizeof(name), "ntb%u-in", c->port);
    qemu_thread_create(&c->inbound_thread, name, ntb_cable_inbound_thread, c,
                       QEMU_THREAD_JOINABLE);
    snprintf(name, sizeof(name), "ntb%u-recv", c->port);
    qemu_thread_create(&c->conn_thread, name, ntb_cable_conn_thread, c,
                       QEMU_THREAD_JOINABLE);
    c->threads_started = true;
}

static bool ntb_cable_listen(NtbCable *c, Error **errp)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (strlen(c->socket_path) >= sizeof(sa.sun_path)) {
        error_setg(errp, "socket path too long: %s", c->socket_path);
        return false;
    }
    if (!c->listen) {
        return true;
    }
    fd = qemu_socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        error_setg_errno(errp, errno, "socket");
        return false;
    }
    pstrcpy(sa.sun_path, sizeof(sa.sun_path), c->socket_path);
    unlink(c->socket_path);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0) {
        error_setg_errno(errp, errno, "cannot listen on %s", c->socket_path);
        close(fd);
        return false;
    }
    c->listen_fd = fd;
    return true;
}

void ntb_cable_instance_init(NtbCable *c)
{
    c->listen_fd = -1;
    c->loop_fd = -1;
    c->fd = -1;
}

bool ntb_cable_init(NtbCable *c, const char *name, uint32_t port,
                    const NtbCableOps *ops, void *opaque, Error **errp)
{
    if (c->listen && !c->socket_path) {
        error_setg(errp, "listen needs socket");
        return false;
    }
    if (c->socket_path && !ntb_cable_listen(c, errp)) {
        return false;
    }
    c->name = name;
    c->port = port;
    c->ops = ops;
    c->opaque = opaque;
    qemu_mutex_init(&c->lock);
    qemu_cond_init(&c->send_cond);
    qemu_cond_init(&c->idle_cond);
    qemu_cond_init(&c->reply_cond);
    qemu_cond_init(&c->inq_cond);
    QSIMPLEQ_INIT(&c->inq);
    QSIMPLEQ_INIT(&c->deferred);
    QSIMPLEQ_INIT(&c->sendq);
    QTAILQ_INIT(&c->waiters);
    c->fd = -1;
    c->loop_fd = -1;
    c->initialized = true;
    return true;
}

bool ntb_cable_check_peer(NtbCable *c, DeviceState *dev, DeviceState *peer_dev,
                          NtbCable *peer, bool peer_names_peer, Error **errp)
{
    if (!peer_dev) {
        return true;
    }
    if (c->socket_path) {
        error_setg(errp, "peer and socket exclude each other");
        return false;
    }
    if (peer_dev == dev) {
        error_setg(errp, "a port cannot be its own peer");
        return false;
    }
    if (peer_names_peer || peer->socket_path || peer->cabled) {
        error_setg(errp, "peer %s is already cabled", peer_dev->id ?: "(port)");
        return false;
    }
    if (!peer_dev->realized) {
        error_setg(errp, "peer must come first on the command line");
        return false;
    }
    return true;
}

bool ntb_cable_pair(NtbCable *a, NtbCable *b, Error **errp)
{
    int sv[2];

    if (qemu_socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
        error_setg_errno(errp, errno, "socketpair");
        return false;
    }
    a->cabled = true;
    a->loop_fd = sv[0];
    b->loop_fd = sv[1];
    a->local_peer = b;
    b->local_peer = a;
    return true;
}

void ntb_cable_cleanup(NtbCable *c)
{
    bool bql = qemu_mutex_iothread_locked();

    if (c->local_peer) {
        c->local_peer->local_peer = NULL;
        c->local_peer = NULL;
    }
    if (!c->initialized) {
        if (c->listen_fd >= 0) {
            close(c->listen_fd);
            c->listen_fd = -1;
        }
        return;
    }
    qemu_mutex_lock(&c->lock);
    c->stop = true;
    if (c->fd >= 0) {
        shutdown(c->fd, SHUT_RDWR);
    }
    qemu_cond_broadcast(&c->send_cond);
    qemu_cond_broadcast(&c->idle_cond);
    qemu_cond_broadcast(&c->inq_cond);
    ntb_cable_fail_waiters_locked(c);
    qemu_mutex_unlock(&c->lock);

    if (c->threads_started) {
        if (bql) {
            qemu_mutex_unlock_iothread();
        }
        qemu_thread_join(&c->conn_thread);
        qemu_thread_join(&c->send_thread);
        qemu_thread_join(&c->inbound_thread);
        if (bql) {
            qemu_mutex_lock_iothread();
        }
        c->threads_started = false;
    }
    if (c->listen_fd >= 0) {
        close(c->listen_fd);
        unlink(c->socket_path);
        c->listen_fd = -1;
    }
    while (!QSIMPLEQ_EMPTY(&c->sendq)) {
        NtbCableMsg *m = QSIMPLEQ_FIRST(&c->sendq);

        QSIMPLEQ_REMOVE_HEAD(&c->sendq, next);
        g_free(m);
    }
    ntb_cable_inbound_drop_locked(c);
    ntb_cable_deferred_free(c);
    qemu_mutex_destroy(&c->lock);
    qemu_cond_destroy(&c->send_cond);
    qemu_cond_destroy(&c->idle_cond);
    qemu_cond_destroy(&c->reply_cond);
    qemu_cond_destroy(&c->inq_cond);
    c->initialized = false;
}
