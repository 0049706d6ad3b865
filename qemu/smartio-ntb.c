/*
 * smartio-ntb: one port of an emulated non-transparent bridge
 *
 * Two ports are cabled back to back, in one QEMU (peer=ID, over a
 * socketpair) or across two (socket=PATH, listen=on|off, over a UNIX stream
 * socket). The behaviour is specified in smartio's qemu/smartio-ntb.md, the
 * registers in include/smartio/emu_ntb_regs.h.
 *
 * Threads and locks. Each port has a connection thread, which connects or
 * accepts and then receives messages, and a sender thread, which writes
 * queued messages to the socket. Nothing blocks on the cable while holding
 * the BQL: posted writes are queued; reads of the peer queue a request and
 * wait for the reply with the BQL released. The receive side takes the BQL
 * to perform inbound accesses (pci_dma_*, through this port's IOMMU), to
 * update registers and to raise MSI-X vectors; replies to our own reads are
 * handed over without it. Lock order: BQL, then SmartioNTBState.lock.
 *
 * Copyright (c) 2026 smartio authors
 *
 * SPDX-License-Identifier: GPL-2.0
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/cutils.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "qemu/sockets.h"
#include "qemu/queue.h"
#include "qemu/bswap.h"
#include "qemu/bitmap.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qom/object.h"
#include "smartio/emu_ntb_regs.h"

#include <sys/un.h>
#include <poll.h>

#define TYPE_SMARTIO_NTB "smartio-ntb"
OBJECT_DECLARE_SIMPLE_TYPE(SmartioNTBState, SMARTIO_NTB)

/* Message types on the cable */
enum {
    SNTB_MSG_HELLO = 1,
    SNTB_MSG_LINK,
    SNTB_MSG_DB,
    SNTB_MSG_SPAD_WRITE,
    SNTB_MSG_SPAD_READ,
    SNTB_MSG_MEM_WRITE,
    SNTB_MSG_MEM_READ,
    SNTB_MSG_READ_REPLY,
};

#define SNTB_MSG_MAX_PAYLOAD    (64 * KiB)

/* MEM_* addr: window kind in 63..62, direct window index in 61..56 */
#define SNTB_ADDR_KIND_SHIFT    62
#define SNTB_ADDR_KIND_DIRECT   0ULL
#define SNTB_ADDR_KIND_BUS      1ULL
#define SNTB_ADDR_WIN_SHIFT     56
#define SNTB_ADDR_WIN_MASK      0x3fULL
#define SNTB_ADDR_OFF_MASK      ((1ULL << SNTB_ADDR_WIN_SHIFT) - 1)
#define SNTB_ADDR_BUS_MASK      ((1ULL << SNTB_ADDR_KIND_SHIFT) - 1)

#define SNTB_READ_TIMEOUT_MS    5000
#define SNTB_CONNECT_RETRY_MS   200
#define SNTB_SENDQ_MAX          (16 * MiB)
/*
 * Queued stores of one size to adjacent addresses merge up to this, within
 * a page; the receiver splits them again unless the target is RAM.
 */
#define SNTB_COALESCE_MAX       256
#define SNTB_COALESCE_PAGE      (4 * KiB)

/*
 * MEM_READ value: the length, and a flag allowing the peer to answer with
 * more, to the end of the (4 KiB) page, when the target is RAM.
 */
#define SNTB_READ_LEN_MASK      0x00ffffffu
#define SNTB_READ_AHEAD         (1u << 31)
#define SNTB_READ_AHEAD_PAGE    (4 * KiB)

/* The requester of a CPU's access: the root complex, 00:00.0 */
#define SNTB_RID_ROOT           0x0000
#define SNTB_RID_COUNT          (1 << 16)       /* distinct requester IDs */
#define SNTB_RID_MASK           (SNTB_RID_VALID | 0xffff)
#define SNTB_RID_ENTRIES_PXH830 32

/* LINK_STATUS while up: a nominal gen 3 x4 */
#define SNTB_LINK_STATUS_UP_VAL (SNTB_LINK_STATUS_UP | (3 << 8) | (4 << 16))

typedef struct QEMU_PACKED SntbMsgHdr {
    uint32_t type;
    uint32_t len;
    uint64_t addr;
    uint32_t tag;
    uint32_t value;
} SntbMsgHdr;

QEMU_BUILD_BUG_ON(sizeof(SntbMsgHdr) != 24);

typedef struct SntbMsg {
    QSIMPLEQ_ENTRY(SntbMsg) next;
    size_t size;                /* header + payload */
    size_t cap;                 /* room in data[] */
    uint8_t data[];             /* wire format */
} SntbMsg;

/*
 * A received message other than a read reply, waiting to be performed by
 * the inbound thread, in the order received.
 */
typedef struct SntbInbound {
    QSIMPLEQ_ENTRY(SntbInbound) next;
    uint32_t gen;               /* connection it came on */
    SntbMsgHdr h;
    uint8_t payload[];
} SntbInbound;

typedef struct SntbWaiter {
    QTAILQ_ENTRY(SntbWaiter) next;
    uint32_t tag;
    uint32_t len;
    uint8_t *buf;
    uint8_t *ahead;             /* room for a longer answer, or NULL */
    uint32_t got;               /* bytes answered */
    bool done;
    bool ok;
} SntbWaiter;

/*
 * What a read of the peer's RAM brought beyond what was asked: QEMU splits
 * a device's DMA through an aperture into 8-byte accesses, and one round
 * trip each would make a 4 KiB transfer take 512. Only the continuation of
 * the read that filled it hits, and anything from the peer (which is how a
 * peer that changed its memory tells us, a doorbell or register write
 * after the data) or any write of ours empties it: then it holds no more
 * than one large read by the peer would have returned.
 */
typedef struct SntbReadAhead {
    uint64_t addr;              /* wire address of data[0] */
    uint32_t len;
    uint64_t next;              /* where the continuation starts */
    uint32_t epoch;             /* bumped by anything that empties it */
    uint8_t data[SNTB_READ_AHEAD_PAGE];
} SntbReadAhead;

/*
 * One of the two apertures (BAR 2, direct windows; BAR 4, the LUT): both
 * forward an access to the peer, they differ only in how an offset in the
 * BAR becomes a target on the wire.
 */
typedef struct SntbAperture {
    SmartioNTBState *s;
    const char *bar;
    bool (*target)(SmartioNTBState *s, hwaddr addr, uint64_t *target);
} SntbAperture;

struct SmartioNTBState {
    PCIDevice parent_obj;

    /* Properties */
    uint32_t port;
    SmartioNTBState *peer;
    char *socket_path;
    bool listen;
    uint32_t lut_entries;
    uint64_t lut_entry_size;
    uint32_t direct_windows;
    uint64_t direct_size;
    uint32_t rid_entries;

    MemoryRegion regs;
    MemoryRegion direct;
    MemoryRegion lut;
    SntbAperture direct_aperture;
    SntbAperture lut_aperture;

    /* Registers, under the BQL (the mirrors marked L under lock, too) */
    uint32_t link_ctrl;
    uint32_t link_event;
    uint32_t db_status;
    uint32_t db_mask;
    uint32_t spad[SNTB_SPAD_COUNT];
    uint64_t xlat_addr[SNTB_DIRECT_MAX];
    uint64_t xlat_size[SNTB_DIRECT_MAX];
    uint64_t *lut_addr;         /* L */
    uint8_t *lut_port;          /* L */
    uint32_t rid[SNTB_RID_MAX]; /* L */
    uint32_t rid_dropped;       /* L */
    unsigned long *rid_logged;  /* L: requesters whose drop was logged */

    /* Cable state, under the BQL */
    bool hello;                 /* peer said hello on this connection */
    bool peer_enabled;
    uint8_t peer_port;          /* L */
    bool link_up;               /* L */

