/*
 * smartio-ntb: one port of an emulated non-transparent bridge
 *
 * Two ports are cabled back to back, in one QEMU (peer=ID, over a
 * socketpair) or across two (socket=PATH, listen=on|off, over a UNIX stream
 * socket). The behaviour is specified in smartio's qemu/smartio-ntb.md, the
 * registers in include/smartio/emu_ntb_regs.h.
 *
 * Threads and locks: the cable (qemu/ntb-cable.c) queues posted messages,
 * waits for read replies with the BQL released and performs received
 * messages in its inbound thread with the BQL: there this port performs
 * inbound accesses (through its IOMMU), updates registers and raises MSI-X
 * vectors. Lock order: BQL, then the cable's lock, which also guards the
 * fields marked L.
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
#include "ntb-cable.h"
#define TYPE_SMARTIO_NTB "smartio-ntb"
OBJECT_DECLARE_SIMPLE_TYPE(SmartioNTBState, SMARTIO_NTB)

/* Message types on the cable; the MEM_* are the cable's (so is READ_REPLY). */
enum {
    SNTB_MSG_HELLO = 1,
    SNTB_MSG_LINK,
    SNTB_MSG_DB,
    SNTB_MSG_SPAD_WRITE,
    SNTB_MSG_SPAD_READ,
    SNTB_MSG_MEM_WRITE = NTB_CABLE_MSG_MEM_WRITE,
    SNTB_MSG_MEM_READ = NTB_CABLE_MSG_MEM_READ,
};


/* MEM_* addr: window kind in 63..62, direct window index in 61..56 */
#define SNTB_ADDR_KIND_SHIFT    62
#define SNTB_ADDR_KIND_DIRECT   0ULL
#define SNTB_ADDR_KIND_BUS      1ULL
#define SNTB_ADDR_WIN_SHIFT     56
#define SNTB_ADDR_WIN_MASK      0x3fULL
#define SNTB_ADDR_OFF_MASK      ((1ULL << SNTB_ADDR_WIN_SHIFT) - 1)
#define SNTB_ADDR_BUS_MASK      ((1ULL << SNTB_ADDR_KIND_SHIFT) - 1)

/*
 * The requester of a CPU's access: the root complex, 00:00.0. TCG gives a
 * CPU's access the CPU's attributes (x86: cpu_get_mem_attrs()), specified,
 * with requester ID 0; a device's DMA carries the function's ID
 * (qemu/patches/pci-dma-requester-id.patch).
 */
#define SNTB_RID_ROOT           0x0000
#define SNTB_RID_COUNT          (1 << 16)       /* distinct requester IDs */
#define SNTB_RID_MASK           (SNTB_RID_VALID | 0xffff)
#define SNTB_RID_ENTRIES_PXH830 32

/* Why a request entering an aperture from our host was not forwarded */
typedef enum {
    SNTB_WIN_OK,
    SNTB_WIN_BEYOND,            /* past the last window (BAR padding) */
    SNTB_WIN_LUT_INVALID,       /* LUT slot without VALID */
    SNTB_WIN_LINK_DOWN,
    SNTB_WIN_LUT_PORT,          /* LUT slot names another port */
    SNTB_WIN_CAUSES
} SntbWinCause;

static const char *const sntb_win_cause[SNTB_WIN_CAUSES] = {
    [SNTB_WIN_BEYOND] = "beyond the last window",
    [SNTB_WIN_LUT_INVALID] = "LUT entry not valid",
    [SNTB_WIN_LINK_DOWN] = "link down",
    [SNTB_WIN_LUT_PORT] = "LUT entry names another port",
};

/* LINK_STATUS while up: a nominal gen 3 x4 */
#define SNTB_LINK_STATUS_UP_VAL (SNTB_LINK_STATUS_UP | (3 << 8) | (4 << 16))

