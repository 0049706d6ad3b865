/*
 * switchtec-ntb: the NTB function of a Microsemi Switchtec PFX switch
 *
 * One PCI function: the NT endpoint of one partition of a two-partition
 * switch, driven by the upstream switchtec.ko and ntb_hw_switchtec.ko. The
 * two partitions live in one QEMU (peer=ID) or in two (socket=PATH,
 * listen=on|off), joined by an NtbCable: each device holds its own
 * partition's registers, and what the driver reads or writes of the peer
 * partition's NTB control registers crosses the cable. The registers are
 * those of include/linux/switchtec.h; what is modelled and what is left out
 * is in smartio's qemu/switchtec-ntb.md.
 *
 * Requests through a window are translated by the sending partition (its
 * bar_entry and LUT, which the receiving side programs), allowed only for
 * requesters in the sending partition's requester-ID table, and performed
 * by the receiving NT endpoint as DMA from the entry's proxy ID, through
 * the receiving host's IOMMU. Lock order: BQL, then the cable's lock.
 *
 * Copyright (c) 2026 smartio authors
 *
 * SPDX-License-Identifier: GPL-2.0
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/error-report.h"
#include "qemu/module.h"
#include "qemu/bswap.h"
#include "qemu/bitmap.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pci_bus.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qom/object.h"
#include "ntb-cable.h"

#define TYPE_SWITCHTEC_NTB "switchtec-ntb"
OBJECT_DECLARE_SIMPLE_TYPE(SwitchtecNTBState, SWITCHTEC_NTB)

/* PCI identity: a PFX 32xG3 (switchtec.c's table), NT endpoint function */
#define STX_VENDOR_MICROSEMI    0x11f8
#define STX_DEVICE_PFX32XG3     0x8532
#define STX_CLASS_BRIDGE_OTHER  0x0680

#define STX_PARTITIONS          2
#define STX_VECTORS             64      /* dbmsg msix_table: 1024 bytes */
#define STX_LUT_SIZE            (64 * KiB)
#define STX_LUT_MAX             512
/*
 * Proxy IDs: entry i is devfn 0x80 + i (10.0 to 1f.7) on the NT endpoint's
 * bus, slots that q35's bus 0 leaves free as a switch's bus would be.
 */
#define STX_PROXY_DEVFN0        0x80
#define STX_REQ_ID_MAX          128
#define STX_PFF_PER_PART        2       /* USP and the NT endpoint (vEP) */
#define STX_PFF_COUNT           (STX_PARTITIONS * STX_PFF_PER_PART)
#define STX_EVENT_VECTOR        0       /* part_cfg vep_vector_number */
#define STX_VENDOR_STR          "MICROSEM"
#define STX_PRODUCT_STR         "PFX 32xG3"

/* GAS layout (struct offsets of include/linux/switchtec.h) */
#define GAS_MRPC                0x0000
#define GAS_SW_EVENT            0x1800
#define GAS_SYS_INFO            0x2000
#define GAS_PART_CFG            0x4000
#define GAS_NTB                 0x10000
#define GAS_NTB_CTRL            (GAS_NTB + 0x4000)
#define GAS_NTB_DBMSG           (GAS_NTB + 0x64000)
#define GAS_PFF_CSR             0x134000
#define GAS_SIZE                (4 * MiB)

#define MRPC_PAYLOAD            1024
#define MRPC_CMD                0x800
#define MRPC_STATUS             0x804
#define MRPC_RET_VALUE          0x808
#define MRPC_END                0x820
#define MRPC_STATUS_DONE        2
#define MRPC_STATUS_ERROR       0xff

#define SW_EVENT_SIZE           0x180
#define SW_EVENT_HDR0           0x30    /* stack_error_event_hdr */
#define SW_EVENT_COUNT          14      /* ... gfms_event_hdr, 0x18 apart */

#define SYS_INFO_SIZE           0x160

#define PART_CFG_SIZE           0x400
#define PART_USP_PFF            0x10
#define PART_VEP_PFF            0x14
#define PART_DSP_PFF            0x18
#define PART_DSP_PFF_END        0xd4
#define PART_VECTORS            0x100   /* vep, usp vector numbers */
#define PART_EVENT_HDR0         0x124   /* part_reset_hdr */
#define PART_EVENT_COUNT        5       /* ... intercomm_notify_hdr */
#define PART_EVENT_MRPC_COMP    1

#define INFO_SIZE               0x320
#define INFO_EP_MAP             0x04
#define INFO_REQUESTER_ID       0x0c
#define INFO_NTP                0x20    /* nt_partition_info, 16 each */

#define CTRL_SIZE               0x2000
#define CTRL_STATUS             0x00
#define CTRL_OP                 0x04
#define CTRL_BAR_ERROR          0x10
#define CTRL_LUT_ENTRIES        0x14    /* and lut_table_offset */
#define CTRL_LUT_ERROR          0x18
#define CTRL_REQ_ID_SIZE        0x1c    /* and req_id_table_offset */
#define CTRL_REQ_ID_ERROR       0x20
#define CTRL_BAR_ENTRY          0x40    /* ctl, win_size, xlate_addr */
#define CTRL_BAR_EXT            0xa0    /* win_size (upper 32 bits) */
#define CTRL_REQ_ID             0x400
#define CTRL_LUT                0x1000

#define PART_OP_LOCK            1
#define PART_OP_CFG             2
#define PART_OP_RESET           3
#define PART_STATUS_NORMAL      1
#define PART_STATUS_LOCKED      2
#define PART_STATUS_LOCKING     3
/* Hosts are named by the partition they are in; this one is none. */
#define STX_NO_HOST             STX_PARTITIONS

#define BAR_VALID               (1u << 0)
#define BAR_DIR_WIN_EN          (1u << 4)
#define BAR_LUT_WIN_EN          (1u << 5)
#define REQ_ID_EN               (1u << 0)
#define LUT_EN                  (1ULL << 0)

#define DBMSG_SIZE              0x4000
#define DBMSG_ODB               0x1000
#define DBMSG_ODB_MASK          0x1008
#define DBMSG_IDB               0x1010
#define DBMSG_IDB_MASK          0x1018
#define DBMSG_VEC_MAP           0x1020
#define DBMSG_MSG_MAP           0x1060
#define DBMSG_OMSG              0x1068
#define DBMSG_IMSG              0x1088
#define DBMSG_IMSG_END          0x10a8
#define DBMSG_MSIX_TABLE        0x2000
#define DBMSG_MSIX_PBA          0x3000
#define DBMSG_MSGS              4
#define DBMSG_MSG_DB            60      /* messages interrupt as idb 60..63 */

#define PFF_SIZE                0x1000
#define PFF_LINK_STA            0x74    /* pci_cap_region[13] */
#define PFF_EVENT_HDR0          0xc10   /* aer_in_p2p_hdr */
#define PFF_EVENT_COUNT         13      /* ... link_state_hdr */
#define PFF_EVENT_LINK_STATE    12
/* Link status while up: gen 3 (bits 19..16), x4 (bits 25..20) */
#define PFF_LINK_STA_UP         ((3u << 16) | (4u << 20))

#define EVENT_OCCURRED          (1u << 0)
#define EVENT_EN_MASK           0x1eu   /* EN_LOG, EN_CLI, EN_IRQ, FATAL */
#define EVENT_EN_IRQ            (1u << 3)
#define EVENT_COUNT_SHIFT       5

/* Messages on the cable; MEM_* and READ_REPLY are the cable's. */
enum {
    STX_MSG_HELLO = 1,          /* value: partition; payload: StxHello */
    STX_MSG_CTRL_READ,          /* addr: offset in ctrl; value: size */
    STX_MSG_CTRL_WRITE,         /* addr: offset; value: size; payload */
    STX_MSG_DB,                 /* payload: 64 doorbell bits */
    STX_MSG_MSG,                /* addr: omsg index; value: message */
};

/* Requester IDs (bus, devfn): one bit each in drop_logged */
#define STX_REQUESTERS          (1 << 16)

/* MEM_* addr: proxy devfn in 63..56, bus address below */
#define STX_WIRE_DEVFN_SHIFT    56
#define STX_WIRE_ADDR_MASK      ((1ULL << STX_WIRE_DEVFN_SHIFT) - 1)

/* What both partitions must agree on, checked at HELLO. */
typedef struct QEMU_PACKED StxHello {
    uint64_t bar_size[2];
    uint32_t lut_entries;
    uint32_t req_id_entries;
} StxHello;

/*
 * One partition's NTB control: regs[] is what the registers read (the
 * entries as written while locked), act_* what CFG made active. Under the
 * BQL, act_* under the cable's lock too (the windows read them without the
 * BQL held by anyone in particular).
 *
 * Both hosts run partition operations on it (each on its own partition and
 * on the other's), so each host reads the partition_status of its own
 * operation, and one host at a time holds the lock (STX_NO_HOST: none);
 * the other's LOCK waits (LOCKING) until the holder's CFG or RESET.
 */