    /* Connection and queues, under lock */
    QemuMutex lock;
    QemuCond send_cond;         /* queue not empty, or stop */
    QemuCond idle_cond;         /* sender idle, queue drained */
    QemuCond reply_cond;        /* a waiter completed */
    int fd;                     /* connected socket, or -1 */
    bool sending;
    bool stop;
    QSIMPLEQ_HEAD(, SntbMsg) sendq;
    size_t sendq_bytes;
    QTAILQ_HEAD(, SntbWaiter) waiters;
    uint32_t next_tag;
    SntbReadAhead ra;

    QSIMPLEQ_HEAD(, SntbInbound) inq; /* received, to be performed */
    QemuCond inq_cond;          /* inq not empty, or stop */
    uint32_t conn_gen;          /* bumped when a connection ends */

    int listen_fd;
    int loop_fd;                /* our end of a loopback socketpair */
    bool cabled;                /* a loopback peer has taken this port */
    bool threads_started;
    QemuThread conn_thread;
    QemuThread send_thread;
    QemuThread inbound_thread;
};

/*
 * Set in receive threads: they must never access an NTB aperture, since
 * they deliver the replies that a read through one waits for.
 */
static __thread bool sntb_in_rx;

static void sntb_enqueue_locked(SmartioNTBState *s, uint32_t type,
                                uint64_t addr, uint32_t tag, uint32_t value,
                                const void *payload, uint32_t len)
{
    SntbMsg *m;
    SntbMsgHdr h;
    size_t cap = sizeof(h) + len;

    if (s->fd < 0 || s->stop) {
        return;
    }
    if (type == SNTB_MSG_MEM_WRITE && !QSIMPLEQ_EMPTY(&s->sendq)) {
        /* Append to a queued write that ends where this one starts. */
        SntbMsg *t = QSIMPLEQ_LAST(&s->sendq, SntbMsg, next);
        SntbMsgHdr *th = (SntbMsgHdr *)t->data;
        uint64_t taddr = le64_to_cpu(th->addr);
        uint32_t tlen = le32_to_cpu(th->len);

        if (le32_to_cpu(th->type) == SNTB_MSG_MEM_WRITE &&
            le32_to_cpu(th->value) == len && value == len &&
            taddr + tlen == addr && t->size + len <= t->cap &&
            taddr / SNTB_COALESCE_PAGE ==
            (addr + len - 1) / SNTB_COALESCE_PAGE) {
            memcpy(t->data + t->size, payload, len);
            t->size += len;
            th->len = cpu_to_le32(tlen + len);
            s->sendq_bytes += len;
            return;
        }
    }
    if (type == SNTB_MSG_MEM_WRITE) {
        cap = sizeof(h) + MAX(len, SNTB_COALESCE_MAX);
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
    QSIMPLEQ_INSERT_TAIL(&s->sendq, m, next);
    s->sendq_bytes += m->size;
    qemu_cond_signal(&s->send_cond);
}

/*
 * Queue a posted message. Never blocks on the cable; only when the queue
 * is very full (a peer that stopped reading), and never in a receive
 * thread, it waits for room with the BQL released.
 */
static void sntb_send(SmartioNTBState *s, uint32_t type, uint64_t addr,
                      uint32_t tag, uint32_t value, const void *payload,
                      uint32_t len)
{
    qemu_mutex_lock(&s->lock);
    if (s->sendq_bytes > SNTB_SENDQ_MAX && !sntb_in_rx) {
        bool bql = qemu_mutex_iothread_locked();

        qemu_mutex_unlock(&s->lock);
        if (bql) {
            qemu_mutex_unlock_iothread();
        }
        qemu_mutex_lock(&s->lock);
        while (s->sendq_bytes > SNTB_SENDQ_MAX && s->fd >= 0 && !s->stop) {
            qemu_cond_timedwait(&s->idle_cond, &s->lock, 100);
        }
        sntb_enqueue_locked(s, type, addr, tag, value, payload, len);
        qemu_mutex_unlock(&s->lock);
        if (bql) {
            qemu_mutex_lock_iothread();
        }
        return;
    }
    sntb_enqueue_locked(s, type, addr, tag, value, payload, len);
    qemu_mutex_unlock(&s->lock);
}

/*
 * Read from the peer: send a tagged request (MEM_READ: value is the length)
 * and wait for its READ_REPLY with the BQL released. With @w->ahead set,
 * the answer may be longer; @w->got says how long. Returns false (the
 * caller answers all-ones) on a dead link, an error reply or a timeout.
 */
static bool sntb_remote_read_ahead(SmartioNTBState *s, uint32_t type,
                                   uint64_t addr, uint32_t value,
                                   SntbWaiter *wp)
{
    SntbWaiter w = *wp;
    bool bql;
    int64_t deadline;

    if (sntb_in_rx) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: read of the peer from an inbound "
                      "access refused (addr 0x%" PRIx64 ")\n",
                      TYPE_SMARTIO_NTB, addr);
        return false;
    }

    qemu_mutex_lock(&s->lock);
    if (!s->link_up || s->fd < 0 || s->stop) {
        qemu_mutex_unlock(&s->lock);
        return false;
    }
    w.tag = s->next_tag++;
    QTAILQ_INSERT_TAIL(&s->waiters, &w, next);
    sntb_enqueue_locked(s, type, addr, w.tag, value, NULL, 0);
    qemu_mutex_unlock(&s->lock);

    bql = qemu_mutex_iothread_locked();
    if (bql) {
        qemu_mutex_unlock_iothread();
    }
    qemu_mutex_lock(&s->lock);
    deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + SNTB_READ_TIMEOUT_MS;
    while (!w.done) {
        int64_t left = deadline - qemu_clock_get_ms(QEMU_CLOCK_REALTIME);

        if (left <= 0) {
            break;
        }
        qemu_cond_timedwait(&s->reply_cond, &s->lock, left);
    }
    if (!w.done) {
        QTAILQ_REMOVE(&s->waiters, &w, next);
        error_report("%s: port %u: no answer from the peer within %d ms "
                     "(read at 0x%" PRIx64 "); returning all-ones",
                     TYPE_SMARTIO_NTB, s->port, SNTB_READ_TIMEOUT_MS, addr);
    }
    qemu_mutex_unlock(&s->lock);
    if (bql) {
        qemu_mutex_lock_iothread();
    }
    wp->got = w.got;
    return w.done && w.ok;
}

static bool sntb_remote_read(SmartioNTBState *s, uint32_t type, uint64_t addr,
                             uint32_t value, void *buf, uint32_t len)
{
    SntbWaiter w = { .len = len, .buf = buf };

    return sntb_remote_read_ahead(s, type, addr, value, &w);
}

/* Empty the read-ahead. Under lock. */
static void sntb_ra_drop_locked(SmartioNTBState *s)
{
    s->ra.len = 0;
    s->ra.epoch++;
}

/* Serve a read from the read-ahead if it continues the last one. */
static bool sntb_ra_hit(SmartioNTBState *s, uint64_t target, void *buf,
                        unsigned size)
{
    SntbReadAhead *ra = &s->ra;
    bool hit;

    qemu_mutex_lock(&s->lock);
    hit = ra->len && target == ra->next &&
          target + size <= ra->addr + ra->len;
    if (hit) {
        memcpy(buf, ra->data + (target - ra->addr), size);
        ra->next = target + size;
    }
    qemu_mutex_unlock(&s->lock);
    return hit;
}

/*
 * Read @size bytes at @target, asking for the rest of the page with them.
 * What comes beyond @size is kept only if nothing emptied the read-ahead
 * while the request was out: the peer may have read its memory before
 * changing it and telling us so.
 */