/*
 * One of the two apertures (BAR 2, direct windows; BAR 4, the LUT): both
 * forward an access to the peer, they differ only in how an offset in the
 * BAR becomes a target on the wire.
 */
typedef struct SntbAperture {
    SmartioNTBState *s;
    const char *bar;
    SntbWinCause (*target)(SmartioNTBState *s, hwaddr addr,
                           uint64_t *target);
    MemoryRegion *mr;
    uint64_t unit;      /* bytes of one translation: a window, an entry */
} SntbAperture;

struct SmartioNTBState {
    PCIDevice parent_obj;

    /* Properties */
    uint32_t port;
    SmartioNTBState *peer;
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
    bool norid_logged;          /* L: a request without requester, too */
    uint32_t win_dropped;       /* L */
    uint32_t win_logged;        /* L: causes (bits) whose drop was logged */

    /* Cable state, under the BQL */
    bool hello;                 /* peer said hello on this connection */
    bool peer_enabled;
    uint8_t peer_port;          /* L */
    bool link_up;               /* L */

    NtbCable cable;             /* socket and listen: properties */
};

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

    qemu_mutex_lock(&s->cable.lock);
    up = s->cable.fd >= 0 && s->hello && s->peer_enabled &&
         (s->link_ctrl & SNTB_LINK_CTRL_ENABLE);
    if (up == s->link_up) {
        qemu_mutex_unlock(&s->cable.lock);
        return;
    }
    s->link_up = up;
    s->win_logged = 0;
    qemu_mutex_unlock(&s->cable.lock);
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
 * the PXH830's 32 entries); the CPUs' requests are the root complex's.
 * Without a table (requester-entries=0, Intel and AMD NTBs) every
 * requester is forwarded. A request with no requester ID at all is
 * dropped, table or not: on PCIe every request has one, so it is a device
 * model QEMU left untagged, whose real ID the table would have judged.
 */

/* Change entry @n; a changed table logs each requester's drop anew. */
static void sntb_rid_set(SmartioNTBState *s, unsigned n, uint32_t val)
{
    qemu_mutex_lock(&s->cable.lock);
    val &= SNTB_RID_MASK;
    if (s->rid[n] != val) {
        s->rid[n] = val;
        bitmap_zero(s->rid_logged, SNTB_RID_COUNT);
        s->norid_logged = false;
    }
    qemu_mutex_unlock(&s->cable.lock);
}

/*
 * A request without a requester ID: count it and drop it, logged once
 * until the table changes.
 */
static bool sntb_norid_drop(SmartioNTBState *s, const char *bar, hwaddr addr,
                            bool is_write)
{
    bool log;

    qemu_mutex_lock(&s->cable.lock);
    s->rid_dropped++;
    log = !s->norid_logged;
    s->norid_logged = true;
    qemu_mutex_unlock(&s->cable.lock);
    if (log) {
        warn_report("%s: port %u: dropped %s with no requester ID at %s + "
                    "0x%" HWADDR_PRIx ": a device model's untagged DMA",
                    TYPE_SMARTIO_NTB, s->port, is_write ? "write" : "read",
                    bar, addr);
    }
    return false;
}

/*
 * May this request enter the window at @bar + @addr? If not, count it and
 * log it, once per requester until the table changes.
 */