typedef struct StxCtrl {
    unsigned part;              /* whose control */
    uint8_t regs[CTRL_SIZE];
    uint32_t act_bar_ctl[6];
    uint64_t act_win_size[6];
    uint64_t act_xlate[6];
    uint64_t act_lut[STX_LUT_MAX];
    uint32_t act_req_id[STX_REQ_ID_MAX];
    uint32_t op_status[STX_PARTITIONS];
    unsigned lock_holder;
    bool lock_wait[STX_PARTITIONS];
} StxCtrl;

typedef struct StxWindow {
    SwitchtecNTBState *s;
    int bar;
} StxWindow;

struct SwitchtecNTBState {
    PCIDevice parent_obj;

    /* Properties */
    uint32_t port;              /* own partition */
    SwitchtecNTBState *peer;
    uint64_t bar_size[2];       /* BAR 2 and BAR 4 */
    uint32_t lut_entries;
    uint32_t req_id_entries;
    NtbCable cable;             /* socket and listen: properties */

    MemoryRegion gas;
    MemoryRegion win_mr[2];
    StxWindow win[2];

    /* MRPC, events; under the BQL */
    uint8_t mrpc_in[MRPC_PAYLOAD];
    uint8_t mrpc_out[MRPC_PAYLOAD];
    uint32_t mrpc_cmd, mrpc_status, mrpc_ret;
    uint32_t sw_event[SW_EVENT_COUNT];
    uint32_t part_event[PART_EVENT_COUNT];
    uint32_t pff_event[STX_PFF_COUNT][PFF_EVENT_COUNT];

    /*
     * NTB control of our partition; and of the peer's while its host is
     * not there, kept as the switch would keep it (its host, once there,
     * holds it, and what crosses the cable is its).
     */
    StxCtrl ctrl;
    StxCtrl absent_peer_ctrl;

    /*
     * Requesters whose dropped access was logged since the windows or the
     * table last changed, under the cable's lock. A device whose entry is
     * gone goes on moving its data 8 bytes at a time; one line per access
     * would starve the vCPUs of the BQL and fill the disk.
     */
    DECLARE_BITMAP(drop_logged, STX_REQUESTERS);
    bool norid_logged;          /* and an access without a requester ID */

    /* Doorbells and messages of our partition, under the BQL */
    uint64_t odb_mask, idb, idb_mask;
    uint8_t vec_map[64];
    uint32_t msg_map;
    uint32_t imsg[DBMSG_MSGS];
    uint8_t imsg_status[DBMSG_MSGS], imsg_mask[DBMSG_MSGS];
    uint8_t imsg_src[DBMSG_MSGS];

    /* The peer partition's host is there (cable up and HELLO seen) */
    bool peer_present;          /* under the BQL and the cable's lock */
};

static unsigned stx_peer_part(SwitchtecNTBState *s)
{
    return s->port ^ 1;
}

static void stx_notify(SwitchtecNTBState *s, unsigned vector)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (vector < STX_VECTORS && msix_enabled(pdev)) {
        msix_notify(pdev, vector);
    }
}

/* Events: a header counts occurrences and interrupts when EN_IRQ is set. */
static void stx_event(SwitchtecNTBState *s, uint32_t *hdr)
{
    uint32_t count = ((*hdr >> EVENT_COUNT_SHIFT) + 1) & 0xff;

    *hdr = (*hdr & EVENT_EN_MASK) | EVENT_OCCURRED |
           (count << EVENT_COUNT_SHIFT);
    if (*hdr & EVENT_EN_IRQ) {
        stx_notify(s, STX_EVENT_VECTOR);
    }
}

static void stx_event_write(uint32_t *hdr, uint32_t val)
{
    uint32_t v = *hdr & ~EVENT_EN_MASK;

    if (val & EVENT_OCCURRED) {
        v &= ~EVENT_OCCURRED;
    }
    *hdr = v | (val & EVENT_EN_MASK);
}

/* The peer's host came or went: its ports' links changed. */
static void stx_peer_link_event(SwitchtecNTBState *s)
{
    unsigned pff = stx_peer_part(s) * STX_PFF_PER_PART;

    stx_event(s, &s->pff_event[pff][PFF_EVENT_LINK_STATE]);
    stx_event(s, &s->pff_event[pff + 1][PFF_EVENT_LINK_STATE]);
}

/* Register access helpers over byte arrays (little-endian) */

static uint64_t stx_get(const uint8_t *p, unsigned size)
{
    return ldn_le_p(p, size);
}

static uint32_t stx_get32(const uint8_t *p)
{
    return ldl_le_p(p);
}

/* NTB control of our partition */

static uint16_t stx_req_id_proxy(unsigned entry)
{
    return STX_PROXY_DEVFN0 + entry;
}

/* The reset value of the dword at @off of partition @part's control. */
static uint32_t stx_ctrl_reset32(SwitchtecNTBState *s, hwaddr off)
{
    if (off == CTRL_STATUS) {
        return PART_STATUS_NORMAL;
    }
    if (off == CTRL_LUT_ENTRIES) {
        return s->lut_entries;
    }
    if (off == CTRL_REQ_ID_SIZE) {
        return s->req_id_entries;
    }
    if (off == CTRL_BAR_ENTRY + 2 * 16 || off == CTRL_BAR_ENTRY + 4 * 16) {
        return BAR_VALID;
    }
    if (off >= CTRL_REQ_ID && off < CTRL_REQ_ID + 4 * s->req_id_entries) {
        return stx_req_id_proxy((off - CTRL_REQ_ID) / 4) << 1;
    }
    return 0;
}

static void stx_ctrl_reset(SwitchtecNTBState *s, StxCtrl *c)
{
    hwaddr off;
    unsigned h;

    for (off = 0; off < CTRL_SIZE; off += 4) {
        stl_le_p(c->regs + off, stx_ctrl_reset32(s, off));
    }
    for (h = 0; h < STX_PARTITIONS; h++) {
        c->op_status[h] = PART_STATUS_NORMAL;
        c->lock_wait[h] = false;
    }
    c->lock_holder = STX_NO_HOST;
    qemu_mutex_lock(&s->cable.lock);
    memset(c->act_bar_ctl, 0, sizeof(c->act_bar_ctl));
    memset(c->act_win_size, 0, sizeof(c->act_win_size));
    memset(c->act_xlate, 0, sizeof(c->act_xlate));
    memset(c->act_lut, 0, sizeof(c->act_lut));
    memset(c->act_req_id, 0, sizeof(c->act_req_id));
    bitmap_zero(s->drop_logged, STX_REQUESTERS);
    s->norid_logged = false;
    qemu_mutex_unlock(&s->cable.lock);
}

static uint64_t stx_bar_size(SwitchtecNTBState *s, int bar)
{
    return bar == 2 ? s->bar_size[0] : bar == 4 ? s->bar_size[1] : 0;
}

/* Where the LUT windows of a BAR end: they come first in it. */
static uint64_t stx_lut_span(uint32_t ctl)
{
    if (!(ctl & BAR_LUT_WIN_EN)) {
        return 0;
    }
    return (((ctl >> 14) & 0x1ff) + 1) * STX_LUT_SIZE;
}

/*
 * CFG: check what was written while locked and make it active. A bad BAR
 * or LUT entry sets its bit in bar_error or lut_error, activates nothing
 * and returns false: the holder keeps the lock and reads LOCKED, which the
 * driver takes for a configuration error (and may clear the entry and CFG
 * again).
 */