static bool sntb_ra_read(SmartioNTBState *s, uint64_t target, void *buf,
                         unsigned size)
{
    g_autofree uint8_t *ahead = g_malloc(SNTB_READ_AHEAD_PAGE);
    SntbWaiter w = { .len = size, .buf = buf, .ahead = ahead };
    uint32_t epoch;

    qemu_mutex_lock(&s->lock);
    epoch = s->ra.epoch;
    qemu_mutex_unlock(&s->lock);
    if (!sntb_remote_read_ahead(s, SNTB_MSG_MEM_READ, target,
                                size | SNTB_READ_AHEAD, &w)) {
        return false;
    }
    qemu_mutex_lock(&s->lock);
    if (w.got > size && w.got <= SNTB_READ_AHEAD_PAGE &&
        s->ra.epoch == epoch) {
        memcpy(s->ra.data, ahead, w.got);
        s->ra.addr = target;
        s->ra.len = w.got;
        s->ra.next = target + size;
    }
    qemu_mutex_unlock(&s->lock);
    return true;
}

/* Complete every outstanding read with an error. Under lock. */
static void sntb_fail_waiters_locked(SmartioNTBState *s)
{
    SntbWaiter *w, *tmp;

    QTAILQ_FOREACH_SAFE(w, &s->waiters, next, tmp) {
        QTAILQ_REMOVE(&s->waiters, w, next);
        w->ok = false;
        w->done = true;
    }
    qemu_cond_broadcast(&s->reply_cond);
}

static void sntb_notify(SmartioNTBState *s, unsigned vector)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (msix_enabled(pdev)) {
        msix_notify(pdev, vector);
    }
}

/* Recompute the link. With the BQL. */
static void sntb_update_link(SmartioNTBState *s)
{
    bool up;

    qemu_mutex_lock(&s->lock);
    up = s->fd >= 0 && s->hello && s->peer_enabled &&
         (s->link_ctrl & SNTB_LINK_CTRL_ENABLE);
    if (up == s->link_up) {
        qemu_mutex_unlock(&s->lock);
        return;
    }
    s->link_up = up;
    qemu_mutex_unlock(&s->lock);
    s->link_event |= SNTB_LINK_EVENT_CHANGED;
    sntb_notify(s, SNTB_VEC_LINK);
}

/* Ring own doorbells. With the BQL. */
static void sntb_ring(SmartioNTBState *s, uint32_t bits)
{
    uint32_t fire;
    int n;

    s->db_status |= bits;
    fire = bits & ~s->db_mask;
    for (n = 0; n < SNTB_DB_COUNT; n++) {
        if (fire & (1u << n)) {
            sntb_notify(s, SNTB_VEC_DB(n));
        }
    }
}

/*
 * Requester-ID table. A request entering a window from our host is
 * forwarded only if its requester is a valid entry (IDT's NT mapping table,
 * the PXH830's 32 entries); the CPUs' requests, which QEMU leaves without a
 * requester, are the root complex's. Without a table (requester-entries=0,
 * Intel and AMD NTBs) everything is forwarded.
 */

/* Change entry @n; a changed table logs each requester's drop anew. */
static void sntb_rid_set(SmartioNTBState *s, unsigned n, uint32_t val)
{
    qemu_mutex_lock(&s->lock);
    val &= SNTB_RID_MASK;
    if (s->rid[n] != val) {
        s->rid[n] = val;
        bitmap_zero(s->rid_logged, SNTB_RID_COUNT);
    }
    qemu_mutex_unlock(&s->lock);
}

static uint16_t sntb_requester(MemTxAttrs attrs)
{
    return attrs.unspecified ? SNTB_RID_ROOT : attrs.requester_id;
}

/*
 * May this request enter the window at @bar + @addr? If not, count it and
 * log it, once per requester until the table changes.
 */
static bool sntb_rid_allowed(SmartioNTBState *s, MemTxAttrs attrs,
                             const char *bar, hwaddr addr, bool is_write)
{
    uint16_t rid = sntb_requester(attrs);
    bool log;

    if (!s->rid_entries) {
        return true;
    }
    qemu_mutex_lock(&s->lock);
    for (unsigned n = 0; n < s->rid_entries; n++) {
        if (s->rid[n] == (SNTB_RID_VALID | rid)) {
            qemu_mutex_unlock(&s->lock);
            return true;
        }
    }
    s->rid_dropped++;
    log = !test_and_set_bit(rid, s->rid_logged);
    qemu_mutex_unlock(&s->lock);
    if (log) {
        warn_report("%s: port %u: dropped %s from requester %02x:%02x.%x at "
                    "%s + 0x%" HWADDR_PRIx ": not in the requester table "
                    "(%u entries)", TYPE_SMARTIO_NTB, s->port,
                    is_write ? "write" : "read", rid >> 8,
                    PCI_SLOT(rid & 0xff), PCI_FUNC(rid & 0xff), bar, addr,
                    s->rid_entries);
    }
    return false;
}

/* Registers (BAR 0): 32-bit accesses; 64-bit ones are split, low first. */

static uint64_t sntb_reg64_read(uint64_t reg, hwaddr addr)
{
    return (addr & 4) ? reg >> 32 : (uint32_t)reg;
}

static uint64_t sntb_reg64_write(uint64_t reg, hwaddr addr, uint32_t val)
{
    if (addr & 4) {
        return (reg & 0xffffffffULL) | ((uint64_t)val << 32);
    }
    return (reg & ~0xffffffffULL) | val;
}

static uint64_t sntb_regs_read(void *opaque, hwaddr addr, unsigned size)
{
    SmartioNTBState *s = opaque;
    uint32_t val = 0;
    unsigned n;

    switch (addr) {
    case SNTB_ID:
        return SNTB_MAGIC;
    case SNTB_VERSION:
        return SNTB_VERSION_1;
    case SNTB_PORT:
        val = s->port & 0xff;
        if (s->link_up) {
            val |= s->peer_port << 8;
        }
        return val;
    case SNTB_CAPS:
        return SNTB_DB_COUNT | (SNTB_SPAD_COUNT << 8) |
               (s->direct_windows << 16);
    case SNTB_LUT_ENTRIES:
        return s->lut_entries;
    case SNTB_LUT_SHIFT:
        return ctz64(s->lut_entry_size);
    case SNTB_DIRECT_SHIFT:
        return ctz64(s->direct_size);
    case SNTB_RID_ENTRIES:
        return s->rid_entries;
    case SNTB_RID_DROPPED:
        qemu_mutex_lock(&s->lock);
        val = s->rid_dropped;
        qemu_mutex_unlock(&s->lock);
        return val;
    case SNTB_LINK_CTRL:
        return s->link_ctrl;
    case SNTB_LINK_STATUS:
        return s->link_up ? SNTB_LINK_STATUS_UP_VAL : 0;
    case SNTB_LINK_EVENT:
        return s->link_event;
    case SNTB_DB_STATUS:
        return s->db_status;
    case SNTB_DB_MASK:
        return s->db_mask;
    case SNTB_DB_SET:
    case SNTB_PEER_DB_SET:
        return 0;
    }

    if (addr >= SNTB_SPAD(0) && addr < SNTB_SPAD(SNTB_SPAD_COUNT)) {
        return s->spad[(addr - SNTB_SPAD(0)) / 4];
    }
    if (addr >= SNTB_PEER_SPAD(0) &&
        addr < SNTB_PEER_SPAD(SNTB_SPAD_COUNT)) {
        n = (addr - SNTB_PEER_SPAD(0)) / 4;
        if (!sntb_remote_read(s, SNTB_MSG_SPAD_READ, n, 0, &val, 4)) {
            return 0xffffffff;
        }
        return le32_to_cpu(val);
    }
    if (addr >= SNTB_XLAT_ADDR(0) && addr < SNTB_XLAT_ADDR(SNTB_DIRECT_MAX)) {
        n = (addr - SNTB_XLAT_ADDR(0)) / 0x10;
        if (n >= s->direct_windows) {
            return 0;
        }
        if ((addr & 0xf) < 8) {
            return sntb_reg64_read(s->xlat_addr[n], addr);
        }
        return sntb_reg64_read(s->xlat_size[n], addr);
    }
    if (addr >= SNTB_LUT_ADDR(0) && addr < SNTB_LUT_ADDR(SNTB_LUT_MAX)) {
        n = (addr - SNTB_LUT_ADDR(0)) / 0x10;
        if (n >= s->lut_entries) {
            return 0;
        }
        if ((addr & 0xf) < 8) {
            return sntb_reg64_read(s->lut_addr[n], addr);
        }
        return (addr & 0xf) == 8 ? s->lut_port[n] : 0;
    }
    if (addr >= SNTB_RID(0) && addr < SNTB_RID(SNTB_RID_MAX)) {
        n = (addr - SNTB_RID(0)) / 4;
        if (n >= s->rid_entries) {
            return 0;
        }
        qemu_mutex_lock(&s->lock);
        val = s->rid[n];
        qemu_mutex_unlock(&s->lock);
        return val;
    }
    return 0;
}