static bool sntb_rid_allowed(SmartioNTBState *s, MemTxAttrs attrs,
                             const char *bar, hwaddr addr, bool is_write)
{
    uint16_t rid = attrs.requester_id;
    bool log;

    if (attrs.unspecified) {
        return sntb_norid_drop(s, bar, addr, is_write);
    }
    if (!s->rid_entries) {
        return true;
    }
    qemu_mutex_lock(&s->cable.lock);
    for (unsigned n = 0; n < s->rid_entries; n++) {
        if (s->rid[n] == (SNTB_RID_VALID | rid)) {
            qemu_mutex_unlock(&s->cable.lock);
            return true;
        }
    }
    s->rid_dropped++;
    log = !test_and_set_bit(rid, s->rid_logged);
    qemu_mutex_unlock(&s->cable.lock);
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
        qemu_mutex_lock(&s->cable.lock);
        val = s->rid_dropped;
        qemu_mutex_unlock(&s->cable.lock);
        return val;
    case SNTB_WIN_DROPPED:
        qemu_mutex_lock(&s->cable.lock);
        val = s->win_dropped;
        qemu_mutex_unlock(&s->cable.lock);
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
        if (!ntb_cable_read(&s->cable, SNTB_MSG_SPAD_READ, n, 0, &val, 4)) {
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
        qemu_mutex_lock(&s->cable.lock);
        val = s->rid[n];
        qemu_mutex_unlock(&s->cable.lock);
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
            qemu_mutex_lock(&s->cable.lock);
            s->link_ctrl = val;
            ntb_cable_enqueue_locked(&s->cable, SNTB_MSG_LINK, 0, 0, val,
                                     NULL, 0);
            qemu_mutex_unlock(&s->cable.lock);
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
            ntb_cable_send(&s->cable, SNTB_MSG_DB, 0, 0, val, NULL, 0);
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
            ntb_cable_send(&s->cable, SNTB_MSG_SPAD_WRITE, n, 0, val, NULL, 0);
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
        qemu_mutex_lock(&s->cable.lock);
        s->win_logged = 0;
        if ((addr & 0xf) < 8) {
            uint64_t a = sntb_reg64_write(s->lut_addr[n], addr, val);

            s->lut_addr[n] = a & (~(s->lut_entry_size - 1) |
                                  SNTB_LUT_ADDR_VALID);
        } else if ((addr & 0xf) == 8) {
            s->lut_port[n] = val & 0xff;
        }
        qemu_mutex_unlock(&s->cable.lock);
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
    if (ntb_cable_in_rx()) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: port %u: inbound access into an "
                      "NTB aperture (%s + 0x%" HWADDR_PRIx ") refused\n",
                      TYPE_SMARTIO_NTB, s->port, bar, addr);
        return true;
    }
    return false;
}

/*
 * Where an access at @addr of an aperture goes on the wire. Whether the
 * window is open on the far side (XLAT_SIZE) only the receiver knows.
 */
static SntbWinCause sntb_direct_target(SmartioNTBState *s, hwaddr addr,
                                       uint64_t *target)
{
    uint64_t n = addr / s->direct_size;
    bool up;

    if (n >= s->direct_windows) {
        return SNTB_WIN_BEYOND;
    }
    qemu_mutex_lock(&s->cable.lock);
    up = s->link_up;
    qemu_mutex_unlock(&s->cable.lock);
    if (!up) {
        return SNTB_WIN_LINK_DOWN;
    }
    *target = (SNTB_ADDR_KIND_DIRECT << SNTB_ADDR_KIND_SHIFT) |
              (n << SNTB_ADDR_WIN_SHIFT) | (addr & (s->direct_size - 1));
    return SNTB_WIN_OK;
}

static SntbWinCause sntb_lut_target(SmartioNTBState *s, hwaddr addr,
                                    uint64_t *target)
{
    uint64_t n = addr / s->lut_entry_size;
    SntbWinCause why = SNTB_WIN_OK;
    uint64_t a;

    if (n >= s->lut_entries) {
        return SNTB_WIN_BEYOND;
    }
    qemu_mutex_lock(&s->cable.lock);
    a = s->lut_addr[n];
    if (!(a & SNTB_LUT_ADDR_VALID)) {
        why = SNTB_WIN_LUT_INVALID;
    } else if (!s->link_up) {
        why = SNTB_WIN_LINK_DOWN;
    } else if (s->lut_port[n] != s->peer_port) {
        why = SNTB_WIN_LUT_PORT;
    }
    qemu_mutex_unlock(&s->cable.lock);
    if (why != SNTB_WIN_OK) {
        return why;
    }
    a = (a & ~(s->lut_entry_size - 1)) + (addr & (s->lut_entry_size - 1));
    *target = (SNTB_ADDR_KIND_BUS << SNTB_ADDR_KIND_SHIFT) |
              (a & SNTB_ADDR_BUS_MASK);
    return SNTB_WIN_OK;
}