static bool stx_ctrl_configure(SwitchtecNTBState *s, StxCtrl *c)
{
    uint32_t bar_error = 0, lut_error = 0;
    uint64_t bad_lut = 0;
    unsigned bad_lut_idx = 0;
    int b;
    unsigned i;

    for (b = 0; b < 6; b++) {
        uint8_t *e = c->regs + CTRL_BAR_ENTRY + 16 * b;
        uint32_t ctl = stx_get32(e);
        uint32_t ws = stx_get32(e + 4);
        uint64_t size = ((uint64_t)stx_get32(c->regs + CTRL_BAR_EXT + 16 * b)
                         << 32) | (ws & 0xfffff000u);
        unsigned pos = ws & 0x3f;
        uint64_t lut = stx_lut_span(ctl);

        if (!(ctl & BAR_VALID)) {
            continue;
        }
        if ((ctl & BAR_LUT_WIN_EN) &&
            (((ctl >> 8) & 0x3f) != ctz64(STX_LUT_SIZE) ||
             lut > stx_bar_size(s, b) ||
             lut / STX_LUT_SIZE > s->lut_entries)) {
            bar_error |= 1u << b;
        }
        if ((ctl & BAR_DIR_WIN_EN) &&
            (pos < 12 || !size || lut + size > stx_bar_size(s, b) ||
             size > (1ULL << pos))) {
            bar_error |= 1u << b;
        }
    }
    for (i = 0; i < s->lut_entries; i++) {
        uint64_t e = ldq_le_p(c->regs + CTRL_LUT + 8 * i);

        if ((e & LUT_EN) && ((e >> 1) & 0x3f) >= STX_PARTITIONS) {
            if (!lut_error) {
                bad_lut = e;
                bad_lut_idx = i;
            }
            lut_error |= 1;
        }
    }
    stl_le_p(c->regs + CTRL_BAR_ERROR, bar_error);
    stl_le_p(c->regs + CTRL_LUT_ERROR, lut_error);
    if (bar_error || lut_error) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: configuration "
                      "refused (bar_error 0x%x, lut_error 0x%x)\n",
                      TYPE_SWITCHTEC_NTB, c->part, bar_error, lut_error);
        if (lut_error) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: LUT entry %u "
                          "is 0x%" PRIx64 ", partition %u of %u\n",
                          TYPE_SWITCHTEC_NTB, c->part, bad_lut_idx, bad_lut,
                          (unsigned)((bad_lut >> 1) & 0x3f), STX_PARTITIONS);
        }
        return false;
    }

    qemu_mutex_lock(&s->cable.lock);
    for (b = 0; b < 6; b++) {
        uint8_t *e = c->regs + CTRL_BAR_ENTRY + 16 * b;

        c->act_bar_ctl[b] = stx_get32(e);
        c->act_win_size[b] = ((uint64_t)stx_get32(c->regs + CTRL_BAR_EXT +
                                                  16 * b) << 32) |
                             stx_get32(e + 4);
        c->act_xlate[b] = ldq_le_p(e + 8);
    }
    for (i = 0; i < s->lut_entries; i++) {
        c->act_lut[i] = ldq_le_p(c->regs + CTRL_LUT + 8 * i);
    }
    for (i = 0; i < s->req_id_entries; i++) {
        c->act_req_id[i] = stx_get32(c->regs + CTRL_REQ_ID + 4 * i);
    }
    bitmap_zero(s->drop_logged, STX_REQUESTERS);
    s->norid_logged = false;
    qemu_mutex_unlock(&s->cable.lock);
    return true;
}

/* Drop what was written since the last CFG: the entries read as active. */
static void stx_ctrl_drop_staged(SwitchtecNTBState *s, StxCtrl *c)
{
    hwaddr off;

    for (off = CTRL_BAR_ENTRY; off < CTRL_SIZE; off += 4) {
        stl_le_p(c->regs + off, stx_ctrl_reset32(s, off));
    }
    qemu_mutex_lock(&s->cable.lock);
    for (off = 0; off < 6; off++) {
        stl_le_p(c->regs + CTRL_BAR_ENTRY + 16 * off, c->act_bar_ctl[off]);
        stl_le_p(c->regs + CTRL_BAR_ENTRY + 16 * off + 4,
                 c->act_win_size[off]);
        stq_le_p(c->regs + CTRL_BAR_ENTRY + 16 * off + 8, c->act_xlate[off]);
        stl_le_p(c->regs + CTRL_BAR_EXT + 16 * off,
                 c->act_win_size[off] >> 32);
    }
    for (off = 0; off < s->lut_entries; off++) {
        stq_le_p(c->regs + CTRL_LUT + 8 * off, c->act_lut[off]);
    }
    for (off = 0; off < s->req_id_entries; off++) {
        stl_le_p(c->regs + CTRL_REQ_ID + 4 * off, c->act_req_id[off]);
    }
    qemu_mutex_unlock(&s->cable.lock);
}

/* The lock is free: the host waiting for it, if any, now holds it. */
static void stx_ctrl_unlock(StxCtrl *c)
{
    unsigned h;

    c->lock_holder = STX_NO_HOST;
    for (h = 0; h < STX_PARTITIONS; h++) {
        if (c->lock_wait[h]) {
            c->lock_wait[h] = false;
            c->lock_holder = h;
            c->op_status[h] = PART_STATUS_LOCKED;
            return;
        }
    }
}

/*
 * The operation of the host in partition @host ends unfinished: a RESET,
 * or the host is gone (its partition was reset, or its QEMU is). What it
 * wrote since the last CFG is dropped, and the lock passes on.
 */
static void stx_ctrl_abandon(SwitchtecNTBState *s, StxCtrl *c,
                             unsigned host)
{
    c->lock_wait[host] = false;
    c->op_status[host] = PART_STATUS_NORMAL;
    if (c->lock_holder == host) {
        stx_ctrl_drop_staged(s, c);
        stx_ctrl_unlock(c);
    }
}

/*
 * A partition_op write by the host in partition @host. Each operation
 * completes at once (the driver polls every 50 ms), but a LOCK while the
 * other host holds the lock waits for it: the driver has no serialisation
 * across hosts, and both load it at boot.
 */
static void stx_ctrl_op(SwitchtecNTBState *s, StxCtrl *c, unsigned host,
                        uint32_t op)
{
    switch (op) {
    case PART_OP_LOCK:
        if (c->lock_holder == STX_NO_HOST) {
            c->lock_holder = host;
        }
        if (c->lock_holder == host) {
            c->op_status[host] = PART_STATUS_LOCKED;
        } else {
            c->lock_wait[host] = true;
            c->op_status[host] = PART_STATUS_LOCKING;
        }
        break;
    case PART_OP_CFG:
        if (c->lock_holder != host) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: configure by "
                          "the host of partition %u, which does not hold the "
                          "lock, ignored\n", TYPE_SWITCHTEC_NTB, c->part,
                          host);
        } else if (stx_ctrl_configure(s, c)) {
            c->op_status[host] = PART_STATUS_NORMAL;
            stx_ctrl_unlock(c);
        }
        break;
    case PART_OP_RESET:
        stx_ctrl_abandon(s, c, host);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: unknown "
                      "partition_op %u\n", TYPE_SWITCHTEC_NTB, c->part, op);
    }
}

/*
 * A dword write to our control by the host in partition @host (@be: the
 * bytes written). With the BQL.
 */
static void stx_ctrl_write32(SwitchtecNTBState *s, StxCtrl *c, unsigned host,
                             hwaddr off, uint32_t val, uint32_t be)
{
    uint32_t old = stx_get32(c->regs + off);
    uint32_t ro = 0;

    if (off == CTRL_OP) {
        stx_ctrl_op(s, c, host, val & be);
        return;
    }
    if (off < CTRL_BAR_ENTRY || (off >= CTRL_BAR_EXT + 6 * 16 &&
                                 off < CTRL_REQ_ID)) {
        goto refused;
    }
    if (off >= CTRL_REQ_ID && off < CTRL_LUT) {
        if (off >= CTRL_REQ_ID + 4 * s->req_id_entries) {
            goto refused;
        }
        ro = 0x1feu;            /* the proxy ID is the switch's */
    } else if (off >= CTRL_LUT && off >= CTRL_LUT + 8 * s->lut_entries) {
        goto refused;
    } else if (off >= CTRL_BAR_ENTRY && off < CTRL_BAR_EXT &&
               (off - CTRL_BAR_ENTRY) % 16 == 0) {
        ro = BAR_VALID;
    }
    if (c->lock_holder != host) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: control write at "
                      "0x%" HWADDR_PRIx " by the host of partition %u, which "
                      "does not hold the lock, ignored\n",
                      TYPE_SWITCHTEC_NTB, c->part, off, host);
        return;
    }
    be &= ~ro;
    stl_le_p(c->regs + off, (old & ~be) | (val & be));
    return;

refused:
    qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: write to read-only "
                  "control register 0x%" HWADDR_PRIx "\n",
                  TYPE_SWITCHTEC_NTB, c->part, off);
}

static uint64_t stx_byte_mask(unsigned size)
{
    return size == 8 ? ~0ULL : (1ULL << (size * 8)) - 1;
}

/* An access of 1 to 8 bytes to our control, split into dwords. */
static void stx_ctrl_write(SwitchtecNTBState *s, StxCtrl *c, unsigned host,
                           hwaddr off, uint64_t val, unsigned size)
{
    uint64_t mask = stx_byte_mask(size) << ((off & 3) * 8);
    hwaddr base = off & ~3ULL;

    val <<= (off & 3) * 8;
    for (; mask && base < CTRL_SIZE; base += 4, val >>= 32, mask >>= 32) {
        if ((uint32_t)mask) {
            stx_ctrl_write32(s, c, host, base, val, mask);
        }
    }
}

/* A read of our control by the host in partition @host. */
static uint64_t stx_ctrl_read(StxCtrl *c, unsigned host, hwaddr off,
                              unsigned size)
{
    uint8_t tmp[8];
    unsigned i;

    if (off >= CTRL_SIZE || off + size > CTRL_SIZE) {
        return 0;
    }
    memcpy(tmp, c->regs + off, size);
    /* partition_status: the reader's own operation */
    for (i = 0; i < size && off + i < CTRL_STATUS + 4; i++) {
        tmp[i] = c->op_status[host] >> (8 * (off + i - CTRL_STATUS));
    }
    return stx_get(tmp, size);
}