static void sntb_regs_write(void *opaque, hwaddr addr, uint64_t val64,
                            unsigned size)
{
    SmartioNTBState *s = opaque;
    uint32_t val = val64;
    unsigned n;

    switch (addr) {
    case SNTB_LINK_CTRL:
        val &= SNTB_LINK_CTRL_ENABLE;
        if (val != s->link_ctrl) {
            qemu_mutex_lock(&s->lock);
            s->link_ctrl = val;
            sntb_enqueue_locked(s, SNTB_MSG_LINK, 0, 0, val, NULL, 0);
            qemu_mutex_unlock(&s->lock);
            sntb_update_link(s);
        }
        return;
    case SNTB_LINK_EVENT:
        s->link_event &= ~val;
        return;
    case SNTB_DB_STATUS:
        s->db_status &= ~val;
        return;
    case SNTB_DB_MASK: {
        uint32_t unmasked = s->db_mask & ~val;

        s->db_mask = val;
        /* Unmasking a doorbell that is set fires it. */
        for (n = 0; n < SNTB_DB_COUNT; n++) {
            if (unmasked & s->db_status & (1u << n)) {
                sntb_notify(s, SNTB_VEC_DB(n));
            }
        }
        return;
    }
    case SNTB_DB_SET:
        sntb_ring(s, val);
        return;
    case SNTB_PEER_DB_SET:
        if (s->link_up && val) {
            sntb_send(s, SNTB_MSG_DB, 0, 0, val, NULL, 0);
        }
        return;
    }

    if (addr >= SNTB_SPAD(0) && addr < SNTB_SPAD(SNTB_SPAD_COUNT)) {
        s->spad[(addr - SNTB_SPAD(0)) / 4] = val;
        return;
    }
    if (addr >= SNTB_PEER_SPAD(0) &&
        addr < SNTB_PEER_SPAD(SNTB_SPAD_COUNT)) {
        if (s->link_up) {
            n = (addr - SNTB_PEER_SPAD(0)) / 4;
            sntb_send(s, SNTB_MSG_SPAD_WRITE, n, 0, val, NULL, 0);
        }
        return;
    }
    if (addr >= SNTB_XLAT_ADDR(0) && addr < SNTB_XLAT_ADDR(SNTB_DIRECT_MAX)) {
        n = (addr - SNTB_XLAT_ADDR(0)) / 0x10;
        if (n >= s->direct_windows) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: XLAT of direct window %u, "
                          "only %u\n", TYPE_SMARTIO_NTB, n, s->direct_windows);
            return;
        }
        if ((addr & 0xf) < 8) {
            uint64_t a = sntb_reg64_write(s->xlat_addr[n], addr, val);

            if (a & (s->direct_size - 1)) {
                qemu_log_mask(LOG_GUEST_ERROR, "%s: XLAT_ADDR(%u) 0x%" PRIx64
                              " not aligned to 0x%" PRIx64 "\n",
                              TYPE_SMARTIO_NTB, n, a, s->direct_size);
            }
            s->xlat_addr[n] = a & ~(s->direct_size - 1);
        } else {
            uint64_t sz = sntb_reg64_write(s->xlat_size[n], addr, val);

            s->xlat_size[n] = MIN(sz, s->direct_size);
            if ((addr & 4) == 0 && sz > s->direct_size &&
                (sz >> 32) == 0) {
                qemu_log_mask(LOG_GUEST_ERROR, "%s: XLAT_SIZE(%u) 0x%" PRIx64
                              " beyond the window, clamped\n",
                              TYPE_SMARTIO_NTB, n, sz);
            }
        }
        return;
    }
    if (addr >= SNTB_LUT_ADDR(0) && addr < SNTB_LUT_ADDR(SNTB_LUT_MAX)) {
        n = (addr - SNTB_LUT_ADDR(0)) / 0x10;
        if (n >= s->lut_entries) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: LUT entry %u, only %u\n",
                          TYPE_SMARTIO_NTB, n, s->lut_entries);
            return;
        }
        qemu_mutex_lock(&s->lock);
        if ((addr & 0xf) < 8) {
            uint64_t a = sntb_reg64_write(s->lut_addr[n], addr, val);

            s->lut_addr[n] = a & (~(s->lut_entry_size - 1) |
                                  SNTB_LUT_ADDR_VALID);
        } else if ((addr & 0xf) == 8) {
            s->lut_port[n] = val & 0xff;
        }
        qemu_mutex_unlock(&s->lock);
        return;
    }
    if (addr >= SNTB_RID(0) && addr < SNTB_RID(SNTB_RID_MAX)) {
        n = (addr - SNTB_RID(0)) / 4;
        if (n >= s->rid_entries) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: requester-ID entry %u, only "
                          "%u\n", TYPE_SMARTIO_NTB, n, s->rid_entries);
            return;
        }
        sntb_rid_set(s, n, val);
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "%s: write of 0x%x to read-only or "
                  "unknown register 0x%" HWADDR_PRIx "\n",
                  TYPE_SMARTIO_NTB, val, addr);
}

static const MemoryRegionOps sntb_regs_ops = {
    .read = sntb_regs_read,
    .write = sntb_regs_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* Apertures (BAR 2 and BAR 4): 1, 2, 4 and 8-byte accesses, forwarded. */

static bool sntb_refuse_in_rx(SmartioNTBState *s, const char *bar, hwaddr addr)
{
    if (sntb_in_rx) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: port %u: inbound access into an "
                      "NTB aperture (%s + 0x%" HWADDR_PRIx ") refused\n",
                      TYPE_SMARTIO_NTB, s->port, bar, addr);
        return true;
    }
    return false;
}

static bool sntb_direct_target(SmartioNTBState *s, hwaddr addr,
                               uint64_t *target)
{
    uint64_t n = addr / s->direct_size;

    if (n >= s->direct_windows) {
        return false;
    }
    *target = (SNTB_ADDR_KIND_DIRECT << SNTB_ADDR_KIND_SHIFT) |
              (n << SNTB_ADDR_WIN_SHIFT) | (addr & (s->direct_size - 1));
    return true;
}

static bool sntb_lut_target(SmartioNTBState *s, hwaddr addr, uint64_t *target)
{
    uint64_t n = addr / s->lut_entry_size;
    uint64_t a;
    bool ok;

    if (n >= s->lut_entries) {
        return false;
    }
    qemu_mutex_lock(&s->lock);
    a = s->lut_addr[n];
    ok = (a & SNTB_LUT_ADDR_VALID) && s->link_up &&
         s->lut_port[n] == s->peer_port;
    qemu_mutex_unlock(&s->lock);
    if (!ok) {
        return false;
    }
    a = (a & ~(s->lut_entry_size - 1)) + (addr & (s->lut_entry_size - 1));
    *target = (SNTB_ADDR_KIND_BUS << SNTB_ADDR_KIND_SHIFT) |
              (a & SNTB_ADDR_BUS_MASK);
    return true;
}