/*
 * Translate an access of requester @rid at @ap's @addr; false if it goes
 * nowhere: then it is counted in WIN_DROPPED and logged (-d guest_errors),
 * once per cause until the LUT or the link changes, with its requester, so
 * that a test can tell a device's DMA from a CPU's access (00:00.0).
 */
static bool sntb_window_target(SntbAperture *ap, hwaddr addr, bool is_write,
                               uint16_t rid, uint64_t *target)
{
    SmartioNTBState *s = ap->s;
    SntbWinCause why = ap->target(s, addr, target);
    bool log;

    if (why == SNTB_WIN_OK) {
        return true;
    }
    qemu_mutex_lock(&s->cable.lock);
    s->win_dropped++;
    log = !(s->win_logged & (1u << why));
    s->win_logged |= 1u << why;
    qemu_mutex_unlock(&s->cable.lock);
    if (log) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: port %u: dropped %s from "
                      "requester %02x:%02x.%x at %s + 0x%" HWADDR_PRIx
                      ": %s\n", TYPE_SMARTIO_NTB, s->port,
                      is_write ? "write" : "read", rid >> 8,
                      PCI_SLOT(rid & 0xff), PCI_FUNC(rid & 0xff), ap->bar,
                      addr, sntb_win_cause[why]);
    }
    return false;
}

static void sntb_window_write(SmartioNTBState *s, uint64_t target,
                              uint64_t val, unsigned size)
{
    uint64_t le = cpu_to_le64(val);

    ntb_cable_ra_drop(&s->cable);
    /* value: the store's size, so the peer can split a merged run */
    ntb_cable_send(&s->cable, SNTB_MSG_MEM_WRITE, target, 0, size, &le,
                   size);
}

/*
 * A dropped or refused read fails as one across the cable: all-ones, and
 * an error that a device's DMA sees and a CPU's load does not
 * (ntb-cable.h).
 */
static MemTxResult sntb_aperture_read(void *opaque, hwaddr addr,
                                      uint64_t *data, unsigned size,
                                      MemTxAttrs attrs)
{
    SntbAperture *ap = opaque;
    uint64_t target, extent;

    if (sntb_refuse_in_rx(ap->s, ap->bar, addr) ||
        !sntb_rid_allowed(ap->s, attrs, ap->bar, addr, false) ||
        !sntb_window_target(ap, addr, false, attrs.requester_id, &target)) {
        *data = ~0ULL;
        return MEMTX_ERROR;
    }
    extent = MIN(memory_region_read_extent(ap->mr, addr),
                 ap->unit - addr % ap->unit);
    return ntb_cable_mem_read(&ap->s->cable, target, size, extent, data);
}