/* The peer partition's control: across the cable. */

static bool stx_peer_present(SwitchtecNTBState *s)
{
    bool p;

    qemu_mutex_lock(&s->cable.lock);
    p = s->peer_present && ntb_cable_connected_locked(&s->cable);
    qemu_mutex_unlock(&s->cable.lock);
    return p;
}

static uint64_t stx_peer_ctrl_read(SwitchtecNTBState *s, hwaddr off,
                                   unsigned size)
{
    uint64_t v = 0;

    if (stx_peer_present(s) &&
        ntb_cable_read(&s->cable, STX_MSG_CTRL_READ, off, size, &v, size)) {
        return le64_to_cpu(v);
    }
    /* No peer (or it went while we asked): what we keep of its partition */
    return stx_ctrl_read(&s->absent_peer_ctrl, s->port, off, size);
}

static void stx_peer_ctrl_write(SwitchtecNTBState *s, hwaddr off,
                                uint64_t val, unsigned size)
{
    uint64_t le = cpu_to_le64(val);

    if (!stx_peer_present(s)) {
        stx_ctrl_write(s, &s->absent_peer_ctrl, s->port, off, val, size);
        return;
    }
    ntb_cable_send(&s->cable, STX_MSG_CTRL_WRITE, off, 0, size, &le, size);
}

/* Doorbells and messages */

static void stx_fire_db(SwitchtecNTBState *s, uint64_t bits)
{
    int b;

    bits &= s->idb_mask;
    for (b = 0; b < DBMSG_MSG_DB; b++) {
        if (bits & (1ULL << b)) {
            stx_notify(s, s->vec_map[b]);
        }
    }
}

static void stx_ring(SwitchtecNTBState *s, uint64_t bits)
{
    s->idb |= bits;
    stx_fire_db(s, bits);
}

static void stx_fire_msg(SwitchtecNTBState *s, unsigned i)
{
    if (s->imsg_status[i] && (s->imsg_mask[i] & 1) &&
        (s->idb_mask & (1ULL << (DBMSG_MSG_DB + i)))) {
        stx_notify(s, s->vec_map[DBMSG_MSG_DB + i]);
    }
}

/* A message from partition @src's outbound register @j. */
static void stx_deliver_msg(SwitchtecNTBState *s, unsigned src, unsigned j,
                            uint32_t msg)
{
    unsigned i;

    for (i = 0; i < DBMSG_MSGS; i++) {
        if (((s->msg_map >> (8 * i)) & 0xff) == (j | (src << 2))) {
            s->imsg[i] = msg;
            s->imsg_status[i] = 1;
            s->imsg_src[i] = src;
            stx_fire_msg(s, i);
            return;
        }
    }
    qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: message from partition "
                  "%u register %u matches no msg_map slot, dropped\n",
                  TYPE_SWITCHTEC_NTB, s->port, src, j);
}

static uint32_t stx_dbmsg_read32(SwitchtecNTBState *s, hwaddr off)
{
    unsigned i;

    switch (off) {
    case DBMSG_ODB_MASK:
    case DBMSG_ODB_MASK + 4:
        return s->odb_mask >> ((off & 4) * 8);
    case DBMSG_IDB:
    case DBMSG_IDB + 4:
        return s->idb >> ((off & 4) * 8);
    case DBMSG_IDB_MASK:
    case DBMSG_IDB_MASK + 4:
        return s->idb_mask >> ((off & 4) * 8);
    case DBMSG_MSG_MAP:
        return s->msg_map;
    }
    if (off >= DBMSG_VEC_MAP && off < DBMSG_MSG_MAP) {
        return ldl_le_p(s->vec_map + off - DBMSG_VEC_MAP);
    }
    if (off >= DBMSG_IMSG && off < DBMSG_IMSG_END) {
        i = (off - DBMSG_IMSG) / 8;
        if (!(off & 4)) {
            return s->imsg[i];
        }
        return s->imsg_status[i] | (s->imsg_mask[i] << 8) |
               (s->imsg_src[i] << 16);
    }
    return 0;                   /* odb, omsg: nothing to read back */
}

static void stx_dbmsg_write32(SwitchtecNTBState *s, hwaddr off, uint32_t val,
                              uint32_t be)
{
    unsigned sh = (off & 4) * 8;
    uint64_t m64 = (uint64_t)be << sh;
    uint64_t v64 = (uint64_t)(val & be) << sh;
    unsigned i;

    switch (off) {
    case DBMSG_ODB:
    case DBMSG_ODB + 4:
        v64 &= s->odb_mask;
        if (v64) {
            uint64_t le = cpu_to_le64(v64);

            if (stx_peer_present(s)) {
                ntb_cable_send(&s->cable, STX_MSG_DB, 0, 0, 0, &le, 8);
            }
        }
        return;
    case DBMSG_ODB_MASK:
    case DBMSG_ODB_MASK + 4:
        s->odb_mask = (s->odb_mask & ~m64) | v64;
        return;
    case DBMSG_IDB:
    case DBMSG_IDB + 4:
        s->idb &= ~v64;
        return;
    case DBMSG_IDB_MASK:
    case DBMSG_IDB_MASK + 4: {
        uint64_t enabled = v64 & ~s->idb_mask;

        s->idb_mask = (s->idb_mask & ~m64) | v64;
        /* Enabling a doorbell that is set fires it. */
        stx_fire_db(s, s->idb & enabled);
        for (i = 0; i < DBMSG_MSGS; i++) {
            if (enabled & (1ULL << (DBMSG_MSG_DB + i))) {
                stx_fire_msg(s, i);
            }
        }
        return;
    }
    case DBMSG_MSG_MAP:
        s->msg_map = (s->msg_map & ~be) | (val & be);
        return;
    }
    if (off >= DBMSG_VEC_MAP && off < DBMSG_MSG_MAP) {
        for (i = 0; i < 4; i++) {
            if (be & (0xffu << (8 * i))) {
                s->vec_map[off - DBMSG_VEC_MAP + i] = val >> (8 * i);
            }
        }
        return;
    }
    if (off >= DBMSG_OMSG && off < DBMSG_IMSG) {
        i = (off - DBMSG_OMSG) / 8;
        if (!(off & 4) && be == 0xffffffffu && stx_peer_present(s)) {
            ntb_cable_send(&s->cable, STX_MSG_MSG, i, 0, val, NULL, 0);
        }
        return;
    }
    if (off >= DBMSG_IMSG && off < DBMSG_IMSG_END) {
        i = (off - DBMSG_IMSG) / 8;
        if (!(off & 4)) {
            return;                     /* the message itself: read-only */
        }
        if ((be & 0xff) && (val & 1)) {
            s->imsg_status[i] = 0;
        }
        if (be & 0xff00) {
            s->imsg_mask[i] = (val >> 8) & 1;
            stx_fire_msg(s, i);
        }
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: write to read-only "
                  "doorbell/message register 0x%" HWADDR_PRIx "\n",
                  TYPE_SWITCHTEC_NTB, s->port, off);
}

/* The rest of the GAS: dwords (reads of 1 to 8 bytes assemble them) */

static uint32_t stx_sys_info_read32(SwitchtecNTBState *s, hwaddr off)
{
    uint8_t b[4] = { 0 };
    const char *vendor = STX_VENDOR_STR;
    const char *product = STX_PRODUCT_STR;
    unsigned i;

    switch (off) {
    case 0x00:
        return STX_DEVICE_PFX32XG3;     /* device_id */
    case 0x04:
        return 0x00000006;              /* device_version: RevB */
    case 0x08:
        return 0x03070000;              /* firmware_version 3.70 */
    case 0x0c + 0x08:                   /* gen3.table_format_version */
        return 1;
    case 0x18:
        return s->port;                 /* gen3.partition_id */
    case 0x20:                          /* gen3 cfg_running, img_running */
        return 0x04 | (0x03 << 16);
    case 0x12c:                         /* component_id, revision */
        return STX_DEVICE_PFX32XG3 | (1 << 16);
    }
    for (i = 0; i < 4; i++) {
        hwaddr o = off + i;

        if (o >= 0x108 && o < 0x110 && o - 0x108 < strlen(vendor)) {
            b[i] = vendor[o - 0x108];
        } else if (o >= 0x110 && o < 0x120 && o - 0x110 < strlen(product)) {
            b[i] = product[o - 0x110];
        } else if (o >= 0x120 && o < 0x124) {
            b[i] = "B   "[o - 0x120];
        } else if (o >= 0x124 && o < 0x12c && o - 0x124 < strlen(vendor)) {
            b[i] = vendor[o - 0x124];
        }
    }
    return ldl_le_p(b);
}