static uint64_t sntb_window_read(SmartioNTBState *s, uint64_t target,
                                 unsigned size)
{
    uint64_t val = 0;

    if (!sntb_ra_hit(s, target, &val, size) &&
        !sntb_ra_read(s, target, &val, size)) {
        return ~0ULL;
    }
    return le64_to_cpu(val);
}

static void sntb_window_write(SmartioNTBState *s, uint64_t target,
                              uint64_t val, unsigned size)
{
    uint64_t le = cpu_to_le64(val);

    qemu_mutex_lock(&s->lock);
    sntb_ra_drop_locked(s);
    qemu_mutex_unlock(&s->lock);
    if (s->link_up) {
        /* value: the store's size, so the peer can split a merged run */
        sntb_send(s, SNTB_MSG_MEM_WRITE, target, 0, size, &le, size);
    }
}

/*
 * A dropped or refused request completes normally, as a PCIe read that
 * an NTB drops is completed with all-ones: MEMTX_OK, not a bus error.
 */
static MemTxResult sntb_aperture_read(void *opaque, hwaddr addr,
                                      uint64_t *data, unsigned size,
                                      MemTxAttrs attrs)
{
    SntbAperture *ap = opaque;
    uint64_t target;

    if (sntb_refuse_in_rx(ap->s, ap->bar, addr) ||
        !sntb_rid_allowed(ap->s, attrs, ap->bar, addr, false) ||
        !ap->target(ap->s, addr, &target)) {
        *data = ~0ULL;
        return MEMTX_OK;
    }
    *data = sntb_window_read(ap->s, target, size);
    return MEMTX_OK;
}

static MemTxResult sntb_aperture_write(void *opaque, hwaddr addr,
                                       uint64_t val, unsigned size,
                                       MemTxAttrs attrs)
{
    SntbAperture *ap = opaque;
    uint64_t target;

    if (sntb_refuse_in_rx(ap->s, ap->bar, addr) ||
        !sntb_rid_allowed(ap->s, attrs, ap->bar, addr, true) ||
        !ap->target(ap->s, addr, &target)) {
        return MEMTX_OK;
    }
    sntb_window_write(ap->s, target, val, size);
    return MEMTX_OK;
}

static const MemoryRegionOps sntb_aperture_ops = {
    .read_with_attrs = sntb_aperture_read,
    .write_with_attrs = sntb_aperture_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* Receive side */

/*
 * Where an inbound MEM_* lands on this side; false if nowhere. *len is
 * shortened when the access runs past XLAT_SIZE (a merged write): the part
 * inside the window is performed, the rest dropped.
 */
static bool sntb_inbound_addr(SmartioNTBState *s, uint64_t addr, uint32_t *len,
                              dma_addr_t *out)
{
    uint64_t kind = addr >> SNTB_ADDR_KIND_SHIFT;

    if (kind == SNTB_ADDR_KIND_DIRECT) {
        uint64_t n = (addr >> SNTB_ADDR_WIN_SHIFT) & SNTB_ADDR_WIN_MASK;
        uint64_t off = addr & SNTB_ADDR_OFF_MASK;

        if (n >= s->direct_windows || off >= s->xlat_size[n]) {
            return false;
        }
        *len = MIN(*len, s->xlat_size[n] - off);
        *out = s->xlat_addr[n] + off;
        return true;
    }
    if (kind == SNTB_ADDR_KIND_BUS) {
        *out = addr & SNTB_ADDR_BUS_MASK;
        return true;
    }
    return false;
}

static bool sntb_read_full(int fd, void *buf, size_t len)
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

/* Handle one message, with the BQL (except READ_REPLY). */
/*
 * Performs an inbound access, in the inbound thread with the BQL held. A
 * device busy in an access of its own refuses it (QEMU's re-entrancy
 * guard, engaged by a bottom half that waits on the cable with the BQL
 * released, as a DMA through an aperture does): wait for it, as a PCIe
 * completer stalls a request, bounded like a read.
 */
static MemTxResult sntb_inbound_dma(SmartioNTBState *s, dma_addr_t da,
                                    void *buf, uint32_t len,
                                    DMADirection dir)
{
    int64_t deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                       SNTB_READ_TIMEOUT_MS;
    MemTxResult r;

    for (;;) {
        r = pci_dma_rw(PCI_DEVICE(s), da, buf, len, dir,
                       MEMTXATTRS_UNSPECIFIED);
        if (r != MEMTX_ACCESS_ERROR ||
            qemu_clock_get_ms(QEMU_CLOCK_REALTIME) >= deadline) {
            return r;
        }
        qemu_mutex_unlock_iothread();
        g_usleep(100);
        qemu_mutex_lock_iothread();
    }
}

/*
 * How much to answer a read-ahead request for @size bytes at @addr: to the
 * end of the page if that is RAM behind one translation (the IOMMU's, when
 * there is one), else @size: a register read has effects, and must happen
 * once and as asked.
 */
/* Is [@da, @da + @len) plain RAM, where access sizes do not matter? */
static bool sntb_dma_is_ram(SmartioNTBState *s, dma_addr_t da, uint32_t len,
                            bool is_write)
{
    hwaddr xlat, plen = len;
    MemoryRegion *mr;

    RCU_READ_LOCK_GUARD();
    mr = address_space_translate(pci_get_address_space(PCI_DEVICE(s)), da,
                                 &xlat, &plen, is_write,
                                 MEMTXATTRS_UNSPECIFIED);
    return memory_region_is_ram(mr) && !memory_region_is_ram_device(mr) &&
           plen >= len;
}

static uint32_t sntb_read_ahead_len(SmartioNTBState *s, uint64_t addr,
                                    uint32_t size)
{
    uint32_t want = SNTB_READ_AHEAD_PAGE - addr % SNTB_READ_AHEAD_PAGE;
    uint32_t len = want;
    dma_addr_t da;

    if (want <= size || !sntb_inbound_addr(s, addr, &len, &da) ||
        len != want || !sntb_dma_is_ram(s, da, want, false)) {
        return size;
    }
    return want;
}

/*
 * Perform a MEM_WRITE. A coalesced one (@unit, the size of each store it
 * merged, below @len) is one write into RAM, but into a device register
 * file it is split back into the original stores: two adjacent 16-bit
 * registers must not become one 32-bit write the device decodes as a
 * write to the first alone.
 */
static void sntb_inbound_write(SmartioNTBState *s, dma_addr_t da,
                               const uint8_t *payload, uint32_t len,
                               uint32_t unit)
{
    uint32_t off;

    if (!unit || unit >= len || sntb_dma_is_ram(s, da, len, true)) {
        sntb_inbound_dma(s, da, (uint8_t *)payload, len,
                         DMA_DIRECTION_FROM_DEVICE);
        return;
    }
    for (off = 0; off < len; off += unit) {
        sntb_inbound_dma(s, da + off, (uint8_t *)payload + off,
                         MIN(unit, len - off), DMA_DIRECTION_FROM_DEVICE);
    }
}

static void sntb_handle(SmartioNTBState *s, SntbMsgHdr *h, uint8_t *payload)
{
    dma_addr_t da;
    uint32_t v, len;

    switch (h->type) {
    case SNTB_MSG_HELLO:
        s->hello = true;
        qemu_mutex_lock(&s->lock);
        s->peer_port = h->value & 0xff;
        qemu_mutex_unlock(&s->lock);
        sntb_update_link(s);
        break;
    case SNTB_MSG_LINK:
        s->peer_enabled = h->value & SNTB_LINK_CTRL_ENABLE;
        sntb_update_link(s);
        break;
    case SNTB_MSG_DB:
        if (s->link_up) {
            sntb_ring(s, h->value);
        }
        break;
    case SNTB_MSG_SPAD_WRITE:
        if (s->link_up && h->addr < SNTB_SPAD_COUNT) {
            s->spad[h->addr] = h->value;
        }
        break;
    case SNTB_MSG_SPAD_READ:
        if (s->link_up && h->addr < SNTB_SPAD_COUNT) {
            v = cpu_to_le32(s->spad[h->addr]);
            sntb_send(s, SNTB_MSG_READ_REPLY, h->addr, h->tag, 0, &v, 4);
        } else {
            v = ~0u;
            sntb_send(s, SNTB_MSG_READ_REPLY, h->addr, h->tag, 1, &v, 4);
        }
        break;
    case SNTB_MSG_MEM_WRITE:
        if (!s->link_up) {
            break;
        }
        len = h->len;
        if (!sntb_inbound_addr(s, h->addr, &len, &da)) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: port %u: inbound write to "
                          "0x%" PRIx64 " (%u bytes) outside any open window, "
                          "dropped\n", TYPE_SMARTIO_NTB, s->port, h->addr,
                          h->len);
            break;
        }
        sntb_inbound_write(s, da, payload, len, h->value);
        break;
    case SNTB_MSG_MEM_READ: {
        uint32_t want = MIN(h->value & SNTB_READ_LEN_MASK,
                            SNTB_MSG_MAX_PAYLOAD);
        g_autofree uint8_t *buf = NULL;
        uint32_t err = 1;

        if (h->value & SNTB_READ_AHEAD) {
            want = sntb_read_ahead_len(s, h->addr, want);
        }
        buf = g_malloc(want);
        len = want;
        if (s->link_up && sntb_inbound_addr(s, h->addr, &len, &da) &&
            len == want) {
            err = sntb_inbound_dma(s, da, buf, len,
                                   DMA_DIRECTION_TO_DEVICE) != MEMTX_OK;
        } else if (s->link_up) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: port %u: inbound read of "
                          "0x%" PRIx64 " (%u bytes) outside any open window\n",
                          TYPE_SMARTIO_NTB, s->port, h->addr, want);
        }
        if (err) {
            memset(buf, 0xff, want);
        }
        sntb_send(s, SNTB_MSG_READ_REPLY, h->addr, h->tag, err, buf, want);
        break;
    }
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: port %u: unknown message type "
                      "%u\n", TYPE_SMARTIO_NTB, s->port, h->type);
    }
}

