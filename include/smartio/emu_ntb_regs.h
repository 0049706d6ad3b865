/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register interface of smartio's emulated NTB ("smartio-ntb"), shared by
 * the QEMU device model (qemu/) and its Linux hardware driver (ntb/). The
 * behaviour behind each register is specified in qemu/smartio-ntb.md.
 *
 * Plain macros only: this header must compile unchanged in QEMU and in the
 * kernel. All registers are little-endian; 32-bit registers take 32-bit
 * accesses, 64-bit ones 64-bit accesses or two 32-bit accesses, low first.
 */
#ifndef _SMARTIO_EMU_NTB_REGS_H
#define _SMARTIO_EMU_NTB_REGS_H

#define SNTB_VENDOR_ID			0x1234
#define SNTB_DEVICE_ID			0x4e54
#define SNTB_CLASS			0x0680	/* bridge, other */

/* BARs */
#define SNTB_BAR_REGS			0	/* 64 KiB, 32-bit MMIO */
#define SNTB_BAR_MSIX			1	/* 4 KiB: MSI-X table and PBA */
#define SNTB_BAR_DIRECT			2	/* 64-bit prefetchable: direct windows */
#define SNTB_BAR_LUT			4	/* 64-bit prefetchable: LUT aperture */
#define SNTB_REGS_SIZE			0x10000

/* Identification and capabilities (read-only) */
#define SNTB_ID				0x000	/* SNTB_MAGIC */
#define SNTB_MAGIC			0x30424e53	/* "SNB0" */
#define SNTB_VERSION			0x004	/* SNTB_VERSION_1 */
#define SNTB_VERSION_1			1
#define SNTB_PORT			0x008
#define  SNTB_PORT_OWN(v)		((v) & 0xff)
#define  SNTB_PORT_PEER(v)		(((v) >> 8) & 0xff)	/* valid with link up */
#define SNTB_CAPS			0x00c
#define  SNTB_CAPS_DB_COUNT(v)		((v) & 0xff)
#define  SNTB_CAPS_SPAD_COUNT(v)	(((v) >> 8) & 0xff)
#define  SNTB_CAPS_DIRECT_COUNT(v)	(((v) >> 16) & 0xff)
#define SNTB_LUT_ENTRIES		0x010	/* number of LUT entries */
#define SNTB_LUT_SHIFT			0x014	/* log2 of a LUT entry's size */
#define SNTB_DIRECT_SHIFT		0x018	/* log2 of a direct window's size */
#define SNTB_RID_ENTRIES		0x01c	/* requester-ID table entries, 0 = none */
#define SNTB_RID_DROPPED		0x02c	/* RO: requests the table dropped */
#define SNTB_WIN_DROPPED		0x040	/* RO: requests no window took */

/* Link */
#define SNTB_LINK_CTRL			0x020	/* RW */
#define  SNTB_LINK_CTRL_ENABLE		0x1
#define SNTB_LINK_STATUS		0x024	/* RO */
#define  SNTB_LINK_STATUS_UP		0x1
#define  SNTB_LINK_STATUS_SPEED(v)	(((v) >> 8) & 0xf)	/* PCIe gen */
#define  SNTB_LINK_STATUS_WIDTH(v)	(((v) >> 16) & 0x3f)	/* lanes */
#define SNTB_LINK_EVENT			0x028	/* W1C */
#define  SNTB_LINK_EVENT_CHANGED	0x1

/* Doorbells: bit n of a 32-bit register is doorbell n */
#define SNTB_DB_STATUS			0x030	/* RW1C: doorbells rung */
#define SNTB_DB_MASK			0x034	/* RW: 1 = no interrupt */
#define SNTB_DB_SET			0x038	/* WO: ring own doorbells */
#define SNTB_PEER_DB_SET		0x03c	/* WO: ring the peer's doorbells */
#define SNTB_DB_COUNT			32

/* Scratchpads: 32 bits each */
#define SNTB_SPAD(n)			(0x100 + 4 * (n))	/* own */
#define SNTB_PEER_SPAD(n)		(0x180 + 4 * (n))	/* the peer's */
#define SNTB_SPAD_COUNT			16

/* Inbound translation of direct window n (written by the receiving side) */
#define SNTB_XLAT_ADDR(n)		(0x200 + 0x10 * (n))	/* 64-bit bus address */
#define SNTB_XLAT_SIZE(n)		(0x208 + 0x10 * (n))	/* 64-bit, 0 = closed */
#define SNTB_DIRECT_MAX			16

/* Outbound lookup table: entry n maps LUT aperture slot n */
#define SNTB_LUT_ADDR(n)		(0x8000 + 0x10 * (n))	/* 64-bit */
#define  SNTB_LUT_ADDR_VALID		0x1ULL	/* address is slot-aligned */
#define SNTB_LUT_PORT(n)		(0x8008 + 0x10 * (n))	/* target port */
#define SNTB_LUT_MAX			2048

/*
 * Requester-ID table (when SNTB_RID_ENTRIES is not 0): a request that enters
 * a window (BAR 2 or BAR 4) from this port's host is forwarded only if its
 * requester is a valid entry; others are dropped (reads return all-ones).
 * Requests of the CPUs count as the root complex's, 0x0000. No table: every
 * requester is forwarded.
 */
#define SNTB_RID(n)			(0x400 + 4 * (n))	/* RW: an allowed requester */
#define  SNTB_RID_VALID			0x80000000
#define  SNTB_RID_ID(v)			((v) & 0xffff)	/* bus << 8 | devfn */
#define SNTB_RID_MAX			64

/* MSI-X vectors */
#define SNTB_VEC_LINK			0
#define SNTB_VEC_DB(n)			(1 + (n))
#define SNTB_VEC_COUNT			(1 + SNTB_DB_COUNT)

#endif /* _SMARTIO_EMU_NTB_REGS_H */