static uint32_t stx_part_cfg_read32(SwitchtecNTBState *s, unsigned part,
                                    hwaddr off)
{
    if (part >= STX_PARTITIONS) {
        return 0;
    }
    switch (off) {
    case 0x00:                          /* status: active */
        return 1;
    case 0x08:                          /* port_cnt */
        return STX_PFF_PER_PART;
    case PART_USP_PFF:
        return part * STX_PFF_PER_PART;
    case PART_VEP_PFF:
        return part * STX_PFF_PER_PART + 1;
    case PART_VECTORS:                  /* vep and usp vector numbers */
        return STX_EVENT_VECTOR;
    }
    if (off >= PART_DSP_PFF && off < PART_DSP_PFF_END) {
        return 0xffffffffu;             /* no downstream ports */
    }
    if (part == s->port && off >= PART_EVENT_HDR0 &&
        off < PART_EVENT_HDR0 + PART_EVENT_COUNT * 0x18 &&
        (off - PART_EVENT_HDR0) % 0x18 == 0) {
        return s->part_event[(off - PART_EVENT_HDR0) / 0x18];
    }
    return 0;
}

static uint32_t stx_pff_read32(SwitchtecNTBState *s, unsigned pff, hwaddr off)
{
    bool up;

    if (pff >= STX_PFF_COUNT) {
        return 0;
    }
    switch (off) {
    case 0x00:
        return STX_VENDOR_MICROSEMI | (STX_DEVICE_PFX32XG3 << 16);
    case 0x08:                          /* revision 0, bridge class */
        return 0x06040000;
    case PFF_LINK_STA:
        up = pff / STX_PFF_PER_PART == s->port || s->peer_present;
        return up ? PFF_LINK_STA_UP : 0;
    }
    if (off >= PFF_EVENT_HDR0 && off < PFF_EVENT_HDR0 + PFF_EVENT_COUNT * 0x18
        && (off - PFF_EVENT_HDR0) % 0x18 == 0) {
        return s->pff_event[pff][(off - PFF_EVENT_HDR0) / 0x18];
    }
    return 0;
}

static uint32_t stx_info_read32(SwitchtecNTBState *s, hwaddr off,
                                MemTxAttrs attrs)
{
    unsigned p;

    switch (off) {
    case 0x00:                          /* partition_count, partition_id */
        return STX_PARTITIONS | (s->port << 8);
    case INFO_EP_MAP:                   /* both partitions are NT */
        return (1u << STX_PARTITIONS) - 1;
    case INFO_REQUESTER_ID:
        /* The requester ID of this very read, as the switch captured it. */
        return attrs.unspecified ? 0 : attrs.requester_id;
    }
    if (off >= INFO_NTP && off < INFO_NTP + 16 * STX_PARTITIONS) {
        p = (off - INFO_NTP) / 16;
        if ((off & 0xf) == 4) {         /* target_part_low: the other one */
            return 1u << (p ^ 1);
        }
    }
    return 0;
}

/* One dword of the GAS outside MRPC data, the control and dbmsg regions. */
static uint32_t stx_gas_read32(SwitchtecNTBState *s, hwaddr off,
                               MemTxAttrs attrs)
{
    if (off >= GAS_MRPC + MRPC_CMD && off < GAS_MRPC + MRPC_END) {
        switch (off - GAS_MRPC) {
        case MRPC_CMD:
            return s->mrpc_cmd;
        case MRPC_STATUS:
            return s->mrpc_status;
        case MRPC_RET_VALUE:
            return s->mrpc_ret;
        }
        return 0;                       /* dma_ver 0: no DMA MRPC */
    }
    if (off >= GAS_MRPC + MRPC_PAYLOAD && off < GAS_MRPC + MRPC_CMD) {
        return ldl_le_p(s->mrpc_out + off - GAS_MRPC - MRPC_PAYLOAD);
    }
    if (off < GAS_MRPC + MRPC_PAYLOAD) {
        return ldl_le_p(s->mrpc_in + off - GAS_MRPC);
    }
    if (off >= GAS_SW_EVENT && off < GAS_SW_EVENT + SW_EVENT_SIZE) {
        off -= GAS_SW_EVENT;
        if (off >= SW_EVENT_HDR0 && (off - SW_EVENT_HDR0) % 0x18 == 0) {
            return s->sw_event[(off - SW_EVENT_HDR0) / 0x18];
        }
        return 0;
    }
    if (off >= GAS_SYS_INFO && off < GAS_SYS_INFO + SYS_INFO_SIZE) {
        return stx_sys_info_read32(s, off - GAS_SYS_INFO);
    }
    if (off >= GAS_PART_CFG && off < GAS_NTB) {
        return stx_part_cfg_read32(s, (off - GAS_PART_CFG) / PART_CFG_SIZE,
                                   (off - GAS_PART_CFG) % PART_CFG_SIZE);
    }
    if (off >= GAS_NTB && off < GAS_NTB + INFO_SIZE) {
        return stx_info_read32(s, off - GAS_NTB, attrs);
    }
    if (off >= GAS_PFF_CSR) {
        return stx_pff_read32(s, (off - GAS_PFF_CSR) / PFF_SIZE,
                              (off - GAS_PFF_CSR) % PFF_SIZE);
    }
    return 0;
}

static uint32_t *stx_event_hdr(SwitchtecNTBState *s, hwaddr off)
{
    hwaddr o;
    unsigned n;

    if (off >= GAS_SW_EVENT + SW_EVENT_HDR0 &&
        off < GAS_SW_EVENT + SW_EVENT_HDR0 + SW_EVENT_COUNT * 0x18) {
        o = off - GAS_SW_EVENT - SW_EVENT_HDR0;
        return o % 0x18 ? NULL : &s->sw_event[o / 0x18];
    }
    o = GAS_PART_CFG + s->port * PART_CFG_SIZE + PART_EVENT_HDR0;
    if (off >= o && off < o + PART_EVENT_COUNT * 0x18) {
        return (off - o) % 0x18 ? NULL : &s->part_event[(off - o) / 0x18];
    }
    if (off >= GAS_PFF_CSR && off < GAS_PFF_CSR + STX_PFF_COUNT * PFF_SIZE) {
        n = (off - GAS_PFF_CSR) / PFF_SIZE;
        o = (off - GAS_PFF_CSR) % PFF_SIZE;
        if (o >= PFF_EVENT_HDR0 && o < PFF_EVENT_HDR0 + PFF_EVENT_COUNT * 0x18
            && (o - PFF_EVENT_HDR0) % 0x18 == 0) {
            return &s->pff_event[n][(o - PFF_EVENT_HDR0) / 0x18];
        }
    }
    return NULL;
}

/*
 * MRPC: neither driver issues a command of its own (switchtec.c passes
 * what user space writes to the character device); the model completes
 * every command at once as unsupported, and raises MRPC completion.
 */
static void stx_mrpc_run(SwitchtecNTBState *s, uint32_t cmd)
{
    s->mrpc_cmd = cmd;
    memset(s->mrpc_out, 0, sizeof(s->mrpc_out));
    qemu_log_mask(LOG_UNIMP, "%s: partition %u: MRPC command 0x%x not "
                  "modelled\n", TYPE_SWITCHTEC_NTB, s->port, cmd);
    s->mrpc_status = MRPC_STATUS_ERROR;
    s->mrpc_ret = 0xffffffffu;
    stx_event(s, &s->part_event[PART_EVENT_MRPC_COMP]);
}

static void stx_gas_write32(SwitchtecNTBState *s, hwaddr off, uint32_t val,
                            uint32_t be)
{
    uint32_t *hdr;

    if (off < GAS_MRPC + MRPC_PAYLOAD) {
        uint32_t old = ldl_le_p(s->mrpc_in + off - GAS_MRPC);

        stl_le_p(s->mrpc_in + off - GAS_MRPC, (old & ~be) | (val & be));
        return;
    }
    if (off == GAS_MRPC + MRPC_CMD) {
        stx_mrpc_run(s, val);
        return;
    }
    hdr = stx_event_hdr(s, off);
    if (hdr) {
        stx_event_write(hdr, val & be);
        return;
    }
    if (off < GAS_MRPC + MRPC_END) {
        return;                         /* dma_en, dma_addr: no DMA MRPC */
    }
    qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: write of 0x%x to "
                  "read-only or unmodelled GAS register 0x%" HWADDR_PRIx "\n",
                  TYPE_SWITCHTEC_NTB, s->port, val, off);
}

/* Which partition's control or dbmsg region @off is in, or -1. */
static int stx_region(hwaddr off, hwaddr base, hwaddr size, hwaddr *rel)
{
    if (off < base || off >= base + STX_PARTITIONS * size) {
        return -1;
    }
    *rel = (off - base) % size;
    return (off - base) / size;
}