static void sntb_reply(SmartioNTBState *s, SntbMsgHdr *h, uint8_t *payload)
{
    SntbWaiter *w;

    qemu_mutex_lock(&s->lock);
    QTAILQ_FOREACH(w, &s->waiters, next) {
        if (w->tag == h->tag) {
            QTAILQ_REMOVE(&s->waiters, w, next);
            memcpy(w->buf, payload, MIN(w->len, h->len));
            if (h->len < w->len) {
                memset(w->buf + h->len, 0xff, w->len - h->len);
            }
            if (w->ahead && h->len <= SNTB_READ_AHEAD_PAGE) {
                memcpy(w->ahead, payload, h->len);
            }
            w->got = h->len;
            w->ok = h->value == 0;
            w->done = true;
            qemu_cond_broadcast(&s->reply_cond);
            break;
        }
    }
    qemu_mutex_unlock(&s->lock);
}

/* Under lock. */
static void sntb_inbound_drop_locked(SmartioNTBState *s)
{
    while (!QSIMPLEQ_EMPTY(&s->inq)) {
        SntbInbound *in = QSIMPLEQ_FIRST(&s->inq);

        QSIMPLEQ_REMOVE_HEAD(&s->inq, next);
        g_free(in);
    }
}

/*
 * Receive threads only read the cable: a read reply wakes its reader at
 * once, everything else is performed, in order, by the inbound thread.
 * Performing an access may make a device read through an aperture (QEMU's
 * NVMe reads its shadow doorbells in host memory when a doorbell is
 * written), which waits for a reply that only the receive thread can
 * deliver.
 */
static void sntb_inbound_queue(SmartioNTBState *s, SntbMsgHdr *h,
                               uint8_t *payload)
{
    SntbInbound *in = g_malloc(sizeof(*in) + h->len);

    in->h = *h;
    memcpy(in->payload, payload, h->len);
    qemu_mutex_lock(&s->lock);
    in->gen = s->conn_gen;
    QSIMPLEQ_INSERT_TAIL(&s->inq, in, next);
    qemu_cond_signal(&s->inq_cond);
    qemu_mutex_unlock(&s->lock);
}

static void *sntb_inbound_thread(void *opaque)
{
    SmartioNTBState *s = opaque;

    qemu_mutex_lock(&s->lock);
    for (;;) {
        SntbInbound *in;
        bool current;

        while (!s->stop && QSIMPLEQ_EMPTY(&s->inq)) {
            qemu_cond_wait(&s->inq_cond, &s->lock);
        }
        if (s->stop) {
            break;
        }
        in = QSIMPLEQ_FIRST(&s->inq);
        QSIMPLEQ_REMOVE_HEAD(&s->inq, next);
        qemu_mutex_unlock(&s->lock);

        /* The link state changes under the BQL: check the connection there. */
        qemu_mutex_lock_iothread();
        qemu_mutex_lock(&s->lock);
        current = in->gen == s->conn_gen && !s->stop;
        qemu_mutex_unlock(&s->lock);
        if (current) {
            sntb_handle(s, &in->h, in->payload);
        }
        qemu_mutex_unlock_iothread();
        g_free(in);

        qemu_mutex_lock(&s->lock);
    }
    sntb_inbound_drop_locked(s);
    qemu_mutex_unlock(&s->lock);
    return NULL;
}

/* Run one connection until it ends. */
static void sntb_run_connection(SmartioNTBState *s, int fd)
{
    g_autofree uint8_t *payload = g_malloc(SNTB_MSG_MAX_PAYLOAD);
    SntbMsgHdr h;

    qemu_mutex_lock(&s->lock);
    if (s->stop) {
        qemu_mutex_unlock(&s->lock);
        close(fd);
        return;
    }
    s->fd = fd;
    sntb_enqueue_locked(s, SNTB_MSG_HELLO, 0, 0, s->port, NULL, 0);
    sntb_enqueue_locked(s, SNTB_MSG_LINK, 0, 0,
                        s->link_ctrl & SNTB_LINK_CTRL_ENABLE, NULL, 0);
    qemu_mutex_unlock(&s->lock);

    for (;;) {
        if (!sntb_read_full(fd, &h, sizeof(h))) {
            break;
        }
        h.type = le32_to_cpu(h.type);
        h.len = le32_to_cpu(h.len);
        h.addr = le64_to_cpu(h.addr);
        h.tag = le32_to_cpu(h.tag);
        h.value = le32_to_cpu(h.value);
        if (h.len > SNTB_MSG_MAX_PAYLOAD) {
            error_report("%s: port %u: message of %u bytes, dropping the "
                         "connection", TYPE_SMARTIO_NTB, s->port, h.len);
            break;
        }
        if (h.len && !sntb_read_full(fd, payload, h.len)) {
            break;
        }
        if (h.type == SNTB_MSG_READ_REPLY) {
            sntb_reply(s, &h, payload);
            continue;
        }
        qemu_mutex_lock(&s->lock);
        sntb_ra_drop_locked(s);
        qemu_mutex_unlock(&s->lock);
        sntb_inbound_queue(s, &h, payload);
    }

    /*
     * The cable is gone: forget what it brought and was not performed,
     * stop the sender, drop the queue, fail reads.
     */
    qemu_mutex_lock(&s->lock);
    s->conn_gen++;
    sntb_ra_drop_locked(s);
    sntb_inbound_drop_locked(s);
    s->fd = -1;
    shutdown(fd, SHUT_RDWR);
    while (s->sending) {
        qemu_cond_wait(&s->idle_cond, &s->lock);
    }
    close(fd);
    while (!QSIMPLEQ_EMPTY(&s->sendq)) {
        SntbMsg *m = QSIMPLEQ_FIRST(&s->sendq);

        QSIMPLEQ_REMOVE_HEAD(&s->sendq, next);
        g_free(m);
    }
    s->sendq_bytes = 0;
    qemu_cond_broadcast(&s->idle_cond);
    sntb_fail_waiters_locked(s);
    qemu_mutex_unlock(&s->lock);

    qemu_mutex_lock_iothread();
    s->hello = false;
    s->peer_enabled = false;
    sntb_update_link(s);
    qemu_mutex_unlock_iothread();
}