static MemTxResult sntb_aperture_write(void *opaque, hwaddr addr,
                                       uint64_t val, unsigned size,
                                       MemTxAttrs attrs)
{
    SntbAperture *ap = opaque;
    uint64_t target;

    if (sntb_refuse_in_rx(ap->s, ap->bar, addr) ||
        !sntb_rid_allowed(ap->s, attrs, ap->bar, addr, true) ||
        !sntb_window_target(ap, addr, true, attrs.requester_id, &target)) {
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

/* Inbound accesses are this port's DMA: its requester ID, as pci_dma_rw's. */
static MemTxAttrs sntb_dma_attrs(SmartioNTBState *s)
{
    return (MemTxAttrs) { .requester_id = pci_requester_id(PCI_DEVICE(s)) };
}

/*
 * How much to answer a MEM_READ of @size bytes at @addr with @value: see
 * ntb_cable_read_ahead_len(), within the window @addr falls in.
 */
static uint32_t sntb_read_ahead_len(SmartioNTBState *s, uint64_t addr,
                                    uint32_t size, uint32_t value)
{
    uint32_t room = NTB_CABLE_READ_AHEAD_MAX;
    dma_addr_t da;

    if (!sntb_inbound_addr(s, addr, &room, &da)) {
        return size;
    }
    return ntb_cable_read_ahead_len(pci_get_address_space(PCI_DEVICE(s)), da,
                                    size, value, room, sntb_dma_attrs(s));
}

/* Perform a received message, in the cable's inbound thread, with the BQL. */
static void sntb_handle(void *opaque, NtbCableHdr *h, uint8_t *payload)
{
    SmartioNTBState *s = opaque;
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    dma_addr_t da;
    uint32_t v, len;

    switch (h->type) {
    case SNTB_MSG_HELLO:
        s->hello = true;
        qemu_mutex_lock(&s->cable.lock);
        s->peer_port = h->value & 0xff;
        qemu_mutex_unlock(&s->cable.lock);
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
            ntb_cable_reply(&s->cable, h, true, &v, 4);
        } else {
            v = ~0u;
            ntb_cable_reply(&s->cable, h, false, &v, 4);
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
        ntb_cable_dma_write(as, da, payload, len, h->value,
                            sntb_dma_attrs(s));
        break;
    case SNTB_MSG_MEM_READ: {
        uint32_t want = MIN(h->value & NTB_CABLE_READ_LEN_MASK,
                            NTB_CABLE_MAX_PAYLOAD);
        g_autofree uint8_t *buf = NULL;
        uint32_t err = 1;

        want = sntb_read_ahead_len(s, h->addr, want, h->value);
        buf = g_malloc(want);
        len = want;
        if (s->link_up && sntb_inbound_addr(s, h->addr, &len, &da) &&
            len == want) {
            err = ntb_cable_dma(as, da, buf, len, DMA_DIRECTION_TO_DEVICE,
                                sntb_dma_attrs(s)) != MEMTX_OK;
        } else if (s->link_up) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: port %u: inbound read of "
                          "0x%" PRIx64 " (%u bytes) outside any open window\n",
                          TYPE_SMARTIO_NTB, s->port, h->addr, want);
        }
        if (err) {
            memset(buf, 0xff, want);
        }
        ntb_cable_reply(&s->cable, h, !err, buf, want);
        break;
    }
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: port %u: unknown message type "
                      "%u\n", TYPE_SMARTIO_NTB, s->port, h->type);
    }
}

/*
 * May @h, from the other port of this QEMU, be performed by its sender
 * (ntb-cable.c)? Doorbells and scratchpads are registers; a window write
 * may be if it lands in RAM or nowhere (it is dropped): into a device's
 * registers it could make the device wait on the cable or on the sender.
 */
static bool sntb_immediate(void *opaque, const NtbCableHdr *h)
{
    SmartioNTBState *s = opaque;
    uint32_t len = h->len;
    dma_addr_t da;

    switch (h->type) {
    case SNTB_MSG_DB:
    case SNTB_MSG_SPAD_WRITE:
        return true;
    case SNTB_MSG_MEM_WRITE:
        return !s->link_up || !sntb_inbound_addr(s, h->addr, &len, &da) ||
               ntb_cable_dma_is_ram(pci_get_address_space(PCI_DEVICE(s)), da,
                                    len, true, sntb_dma_attrs(s));
    }
    return false;
}

/* The connection is up: tell the peer our port and link enable. */
static void sntb_connected_locked(void *opaque)
{
    SmartioNTBState *s = opaque;

    ntb_cable_enqueue_locked(&s->cable, SNTB_MSG_HELLO, 0, 0, s->port, NULL,
                             0);
    ntb_cable_enqueue_locked(&s->cable, SNTB_MSG_LINK, 0, 0,
                             s->link_ctrl & SNTB_LINK_CTRL_ENABLE, NULL, 0);
}