static MemTxResult stx_gas_read(void *opaque, hwaddr addr, uint64_t *data,
                                unsigned size, MemTxAttrs attrs)
{
    SwitchtecNTBState *s = opaque;
    uint8_t buf[12];
    hwaddr rel = 0, base = addr & ~3ULL;
    unsigned i;
    int p;

    p = stx_region(addr, GAS_NTB_CTRL, CTRL_SIZE, &rel);
    if (p >= 0) {
        *data = p == s->port ? stx_ctrl_read(&s->ctrl, s->port, rel, size)
                             : stx_peer_ctrl_read(s, rel, size);
        return MEMTX_OK;
    }
    for (i = 0; i < 12; i += 4) {
        uint32_t v;

        p = stx_region(base + i, GAS_NTB_DBMSG, DBMSG_SIZE, &rel);
        if (p == s->port) {
            v = stx_dbmsg_read32(s, rel);
        } else if (p >= 0) {
            v = 0;      /* the peer's dbmsg: not reachable, see the spec */
        } else {
            v = stx_gas_read32(s, base + i, attrs);
        }
        stl_le_p(buf + i, v);
    }
    *data = stx_get(buf + (addr & 3), size);
    return MEMTX_OK;
}

static MemTxResult stx_gas_write(void *opaque, hwaddr addr, uint64_t data,
                                 unsigned size, MemTxAttrs attrs)
{
    SwitchtecNTBState *s = opaque;
    uint64_t mask = stx_byte_mask(size) << ((addr & 3) * 8);
    uint64_t val = data << ((addr & 3) * 8);
    hwaddr rel = 0, base = addr & ~3ULL;
    int p;

    p = stx_region(addr, GAS_NTB_CTRL, CTRL_SIZE, &rel);
    if (p >= 0) {
        if (p == s->port) {
            stx_ctrl_write(s, &s->ctrl, s->port, rel, data, size);
        } else {
            stx_peer_ctrl_write(s, rel, data, size);
        }
        return MEMTX_OK;
    }
    for (; mask; base += 4, val >>= 32, mask >>= 32) {
        if (!(uint32_t)mask) {
            continue;
        }
        p = stx_region(base, GAS_NTB_DBMSG, DBMSG_SIZE, &rel);
        if (p == s->port) {
            stx_dbmsg_write32(s, rel, val, mask);
        } else if (p >= 0) {
            qemu_log_mask(LOG_UNIMP, "%s: partition %u: write to the dbmsg "
                          "registers of partition %d not modelled\n",
                          TYPE_SWITCHTEC_NTB, s->port, p);
        } else {
            stx_gas_write32(s, base, val, mask);
        }
    }
    return MEMTX_OK;
}

static const MemoryRegionOps stx_gas_ops = {
    .read_with_attrs = stx_gas_read,
    .write_with_attrs = stx_gas_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8,
               .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8,
              .unaligned = true },
};

/* Windows (BAR 2 and BAR 4): the sending side */

/*
 * Translate an access at @off of @bar for @requester: the bus address on
 * the peer and the proxy devfn it goes out with, and in *@room the bytes
 * from @off that the same translation covers (to the end of its LUT entry
 * or direct window). False when the switch drops it, logged once per
 * requester until the windows or table change.
 */
static bool stx_translate(SwitchtecNTBState *s, int bar, hwaddr off,
                          uint16_t requester, uint64_t *wire, uint64_t *room)
{
    uint32_t ctl;
    uint64_t lut, ws, size, x, bus = 0;
    unsigned part = STX_PARTITIONS, i;
    int entry = -1;
    bool ok = false, log;

    qemu_mutex_lock(&s->cable.lock);
    ctl = s->ctrl.act_bar_ctl[bar];
    lut = stx_lut_span(ctl);
    if (off < lut) {
        uint64_t e = s->ctrl.act_lut[off / STX_LUT_SIZE];

        if (e & LUT_EN) {
            part = (e >> 1) & 0x3f;
            bus = (e & ~(uint64_t)(STX_LUT_SIZE - 1)) +
                  (off & (STX_LUT_SIZE - 1));
            *room = STX_LUT_SIZE - (off & (STX_LUT_SIZE - 1));
            ok = true;
        }
    } else if (ctl & BAR_DIR_WIN_EN) {
        ws = s->ctrl.act_win_size[bar];
        size = ws & ~0xfffULL;
        x = s->ctrl.act_xlate[bar];
        if (off - lut < size) {
            part = x & 0x3f;
            bus = (x & ~((1ULL << (ws & 0x3f)) - 1)) + (off - lut);
            *room = size - (off - lut);
            ok = true;
        }
    }
    for (i = 0; ok && i < s->req_id_entries; i++) {
        if ((s->ctrl.act_req_id[i] & REQ_ID_EN) &&
            (s->ctrl.act_req_id[i] >> 16) == requester) {
            entry = i;
            break;
        }
    }
    log = (!ok || part != stx_peer_part(s) || entry < 0) &&
          !test_and_set_bit(requester, s->drop_logged);
    qemu_mutex_unlock(&s->cable.lock);

    if (!ok || part != stx_peer_part(s)) {
        if (!log) {
            return false;
        }
        qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: access at BAR%d + "
                      "0x%" HWADDR_PRIx " outside any open window, dropped\n",
                      TYPE_SWITCHTEC_NTB, s->port, bar, off);
        return false;
    }
    if (entry < 0) {
        if (!log) {
            return false;
        }
        qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: requester "
                      "%02x:%02x.%x not in the requester ID table, access at "
                      "BAR%d + 0x%" HWADDR_PRIx " dropped\n",
                      TYPE_SWITCHTEC_NTB, s->port, requester >> 8,
                      PCI_SLOT(requester & 0xff), PCI_FUNC(requester & 0xff),
                      bar, off);
        return false;
    }
    *wire = ((uint64_t)stx_req_id_proxy(entry) << STX_WIRE_DEVFN_SHIFT) |
            (bus & STX_WIRE_ADDR_MASK);
    return true;
}

/*
 * Does the access carry a requester ID? A CPU's does (TCG gives it the
 * CPU's attributes, requester ID 0: the root complex), a device's DMA its
 * function's (qemu/patches/pci-dma-requester-id.patch). One without is a
 * device model QEMU left untagged: on PCIe every request has one, and the
 * table would have judged it. Dropped, logged once until the windows or
 * the table change.
 */
static bool stx_tagged(SwitchtecNTBState *s, MemTxAttrs attrs, int bar,
                       hwaddr off, bool is_write)
{
    bool log;

    if (!attrs.unspecified) {
        return true;
    }
    qemu_mutex_lock(&s->cable.lock);
    log = !s->norid_logged;
    s->norid_logged = true;
    qemu_mutex_unlock(&s->cable.lock);
    if (log) {
        warn_report("%s: partition %u: dropped %s with no requester ID at "
                    "BAR%d + 0x%" HWADDR_PRIx ": a device model's untagged "
                    "DMA", TYPE_SWITCHTEC_NTB, s->port,
                    is_write ? "write" : "read", bar, off);
    }
    return false;
}

static bool stx_refuse_in_rx(SwitchtecNTBState *s, int bar, hwaddr off)
{
    if (ntb_cable_in_rx()) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: inbound access "
                      "into a window (BAR%d + 0x%" HWADDR_PRIx ") refused\n",
                      TYPE_SWITCHTEC_NTB, s->port, bar, off);
        return true;
    }
    return false;
}

static MemTxResult stx_win_read(void *opaque, hwaddr addr, uint64_t *data,
                                unsigned size, MemTxAttrs attrs)
{
    StxWindow *w = opaque;
    SwitchtecNTBState *s = w->s;
    uint64_t wire, room;

    /* A dropped read fails as one across the cable (ntb-cable.h) */
    *data = ~0ULL;
    if (stx_refuse_in_rx(s, w->bar, addr) ||
        !stx_tagged(s, attrs, w->bar, addr, false) || !stx_peer_present(s) ||
        !stx_translate(s, w->bar, addr, attrs.requester_id, &wire, &room)) {
        return MEMTX_ERROR;
    }
    room = MIN(room, memory_region_read_extent(&s->win_mr[w - s->win], addr));
    return ntb_cable_mem_read(&s->cable, wire, size, room, data);
}

static MemTxResult stx_win_write(void *opaque, hwaddr addr, uint64_t data,
                                 unsigned size, MemTxAttrs attrs)
{
    StxWindow *w = opaque;
    SwitchtecNTBState *s = w->s;
    uint64_t wire, room, le = cpu_to_le64(data);

    ntb_cable_ra_drop(&s->cable);
    if (stx_refuse_in_rx(s, w->bar, addr) ||
        !stx_tagged(s, attrs, w->bar, addr, true) || !stx_peer_present(s) ||
        !stx_translate(s, w->bar, addr, attrs.requester_id, &wire, &room)) {
        return MEMTX_OK;
    }
    /* value: the store's size, so the peer can split a merged run */
    ntb_cable_send(&s->cable, NTB_CABLE_MSG_MEM_WRITE, wire, 0, size, &le,
                   size);
    return MEMTX_OK;
}