static bool sntb_stopping(SmartioNTBState *s)
{
    bool stop;

    qemu_mutex_lock(&s->lock);
    stop = s->stop;
    qemu_mutex_unlock(&s->lock);
    return stop;
}

static int sntb_connect(SmartioNTBState *s)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    fd = qemu_socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        return -1;
    }
    pstrcpy(sa.sun_path, sizeof(sa.sun_path), s->socket_path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int sntb_accept(SmartioNTBState *s)
{
    struct pollfd pfd = { .fd = s->listen_fd, .events = POLLIN };
    int fd;

    if (poll(&pfd, 1, SNTB_CONNECT_RETRY_MS) <= 0) {
        return -1;
    }
    fd = qemu_accept(s->listen_fd, NULL, NULL);
    return fd;
}

static void *sntb_conn_thread(void *opaque)
{
    SmartioNTBState *s = opaque;
    bool warned = false;

    sntb_in_rx = true;
    if (s->loop_fd >= 0) {
        sntb_run_connection(s, s->loop_fd);
        s->loop_fd = -1;
        return NULL;
    }
    while (!sntb_stopping(s)) {
        int fd = s->listen ? sntb_accept(s) : sntb_connect(s);

        if (fd < 0) {
            if (!s->listen) {
                if (!warned) {
                    info_report("%s: port %u: waiting for %s",
                                TYPE_SMARTIO_NTB, s->port, s->socket_path);
                    warned = true;
                }
                g_usleep(SNTB_CONNECT_RETRY_MS * 1000);
            }
            continue;
        }
        warned = false;
        sntb_run_connection(s, fd);
    }
    return NULL;
}

static void *sntb_send_thread(void *opaque)
{
    SmartioNTBState *s = opaque;

    qemu_mutex_lock(&s->lock);
    for (;;) {
        SntbMsg *m;
        int fd;

        while (!s->stop && (QSIMPLEQ_EMPTY(&s->sendq) || s->fd < 0)) {
            qemu_cond_wait(&s->send_cond, &s->lock);
        }
        if (s->stop) {
            break;
        }
        m = QSIMPLEQ_FIRST(&s->sendq);
        QSIMPLEQ_REMOVE_HEAD(&s->sendq, next);
        s->sendq_bytes -= m->size;
        fd = s->fd;
        s->sending = true;
        qemu_mutex_unlock(&s->lock);

        if (qemu_send_full(fd, m->data, m->size) < (ssize_t)m->size) {
            /*
             * A dead peer (SIGPIPE is ignored): the receive side sees EOF
             * and ends the connection, failing what waits on it.
             */
        }
        g_free(m);

        qemu_mutex_lock(&s->lock);
        s->sending = false;
        qemu_cond_broadcast(&s->idle_cond);
    }
    qemu_mutex_unlock(&s->lock);
    return NULL;
}

static void sntb_start(SmartioNTBState *s)
{
    char name[32];

    snprintf(name, sizeof(name), "sntb%u-send", s->port);
    qemu_thread_create(&s->send_thread, name, sntb_send_thread, s,
                       QEMU_THREAD_JOINABLE);
    snprintf(name, sizeof(name), "sntb%u-in", s->port);
    qemu_thread_create(&s->inbound_thread, name, sntb_inbound_thread, s,
                       QEMU_THREAD_JOINABLE);
    snprintf(name, sizeof(name), "sntb%u-recv", s->port);
    qemu_thread_create(&s->conn_thread, name, sntb_conn_thread, s,
                       QEMU_THREAD_JOINABLE);
    s->threads_started = true;
}

static bool sntb_listen(SmartioNTBState *s, Error **errp)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (strlen(s->socket_path) >= sizeof(sa.sun_path)) {
        error_setg(errp, "socket path too long: %s", s->socket_path);
        return false;
    }
    if (!s->listen) {
        return true;
    }
    fd = qemu_socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        error_setg_errno(errp, errno, "socket");
        return false;
    }
    pstrcpy(sa.sun_path, sizeof(sa.sun_path), s->socket_path);
    unlink(s->socket_path);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0) {
        error_setg_errno(errp, errno, "cannot listen on %s", s->socket_path);
        close(fd);
        return false;
    }
    s->listen_fd = fd;
    return true;
}

static bool sntb_is_pow2_ge(uint64_t v, uint64_t min)
{
    return v >= min && is_power_of_2(v);
}

static void sntb_realize(PCIDevice *pdev, Error **errp)
{
    SmartioNTBState *s = SMARTIO_NTB(pdev);
    uint8_t bar_flags = PCI_BASE_ADDRESS_SPACE_MEMORY |
                        PCI_BASE_ADDRESS_MEM_TYPE_64 |
                        PCI_BASE_ADDRESS_MEM_PREFETCH;
    int sv[2];

    if (s->port > 255) {
        error_setg(errp, "port must be 0..255");
        return;
    }
    if (!s->lut_entries || s->lut_entries > SNTB_LUT_MAX) {
        error_setg(errp, "lut-entries must be 1..%d", SNTB_LUT_MAX);
        return;
    }
    if (!sntb_is_pow2_ge(s->lut_entry_size, 4 * KiB)) {
        error_setg(errp, "lut-entry-size must be a power of two >= 4 KiB");
        return;
    }
    if (!s->direct_windows || s->direct_windows > SNTB_DIRECT_MAX) {
        error_setg(errp, "direct-windows must be 1..%d", SNTB_DIRECT_MAX);
        return;
    }
    if (!sntb_is_pow2_ge(s->direct_size, 4 * KiB)) {
        error_setg(errp, "direct-size must be a power of two >= 4 KiB");
        return;
    }
    if (s->rid_entries > SNTB_RID_MAX) {
        error_setg(errp, "requester-entries must be 0..%d", SNTB_RID_MAX);
        return;
    }
    if (s->peer && s->socket_path) {
        error_setg(errp, "peer and socket exclude each other");
        return;
    }
    if (s->listen && !s->socket_path) {
        error_setg(errp, "listen needs socket");
        return;
    }
    if (s->peer) {
        if (s->peer == s) {
            error_setg(errp, "a port cannot be its own peer");
            return;
        }
        if (s->peer->peer || s->peer->socket_path || s->peer->cabled) {
            error_setg(errp, "peer %s is already cabled",
                       DEVICE(s->peer)->id ?: "(port)");
            return;
        }
        if (!DEVICE(s->peer)->realized) {
            error_setg(errp, "peer must come first on the command line");
            return;
        }
    }
    if (s->socket_path && !sntb_listen(s, errp)) {
        return;
    }

    pdev->config[PCI_INTERRUPT_PIN] = 0;

    memory_region_init_io(&s->regs, OBJECT(s), &sntb_regs_ops, s,
                          "smartio-ntb-regs", SNTB_REGS_SIZE);
    pci_register_bar(pdev, SNTB_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->regs);
    if (msix_init_exclusive_bar(pdev, SNTB_VEC_COUNT, SNTB_BAR_MSIX, errp)) {
        goto fail;
    }
    for (int i = 0; i < SNTB_VEC_COUNT; i++) {
        msix_vector_use(pdev, i);
    }
    s->direct_aperture = (SntbAperture) { s, "BAR2", sntb_direct_target };
    s->lut_aperture = (SntbAperture) { s, "BAR4", sntb_lut_target };
    memory_region_init_io(&s->direct, OBJECT(s), &sntb_aperture_ops,
                          &s->direct_aperture, "smartio-ntb-direct",
                          pow2ceil(s->direct_windows * s->direct_size));
    pci_register_bar(pdev, SNTB_BAR_DIRECT, bar_flags, &s->direct);
    memory_region_init_io(&s->lut, OBJECT(s), &sntb_aperture_ops,
                          &s->lut_aperture, "smartio-ntb-lut",
                          pow2ceil(s->lut_entries * s->lut_entry_size));
    pci_register_bar(pdev, SNTB_BAR_LUT, bar_flags, &s->lut);

    /*
     * Our handlers drop the BQL while waiting for the peer, and the inbound
     * thread performs inbound accesses that may land in our own BARs
     * meanwhile (another vCPU may, too): that is no re-entrancy to block.
     * A loop through the cable is bounded by the read timeout instead.
     */
    s->regs.disable_reentrancy_guard = true;
    s->direct.disable_reentrancy_guard = true;
    s->lut.disable_reentrancy_guard = true;

    s->lut_addr = g_new0(uint64_t, s->lut_entries);
    s->lut_port = g_new0(uint8_t, s->lut_entries);
    s->rid_logged = bitmap_new(SNTB_RID_COUNT);
    s->db_mask = ~0u;

    qemu_mutex_init(&s->lock);
    qemu_cond_init(&s->send_cond);
    qemu_cond_init(&s->idle_cond);
    qemu_cond_init(&s->reply_cond);
    qemu_cond_init(&s->inq_cond);
    QSIMPLEQ_INIT(&s->inq);
    QSIMPLEQ_INIT(&s->sendq);
    QTAILQ_INIT(&s->waiters);
    s->fd = -1;
    s->loop_fd = -1;

    if (s->peer) {
        if (qemu_socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
            error_setg_errno(errp, errno, "socketpair");
            goto fail_msix;
        }
        s->peer->cabled = true;
        s->peer->loop_fd = sv[0];
        s->loop_fd = sv[1];
        sntb_start(s->peer);
        sntb_start(s);
    } else if (s->socket_path) {
        sntb_start(s);
    }
    return;

fail_msix:
    msix_uninit_exclusive_bar(pdev);
    g_free(s->lut_addr);
    g_free(s->lut_port);
    g_free(s->rid_logged);
    qemu_mutex_destroy(&s->lock);
    qemu_cond_destroy(&s->send_cond);
    qemu_cond_destroy(&s->idle_cond);
    qemu_cond_destroy(&s->reply_cond);
fail:
    if (s->listen_fd >= 0) {
        close(s->listen_fd);
        s->listen_fd = -1;
    }
}