static void sntb_disconnected(void *opaque)
{
    SmartioNTBState *s = opaque;

    s->hello = false;
    s->peer_enabled = false;
    sntb_update_link(s);
}

static bool sntb_may_read_locked(void *opaque)
{
    SmartioNTBState *s = opaque;

    return s->link_up;
}

static const NtbCableOps sntb_cable_ops = {
    .connected_locked = sntb_connected_locked,
    .handle = sntb_handle,
    .disconnected = sntb_disconnected,
    .may_read_locked = sntb_may_read_locked,
    .immediate = sntb_immediate,
};

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
    if (!ntb_cable_check_peer(&s->cable, DEVICE(s),
                              s->peer ? DEVICE(s->peer) : NULL,
                              s->peer ? &s->peer->cable : NULL,
                              s->peer && s->peer->peer, errp) ||
        !ntb_cable_init(&s->cable, TYPE_SMARTIO_NTB, s->port, &sntb_cable_ops,
                        s, errp)) {
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
    s->direct_aperture = (SntbAperture) {
        s, "BAR2", sntb_direct_target, &s->direct, s->direct_size,
    };
    s->lut_aperture = (SntbAperture) {
        s, "BAR4", sntb_lut_target, &s->lut, s->lut_entry_size,
    };
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

    if (s->peer) {
        if (!ntb_cable_pair(&s->peer->cable, &s->cable, errp)) {
            goto fail_msix;
        }
        ntb_cable_start(&s->peer->cable);
    }
    ntb_cable_start(&s->cable);
    return;

fail_msix:
    msix_uninit_exclusive_bar(pdev);
    g_free(s->lut_addr);
    g_free(s->lut_port);
    g_free(s->rid_logged);
fail:
    ntb_cable_cleanup(&s->cable);
}

static void sntb_exit(PCIDevice *pdev)
{
    SmartioNTBState *s = SMARTIO_NTB(pdev);

    ntb_cable_cleanup(&s->cable);
    msix_uninit_exclusive_bar(pdev);
    g_free(s->lut_addr);
    g_free(s->lut_port);
    g_free(s->rid_logged);
}

static void sntb_reset(DeviceState *dev)
{
    SmartioNTBState *s = SMARTIO_NTB(dev);

    qemu_mutex_lock(&s->cable.lock);
    if (s->link_ctrl & SNTB_LINK_CTRL_ENABLE) {
        ntb_cable_enqueue_locked(&s->cable, SNTB_MSG_LINK, 0, 0, 0, NULL, 0);
    }
    s->link_ctrl = 0;
    memset(s->lut_addr, 0, s->lut_entries * sizeof(*s->lut_addr));
    memset(s->lut_port, 0, s->lut_entries);
    memset(s->rid, 0, sizeof(s->rid));
    s->rid_dropped = 0;
    bitmap_zero(s->rid_logged, SNTB_RID_COUNT);
    s->norid_logged = false;
    s->win_dropped = 0;
    s->win_logged = 0;
    s->link_up = false;
    qemu_mutex_unlock(&s->cable.lock);

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

    ntb_cable_instance_init(&s->cable);
}

static const VMStateDescription vmstate_sntb = {
    .name = TYPE_SMARTIO_NTB,
    .unmigratable = 1,
};

static Property sntb_properties[] = {
    DEFINE_PROP_UINT32("port", SmartioNTBState, port, 0),
    DEFINE_PROP_LINK("peer", SmartioNTBState, peer, TYPE_SMARTIO_NTB,
                     SmartioNTBState *),
    DEFINE_PROP_STRING("socket", SmartioNTBState, cable.socket_path),
    DEFINE_PROP_BOOL("listen", SmartioNTBState, cable.listen, false),
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