static const MemoryRegionOps stx_win_ops = {
    .read_with_attrs = stx_win_read,
    .write_with_attrs = stx_win_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* The receiving side */

/*
 * The address space a request from proxy @devfn on our NT endpoint's bus
 * goes through: the IOMMU's for that requester ID, as
 * pci_device_iommu_address_space() finds it for a device (on a PCIe path;
 * the aliasing of conventional PCI bridges is not modelled).
 */
static AddressSpace *stx_proxy_as(SwitchtecNTBState *s, uint8_t devfn)
{
    PCIBus *bus = pci_get_bus(PCI_DEVICE(s));
    PCIBus *iommu_bus = bus;

    while (iommu_bus && !iommu_bus->iommu_fn && iommu_bus->parent_dev) {
        iommu_bus = pci_get_bus(iommu_bus->parent_dev);
    }
    if (!pci_bus_bypass_iommu(bus) && iommu_bus && iommu_bus->iommu_fn) {
        return iommu_bus->iommu_fn(bus, iommu_bus->iommu_opaque, devfn);
    }
    return &address_space_memory;
}

/*
 * Where an inbound MEM_* (a @len byte @what) goes; false if our NT
 * endpoint may not master.
 */
static bool stx_inbound(SwitchtecNTBState *s, uint64_t wire, uint32_t len,
                        const char *what, AddressSpace **as, dma_addr_t *da,
                        MemTxAttrs *attrs)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint8_t devfn = wire >> STX_WIRE_DEVFN_SHIFT;

    if (!(pci_get_word(pdev->config + PCI_COMMAND) & PCI_COMMAND_MASTER)) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: inbound %s of "
                      "0x%" PRIx64 " (%u bytes) with bus mastering off, "
                      "dropped\n", TYPE_SWITCHTEC_NTB, s->port, what,
                      (uint64_t)(wire & STX_WIRE_ADDR_MASK), len);
        return false;
    }
    *as = stx_proxy_as(s, devfn);
    *da = wire & STX_WIRE_ADDR_MASK;
    *attrs = (MemTxAttrs) {
        .requester_id = PCI_BUILD_BDF(pci_dev_bus_num(pdev), devfn),
    };
    return true;
}

static void stx_hello_fill(SwitchtecNTBState *s, StxHello *h)
{
    h->bar_size[0] = cpu_to_le64(s->bar_size[0]);
    h->bar_size[1] = cpu_to_le64(s->bar_size[1]);
    h->lut_entries = cpu_to_le32(s->lut_entries);
    h->req_id_entries = cpu_to_le32(s->req_id_entries);
}

static void stx_handle_hello(SwitchtecNTBState *s, NtbCableHdr *h,
                             uint8_t *payload)
{
    StxHello mine;

    stx_hello_fill(s, &mine);
    if (h->value != stx_peer_part(s) || h->len != sizeof(mine) ||
        memcmp(payload, &mine, sizeof(mine))) {
        error_report("%s: partition %u: the peer is partition %u or has "
                     "other properties (bar2-size, bar4-size, lut-entries, "
                     "req-id-entries); not cabled", TYPE_SWITCHTEC_NTB,
                     s->port, h->value);
        return;
    }
    qemu_mutex_lock(&s->cable.lock);
    s->peer_present = true;
    qemu_mutex_unlock(&s->cable.lock);
    /*
     * A HELLO while present is the peer's reset: its links went and came,
     * and its host's operation on our partition, if any, ended with it.
     * Else the peer's host is back: its partition, reset as it came, is
     * its device's from now on, and what we kept of it is gone.
     */
    stx_ctrl_abandon(s, &s->ctrl, stx_peer_part(s));
    stx_ctrl_reset(s, &s->absent_peer_ctrl);
    stx_peer_link_event(s);
}

/*
 * May @h, from the other partition of this QEMU, be performed by its
 * sender (ntb-cable.c)? Doorbells, messages and control are registers of
 * the one switch; a window write may be if it lands in RAM or is dropped:
 * into a device's registers it could make the device wait on the cable or
 * on the sender.
 */
static bool stx_immediate(void *opaque, const NtbCableHdr *h)
{
    SwitchtecNTBState *s = opaque;
    PCIDevice *pdev = PCI_DEVICE(s);
    AddressSpace *as;
    MemTxAttrs attrs;
    dma_addr_t da;

    switch (h->type) {
    case STX_MSG_CTRL_WRITE:
    case STX_MSG_DB:
    case STX_MSG_MSG:
        return true;
    case NTB_CABLE_MSG_MEM_WRITE:
        /* Checked first: stx_inbound() logs a drop */
        if (!s->peer_present ||
            !(pci_get_word(pdev->config + PCI_COMMAND) & PCI_COMMAND_MASTER)) {
            return true;
        }
        return stx_inbound(s, h->addr, h->len, "write", &as, &da, &attrs) &&
               ntb_cable_dma_is_ram(as, da, h->len, true, attrs);
    }
    return false;
}

static void stx_handle(void *opaque, NtbCableHdr *h, uint8_t *payload)
{
    SwitchtecNTBState *s = opaque;
    AddressSpace *as;
    MemTxAttrs attrs;
    dma_addr_t da;
    uint64_t v;

    switch (h->type) {
    case STX_MSG_HELLO:
        stx_handle_hello(s, h, payload);
        break;
    case STX_MSG_CTRL_READ:
        if (h->value < 1 || h->value > 8) {
            v = ~0ULL;
            ntb_cable_reply(&s->cable, h, false, &v, 8);
            break;
        }
        v = cpu_to_le64(stx_ctrl_read(&s->ctrl, stx_peer_part(s), h->addr,
                                      h->value));
        ntb_cable_reply(&s->cable, h, true, &v, h->value);
        break;
    case STX_MSG_CTRL_WRITE:
        if (h->len >= 1 && h->len <= 8 && h->addr < CTRL_SIZE) {
            v = 0;
            memcpy(&v, payload, h->len);
            stx_ctrl_write(s, &s->ctrl, stx_peer_part(s), h->addr,
                           le64_to_cpu(v), h->len);
        }
        break;
    case STX_MSG_DB:
        if (h->len == 8 && s->peer_present) {
            stx_ring(s, ldq_le_p(payload));
        }
        break;
    case STX_MSG_MSG:
        if (h->addr < DBMSG_MSGS && s->peer_present) {
            stx_deliver_msg(s, stx_peer_part(s), h->addr, h->value);
        }
        break;
    case NTB_CABLE_MSG_MEM_WRITE:
        if (s->peer_present &&
            stx_inbound(s, h->addr, h->len, "write", &as, &da, &attrs)) {
            ntb_cable_dma_write(as, da, payload, h->len, h->value, attrs);
        }
        break;
    case NTB_CABLE_MSG_MEM_READ: {
        uint32_t want = MIN(h->value & NTB_CABLE_READ_LEN_MASK,
                            NTB_CABLE_MAX_PAYLOAD);
        g_autofree uint8_t *buf = NULL;
        bool ok = false;

        if (s->peer_present &&
            stx_inbound(s, h->addr, want, "read", &as, &da, &attrs)) {
            want = ntb_cable_read_ahead_len(as, da, want, h->value,
                                            NTB_CABLE_READ_AHEAD_MAX, attrs);
            buf = g_malloc(want);
            ok = ntb_cable_dma(as, da, buf, want, DMA_DIRECTION_TO_DEVICE,
                               attrs) == MEMTX_OK;
        } else {
            buf = g_malloc(want);
        }
        if (!ok) {
            memset(buf, 0xff, want);
        }
        ntb_cable_reply(&s->cable, h, ok, buf, want);
        break;
    }
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: partition %u: unknown message "
                      "type %u\n", TYPE_SWITCHTEC_NTB, s->port, h->type);
    }
}

static void stx_connected_locked(void *opaque)
{
    SwitchtecNTBState *s = opaque;
    StxHello hello;

    stx_hello_fill(s, &hello);
    ntb_cable_enqueue_locked(&s->cable, STX_MSG_HELLO, 0, 0, s->port, &hello,
                             sizeof(hello));
}

static void stx_disconnected(void *opaque)
{
    SwitchtecNTBState *s = opaque;

    qemu_mutex_lock(&s->cable.lock);
    s->peer_present = false;
    qemu_mutex_unlock(&s->cable.lock);
    /* Its partition went with its host: from now on we keep it, as reset. */
    stx_ctrl_abandon(s, &s->ctrl, stx_peer_part(s));
    stx_ctrl_reset(s, &s->absent_peer_ctrl);
    stx_peer_link_event(s);
}

static bool stx_may_read_locked(void *opaque)
{
    return true;
}

static const NtbCableOps stx_cable_ops = {
    .connected_locked = stx_connected_locked,
    .handle = stx_handle,
    .disconnected = stx_disconnected,
    .may_read_locked = stx_may_read_locked,
    .immediate = stx_immediate,
};

static bool stx_is_pow2_ge(uint64_t v, uint64_t min)
{
    return v >= min && is_power_of_2(v);
}

/*
 * Is another NT endpoint of ours on @pdev's bus? A switch's NT endpoint
 * is on a bus of its own below the switch's upstream port, and its proxy
 * IDs (STX_PROXY_DEVFN0) are devfns on that bus: two on one bus would
 * alias each other's requests, which no two real switches do.
 */