static void sntb_exit(PCIDevice *pdev)
{
    SmartioNTBState *s = SMARTIO_NTB(pdev);
    bool bql = qemu_mutex_iothread_locked();

    qemu_mutex_lock(&s->lock);
    s->stop = true;
    if (s->fd >= 0) {
        shutdown(s->fd, SHUT_RDWR);
    }
    qemu_cond_broadcast(&s->send_cond);
    qemu_cond_broadcast(&s->idle_cond);
    qemu_cond_broadcast(&s->inq_cond);
    sntb_fail_waiters_locked(s);
    qemu_mutex_unlock(&s->lock);

    if (s->threads_started) {
        if (bql) {
            qemu_mutex_unlock_iothread();
        }
        qemu_thread_join(&s->conn_thread);
        qemu_thread_join(&s->send_thread);
        qemu_thread_join(&s->inbound_thread);
        if (bql) {
            qemu_mutex_lock_iothread();
        }
    }
    if (s->listen_fd >= 0) {
        close(s->listen_fd);
        unlink(s->socket_path);
    }
    while (!QSIMPLEQ_EMPTY(&s->sendq)) {
        SntbMsg *m = QSIMPLEQ_FIRST(&s->sendq);

        QSIMPLEQ_REMOVE_HEAD(&s->sendq, next);
        g_free(m);
    }
    msix_uninit_exclusive_bar(pdev);
    g_free(s->lut_addr);
    g_free(s->lut_port);
    g_free(s->rid_logged);
    qemu_mutex_destroy(&s->lock);
    qemu_cond_destroy(&s->send_cond);
    qemu_cond_destroy(&s->idle_cond);
    qemu_cond_destroy(&s->reply_cond);
    qemu_cond_destroy(&s->inq_cond);
}

static void sntb_reset(DeviceState *dev)
{
    SmartioNTBState *s = SMARTIO_NTB(dev);

    qemu_mutex_lock(&s->lock);
    if (s->link_ctrl & SNTB_LINK_CTRL_ENABLE) {
        sntb_enqueue_locked(s, SNTB_MSG_LINK, 0, 0, 0, NULL, 0);
    }
    s->link_ctrl = 0;
    memset(s->lut_addr, 0, s->lut_entries * sizeof(*s->lut_addr));
    memset(s->lut_port, 0, s->lut_entries);
    memset(s->rid, 0, sizeof(s->rid));
    s->rid_dropped = 0;
    bitmap_zero(s->rid_logged, SNTB_RID_COUNT);
    s->link_up = false;
    qemu_mutex_unlock(&s->lock);

    s->link_event = 0;
    s->db_status = 0;
    s->db_mask = ~0u;
    memset(s->spad, 0, sizeof(s->spad));
    memset(s->xlat_addr, 0, sizeof(s->xlat_addr));
    memset(s->xlat_size, 0, sizeof(s->xlat_size));
    msix_reset(PCI_DEVICE(s));
}

static void sntb_instance_init(Object *obj)
{
    SmartioNTBState *s = SMARTIO_NTB(obj);

    s->listen_fd = -1;
    s->loop_fd = -1;
    s->fd = -1;
}

static const VMStateDescription vmstate_sntb = {
    .name = TYPE_SMARTIO_NTB,
    .unmigratable = 1,
};

static Property sntb_properties[] = {
    DEFINE_PROP_UINT32("port", SmartioNTBState, port, 0),
    DEFINE_PROP_LINK("peer", SmartioNTBState, peer, TYPE_SMARTIO_NTB,
                     SmartioNTBState *),
    DEFINE_PROP_STRING("socket", SmartioNTBState, socket_path),
    DEFINE_PROP_BOOL("listen", SmartioNTBState, listen, false),
    DEFINE_PROP_UINT32("lut-entries", SmartioNTBState, lut_entries,
                       SNTB_LUT_MAX),
    DEFINE_PROP_SIZE("lut-entry-size", SmartioNTBState, lut_entry_size,
                     2 * MiB),
    DEFINE_PROP_UINT32("direct-windows", SmartioNTBState, direct_windows, 2),
    DEFINE_PROP_SIZE("direct-size", SmartioNTBState, direct_size, 4 * MiB),
    DEFINE_PROP_UINT32("requester-entries", SmartioNTBState, rid_entries,
                       SNTB_RID_ENTRIES_PXH830),
    DEFINE_PROP_END_OF_LIST(),
};

static void sntb_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = sntb_realize;
    k->exit = sntb_exit;
    k->vendor_id = SNTB_VENDOR_ID;
    k->device_id = SNTB_DEVICE_ID;
    k->revision = SNTB_VERSION_1;
    k->class_id = SNTB_CLASS;
    dc->desc = "smartio emulated NTB port";
    dc->reset = sntb_reset;
    dc->vmsd = &vmstate_sntb;
    device_class_set_props(dc, sntb_properties);
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo sntb_info = {
    .name = TYPE_SMARTIO_NTB,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(SmartioNTBState),
    .instance_init = sntb_instance_init,
    .class_init = sntb_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { }
    },
};

static void sntb_register_types(void)
{
    type_register_static(&sntb_info);
}

type_init(sntb_register_types)