static bool stx_bus_has_other(PCIDevice *pdev)
{
    PCIBus *bus = pci_get_bus(pdev);
    int devfn;

    for (devfn = 0; devfn < ARRAY_SIZE(bus->devices); devfn++) {
        PCIDevice *other = bus->devices[devfn];

        if (other && other != pdev &&
            object_dynamic_cast(OBJECT(other), TYPE_SWITCHTEC_NTB)) {
            return true;
        }
    }
    return false;
}

static void stx_realize(PCIDevice *pdev, Error **errp)
{
    SwitchtecNTBState *s = SWITCHTEC_NTB(pdev);
    uint8_t bar_flags = PCI_BASE_ADDRESS_SPACE_MEMORY |
                        PCI_BASE_ADDRESS_MEM_TYPE_64 |
                        PCI_BASE_ADDRESS_MEM_PREFETCH;
    hwaddr dbmsg = GAS_NTB_DBMSG + s->port * DBMSG_SIZE;
    int i;

    if (s->port >= STX_PARTITIONS) {
        error_setg(errp, "port (the partition) must be 0 or 1");
        return;
    }
    for (i = 0; i < 2; i++) {
        if (!stx_is_pow2_ge(s->bar_size[i], 4 * MiB)) {
            error_setg(errp, "bar%d-size must be a power of two >= 4 MiB",
                       2 + 2 * i);
            return;
        }
    }
    if (!s->lut_entries || s->lut_entries > STX_LUT_MAX ||
        !is_power_of_2(s->lut_entries) ||
        s->lut_entries * STX_LUT_SIZE > s->bar_size[0] / 2) {
        error_setg(errp, "lut-entries must be a power of two, 1..%d, and "
                   "take at most half of BAR 2", STX_LUT_MAX);
        return;
    }
    if (!s->req_id_entries || s->req_id_entries > STX_REQ_ID_MAX) {
        error_setg(errp, "req-id-entries must be 1..%d", STX_REQ_ID_MAX);
        return;
    }
    if (stx_bus_has_other(pdev)) {
        error_setg(errp, "another switchtec-ntb is on this bus: each NT "
                   "endpoint needs a bus of its own (its proxy IDs are "
                   "devfns on it), so put each behind a root port");
        return;
    }
    if (!ntb_cable_check_peer(&s->cable, DEVICE(s),
                              s->peer ? DEVICE(s->peer) : NULL,
                              s->peer ? &s->peer->cable : NULL,
                              s->peer && s->peer->peer, errp) ||
        !ntb_cable_init(&s->cable, TYPE_SWITCHTEC_NTB, s->port,
                        &stx_cable_ops, s, errp)) {
        return;
    }

    pdev->config[PCI_INTERRUPT_PIN] = 0;
    if (pcie_endpoint_cap_init(pdev, 0x40) < 0) {
        error_setg(errp, "cannot add the PCIe capability");
        goto fail;
    }
    memory_region_init_io(&s->gas, OBJECT(s), &stx_gas_ops, s,
                          "switchtec-ntb-gas", GAS_SIZE);
    pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY, &s->gas);
    /* The MSI-X table and PBA are in our partition's dbmsg registers. */
    if (msix_init(pdev, STX_VECTORS, &s->gas, 0, dbmsg + DBMSG_MSIX_TABLE,
                  &s->gas, 0, dbmsg + DBMSG_MSIX_PBA, 0, errp)) {
        goto fail;
    }
    for (i = 0; i < STX_VECTORS; i++) {
        msix_vector_use(pdev, i);
    }
    for (i = 0; i < 2; i++) {
        s->win[i] = (StxWindow) { s, 2 + 2 * i };
        memory_region_init_io(&s->win_mr[i], OBJECT(s), &stx_win_ops,
                              &s->win[i], i ? "switchtec-ntb-bar4"
                                            : "switchtec-ntb-bar2",
                              s->bar_size[i]);
        pci_register_bar(pdev, 2 + 2 * i, bar_flags, &s->win_mr[i]);
        /* As for smartio-ntb: waits on the cable drop the BQL. */
        s->win_mr[i].disable_reentrancy_guard = true;
    }
    s->gas.disable_reentrancy_guard = true;

    s->ctrl.part = s->port;
    s->absent_peer_ctrl.part = stx_peer_part(s);
    stx_ctrl_reset(s, &s->ctrl);
    stx_ctrl_reset(s, &s->absent_peer_ctrl);
    if (s->peer) {
        if (!ntb_cable_pair(&s->peer->cable, &s->cable, errp)) {
            goto fail_msix;
        }
        ntb_cable_start(&s->peer->cable);
    }
    ntb_cable_start(&s->cable);
    return;

fail_msix:
    msix_uninit(pdev, &s->gas, &s->gas);
fail:
    ntb_cable_cleanup(&s->cable);
}

static void stx_exit(PCIDevice *pdev)
{
    SwitchtecNTBState *s = SWITCHTEC_NTB(pdev);

    ntb_cable_cleanup(&s->cable);
    msix_uninit(pdev, &s->gas, &s->gas);
}

static void stx_reset(DeviceState *dev)
{
    SwitchtecNTBState *s = SWITCHTEC_NTB(dev);
    StxHello hello;
    unsigned i;

    stx_ctrl_reset(s, &s->ctrl);
    /* Our host's operation on the peer's partition ended with the reset. */
    stx_ctrl_abandon(s, &s->absent_peer_ctrl, s->port);
    memset(s->mrpc_in, 0, sizeof(s->mrpc_in));
    memset(s->mrpc_out, 0, sizeof(s->mrpc_out));
    s->mrpc_cmd = s->mrpc_status = s->mrpc_ret = 0;
    memset(s->sw_event, 0, sizeof(s->sw_event));
    memset(s->part_event, 0, sizeof(s->part_event));
    memset(s->pff_event, 0, sizeof(s->pff_event));
    s->odb_mask = s->idb = s->idb_mask = 0;
    memset(s->vec_map, 0, sizeof(s->vec_map));
    s->msg_map = 0;
    for (i = 0; i < DBMSG_MSGS; i++) {
        s->imsg[i] = s->imsg_status[i] = s->imsg_mask[i] = s->imsg_src[i] = 0;
    }
    msix_reset(PCI_DEVICE(s));

    /* Our partition was reset: tell the peer, whose view of it changed. */
    stx_hello_fill(s, &hello);
    qemu_mutex_lock(&s->cable.lock);
    ntb_cable_enqueue_locked(&s->cable, STX_MSG_HELLO, 0, 0, s->port, &hello,
                             sizeof(hello));
    qemu_mutex_unlock(&s->cable.lock);
}

static void stx_instance_init(Object *obj)
{
    SwitchtecNTBState *s = SWITCHTEC_NTB(obj);

    ntb_cable_instance_init(&s->cable);
}

static const VMStateDescription vmstate_stx = {
    .name = TYPE_SWITCHTEC_NTB,
    .unmigratable = 1,
};

static Property stx_properties[] = {
    DEFINE_PROP_UINT32("port", SwitchtecNTBState, port, 0),
    DEFINE_PROP_LINK("peer", SwitchtecNTBState, peer, TYPE_SWITCHTEC_NTB,
                     SwitchtecNTBState *),
    DEFINE_PROP_STRING("socket", SwitchtecNTBState, cable.socket_path),
    DEFINE_PROP_BOOL("listen", SwitchtecNTBState, cable.listen, false),
    DEFINE_PROP_SIZE("bar2-size", SwitchtecNTBState, bar_size[0], 1 * GiB),
    DEFINE_PROP_SIZE("bar4-size", SwitchtecNTBState, bar_size[1], 1 * GiB),
    DEFINE_PROP_UINT32("lut-entries", SwitchtecNTBState, lut_entries, 32),
    DEFINE_PROP_UINT32("req-id-entries", SwitchtecNTBState, req_id_entries,
                       32),
    DEFINE_PROP_END_OF_LIST(),
};

static void stx_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = stx_realize;
    k->exit = stx_exit;
    k->vendor_id = STX_VENDOR_MICROSEMI;
    k->device_id = STX_DEVICE_PFX32XG3;
    k->revision = 0;
    k->class_id = STX_CLASS_BRIDGE_OTHER;
    dc->desc = "Microsemi Switchtec PFX NTB function (one partition)";
    dc->reset = stx_reset;
    dc->vmsd = &vmstate_stx;
    device_class_set_props(dc, stx_properties);
    set_bit(DEVICE_CATEGORY_BRIDGE, dc->categories);
}

static const TypeInfo stx_info = {
    .name = TYPE_SWITCHTEC_NTB,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(SwitchtecNTBState),
    .instance_init = stx_instance_init,
    .class_init = stx_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void stx_register_types(void)
{
    type_register_static(&stx_info);
}

type_init(stx_register_types)
