// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the config-space permissions of a lent function
 * (lib/pci_config.c, include/smartio/pci_config.h): the security boundary
 * between a lender and its borrower.
 *
 * The expectations are written here from the PCI specification's meaning
 * of each bit and what lend/README.md ("Config space") promises, as one
 * of five classes per bit, not from the library's masks:
 *
 *	OWN	the borrower's: a write sets it, on the function and the copy
 *	RO	read-only in hardware: a write is accepted and changes nothing
 *	CLR	write-one-to-clear, the borrower's: 1 clears it, 0 keeps it
 *	LND	the lender's: a write changing it is refused as a whole
 *	LCLR	write-one-to-clear, the lender's: writing 1 is refused
 *
 * Every byte of a function's config space (a fixture with every kind of
 * region) is judged bit by bit against that model, then at every size
 * and offset with random values, so that a straddling write is the
 * composition of its bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <smartio/le.h>
#include <smartio/pci_config.h>

#include "unit.h"

#define N_ELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

enum cls { LND = 0, OWN, RO, CLR, LCLR };

/* --- the fixture: a PCI Express endpoint with one of each region --- */

#define CAP_PM		0x40	/* 8 bytes */
#define CAP_MSI		0x50	/* 64-bit, per-vector masking: 24 bytes */
#define CAP_MSIX	0x70	/* 12 bytes */
#define CAP_EXP		0x80	/* version 2: 0x3c bytes */
#define CAP_VNDR	0xc0	/* its length byte says 12 */
#define GAP_STD		0xcc	/* 4 device-specific bytes */
#define CAP_UNKNOWN	0xd0	/* id 0x30: no spec capability, to the end */
#define ECAP_AER	0x100	/* no length in its registers: to the next */
#define ECAP_SRIOV	0x140	/* 0x40 bytes */
#define ECAP_ACS	0x180
#define ECAP_UNKNOWN	0x1a0	/* id 0x3e */
#define ECAP_VNDR	0x1c0
#define ECAP_DSN	0x200	/* 12 bytes, then nothing to the end */

#define UNKNOWN_ID	0x30
#define UNKNOWN_EXT_ID	0x3e

/* Standard capabilities by offset, and where they end. */
static const struct {
	u16 start, end, id;
} std_caps[] = {
	{ CAP_PM, CAP_PM + 8, PCI_CAP_ID_PM },
	{ CAP_MSI, CAP_MSI + 24, PCI_CAP_ID_MSI },
	{ CAP_MSIX, CAP_MSIX + 12, PCI_CAP_ID_MSIX },
	{ CAP_EXP, CAP_EXP + 0x3c, PCI_CAP_ID_EXP },
	{ CAP_VNDR, CAP_VNDR + 12, PCI_CAP_ID_VNDR },
	{ CAP_UNKNOWN, 0x100, UNKNOWN_ID },
};

static const struct {
	u16 start, end, id;
} ext_caps[] = {
	{ ECAP_AER, ECAP_SRIOV, PCI_EXT_CAP_ID_ERR },
	{ ECAP_SRIOV, ECAP_SRIOV + 0x40, PCI_EXT_CAP_ID_SRIOV },
	{ ECAP_ACS, ECAP_UNKNOWN, PCI_EXT_CAP_ID_ACS },
	{ ECAP_UNKNOWN, ECAP_VNDR, UNKNOWN_EXT_ID },
	{ ECAP_VNDR, ECAP_DSN, PCI_EXT_CAP_ID_VNDR },
	{ ECAP_DSN, ECAP_DSN + 12, PCI_EXT_CAP_ID_DSN },
};

static u8 cfg[PCI_CFG_SPACE_EXP_SIZE];
static struct smartio_config_layout layout;

static void put_ext(u8 *c, u16 pos, u16 id, u16 next)
{
	smartio_put_le32(&c[pos], id | 1U << 16 | (u32)next << 20);
}

static void fixture_fill(u8 *c)
{
	int i;

	memset(c, 0, PCI_CFG_SPACE_EXP_SIZE);
	smartio_put_le16(&c[PCI_VENDOR_ID], 0x8086);
	smartio_put_le16(&c[PCI_DEVICE_ID], 0x5845);
	smartio_put_le16(&c[PCI_COMMAND], PCI_COMMAND_MEMORY |
			 PCI_COMMAND_MASTER);
	smartio_put_le16(&c[PCI_STATUS], PCI_STATUS_CAP_LIST |
			 PCI_STATUS_INTERRUPT);
	smartio_put_le32(&c[PCI_BASE_ADDRESS_0], 0xfe000004);
	smartio_put_le32(&c[PCI_ROM_ADDRESS], 0xfff00001);
	c[PCI_CAPABILITY_LIST] = CAP_PM;
	c[PCI_INTERRUPT_LINE] = 11;
	c[PCI_INTERRUPT_PIN] = 1;

	c[CAP_PM] = PCI_CAP_ID_PM;
	c[CAP_PM + 1] = CAP_MSI;
	smartio_put_le16(&c[CAP_PM + PCI_PM_PMC], 0x0003);
	c[CAP_MSI] = PCI_CAP_ID_MSI;
	c[CAP_MSI + 1] = CAP_MSIX;
	smartio_put_le16(&c[CAP_MSI + PCI_MSI_FLAGS], PCI_MSI_FLAGS_64BIT |
			 PCI_MSI_FLAGS_MASKBIT | 0x0a);	/* 32 vectors */
	c[CAP_MSIX] = PCI_CAP_ID_MSIX;
	c[CAP_MSIX + 1] = CAP_EXP;
	smartio_put_le16(&c[CAP_MSIX + PCI_MSIX_FLAGS], 7);
	smartio_put_le32(&c[CAP_MSIX + PCI_MSIX_PBA], 0x800);
	c[CAP_EXP] = PCI_CAP_ID_EXP;
	c[CAP_EXP + 1] = CAP_VNDR;
	smartio_put_le16(&c[CAP_EXP + PCI_EXP_FLAGS], 2);
	smartio_put_le32(&c[CAP_EXP + PCI_EXP_DEVCAP], PCI_EXP_DEVCAP_FLR | 1);
	smartio_put_le16(&c[CAP_EXP + PCI_EXP_DEVCTL], 0x2000 | 0x0020 |
			 PCI_EXP_DEVCTL_BCR_FLR);	/* 512-byte reads, MPS 256 */
	c[CAP_VNDR] = PCI_CAP_ID_VNDR;
	c[CAP_VNDR + 1] = CAP_UNKNOWN;
	c[CAP_VNDR + 2] = 12;
	c[CAP_UNKNOWN] = UNKNOWN_ID;
	c[CAP_UNKNOWN + 1] = 0;

	for (i = 0; i < N_ELEM(ext_caps); i++)
		put_ext(c, ext_caps[i].start, ext_caps[i].id,
			i + 1 < N_ELEM(ext_caps) ? ext_caps[i + 1].start : 0);
	/* SR-IOV: 4 VFs initially, NumVFs 0 */
	smartio_put_le16(&c[ECAP_SRIOV + PCI_SRIOV_INITIAL_VF], 4);
}

static void fixture(void)
{
	fixture_fill(cfg);
	smartio_config_layout_build(&layout, cfg, sizeof(cfg));
}

/* --- the model: what each bit is, by the spec's meaning --- */

/*
 * A register: @own, @ro, @clr and @lclr bits (the rest: the lender's).
 * @len over 4: a run of bytes alike, each with the masks' low byte.
 */
struct reg {
	u16 off;
	u16 len;
	u32 own, ro, clr, lclr;
};

#define ALL	0xffffffffU

/* Unnamed masks are 0: a register of the lender's names none. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static const struct reg header_regs[] = {
	{ PCI_VENDOR_ID, 4, 0, ALL },
	/* decoding and INTx disable are the lender's, kept whatever is
	 * written (accepted, not changed); bits 11-15 are reserved
	 */
	{ PCI_COMMAND, 2, PCI_COMMAND_MASTER | PCI_COMMAND_SPECIAL |
	  PCI_COMMAND_INVALIDATE | PCI_COMMAND_VGA_PALETTE |
	  PCI_COMMAND_PARITY | PCI_COMMAND_WAIT | PCI_COMMAND_SERR |
	  PCI_COMMAND_FAST_BACK,
	  PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_INTX_DISABLE |
	  0xf800 },
	/* the error bits are RW1C; the rest of status is read-only */
	{ PCI_STATUS, 2, 0, 0x00ff | PCI_STATUS_DEVSEL_MASK,
	  PCI_STATUS_PARITY | PCI_STATUS_SIG_TARGET_ABORT |
	  PCI_STATUS_REC_TARGET_ABORT | PCI_STATUS_REC_MASTER_ABORT |
	  PCI_STATUS_SIG_SYSTEM_ERROR | PCI_STATUS_DETECTED_PARITY },
	{ PCI_CLASS_REVISION, 4, 0, ALL },
	{ PCI_CACHE_LINE_SIZE, 1, 0xff },
	{ PCI_LATENCY_TIMER, 1, 0xff },
	{ PCI_HEADER_TYPE, 1, 0, 0xff },
	/* BIST starts a self test: the lender's */
	{ PCI_BIST, 1 },
	/* BARs, ROM and interrupt line: where the function decodes, the
	 * lender's routing
	 */
	{ PCI_BASE_ADDRESS_0, 24 },
	{ PCI_CARDBUS_CIS, 8, 0, ALL },
	{ PCI_ROM_ADDRESS, 4 },
	{ PCI_CAPABILITY_LIST, 8, 0, ALL },
	{ PCI_INTERRUPT_LINE, 1 },
	{ PCI_INTERRUPT_PIN, 3, 0, ALL },
};

static const struct reg pm_regs[] = {
	{ PCI_PM_PMC, 2, 0, ALL },
	/* power state and PME enable: the lender's; no soft reset, data
	 * scale and reserved bits read-only; data select the borrower's;
	 * PME status RW1C
	 */
	{ PCI_PM_CTRL, 2, PCI_PM_CTRL_DATA_SEL_MASK,
	  PCI_PM_CTRL_NO_SOFT_RESET | PCI_PM_CTRL_DATA_SCALE_MASK | 0x00f4,
	  PCI_PM_CTRL_PME_STATUS },
	{ PCI_PM_PPB_EXTENSIONS, 2, 0, ALL },
};

static const struct reg msi_regs[] = {
	/* enable and multiple message enable are the borrower's; extended
	 * message data enable (bit 10) is not
	 */
	{ PCI_MSI_FLAGS, 2, PCI_MSI_FLAGS_ENABLE | PCI_MSI_FLAGS_QSIZE,
	  PCI_MSI_FLAGS_QMASK | PCI_MSI_FLAGS_64BIT | PCI_MSI_FLAGS_MASKBIT |
	  0x0200 | 0xf800 },
	/* address, upper address, data, mask and pending bits */
	{ PCI_MSI_ADDRESS_LO, 20, 0xff },
};

static const struct reg msix_regs[] = {
	{ PCI_MSIX_FLAGS, 2, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL,
	  PCI_MSIX_FLAGS_QSIZE | 0x3800 },
	{ PCI_MSIX_TABLE, 8, 0, ALL },
};

static const struct reg exp_regs[] = {
	{ PCI_EXP_FLAGS, 2, 0, ALL },
	{ PCI_EXP_DEVCAP, 4, 0, ALL },
	/* error reporting, relaxed ordering, extended tags, aux power, no
	 * snoop, max read request: the borrower's. Max_Payload_Size (the
	 * path's), phantom functions and initiate FLR: the lender's
	 */
	{ PCI_EXP_DEVCTL, 2, 0x000f | PCI_EXP_DEVCTL_RELAX_EN |
	  PCI_EXP_DEVCTL_EXT_TAG | PCI_EXP_DEVCTL_AUX_PME |
	  PCI_EXP_DEVCTL_NOSNOOP_EN | PCI_EXP_DEVCTL_READRQ },
	{ PCI_EXP_DEVSTA, 2, 0, 0xfff0, 0x000f },
	{ PCI_EXP_LNKCAP, 4, 0, ALL },
	/* the link's other end is the lender's port */
	{ PCI_EXP_LNKCTL, 2 },
	{ PCI_EXP_LNKSTA, 2, 0, 0x3fff, 0, PCI_EXP_LNKSTA_LBMS |
	  PCI_EXP_LNKSTA_LABS },
	{ PCI_EXP_SLTCAP, 4, 0, ALL },
	{ PCI_EXP_SLTCTL, 4 },
	{ PCI_EXP_RTCTL, 8 },
	{ PCI_EXP_DEVCAP2, 4, 0, ALL },
	/* completion timeout, AtomicOp requester, IDO: the borrower's; ARI
	 * forwarding, LTR, OBFF, 10-bit tags, blocking: the lender's
	 */
	{ PCI_EXP_DEVCTL2, 2, 0x000f | PCI_EXP_DEVCTL2_COMP_TMOUT_DIS |
	  PCI_EXP_DEVCTL2_ATOMIC_REQ | 0x0100 | 0x0200 },
	{ PCI_EXP_DEVSTA2, 2, 0, ALL },
	{ PCI_EXP_LNKCAP2, 4, 0, ALL },
	{ PCI_EXP_LNKCTL2, 2 },
	{ PCI_EXP_LNKSTA2, 2, 0, ALL },
	/* slot capabilities, control and status 2: the lender's */
	{ PCI_EXP_SLTCAP2, 8 },
};

#pragma GCC diagnostic pop

struct bytemodel {
	u8 own, ro, clr, lclr;
};

static struct bytemodel from_regs(const struct reg *regs, int n, u16 off)
{
	struct bytemodel m = { 0 };
	int i, shift;

	for (i = 0; i < n; i++) {
		if (off < regs[i].off || off >= regs[i].off + regs[i].len)
			continue;
		shift = regs[i].len > 4 ? 0 : 8 * (off - regs[i].off);
		m.own = regs[i].own >> shift;
		m.ro = regs[i].ro >> shift;
		m.clr = regs[i].clr >> shift;
		m.lclr = regs[i].lclr >> shift;
		return m;
	}
	return m;	/* a register no rule names: the lender's */
}

/* What each bit of byte @where of the fixture is. */
static struct bytemodel model(u16 where)
{
	struct bytemodel m = { 0 };
	int i;

	if (where < PCI_STD_HEADER_SIZEOF)
		return from_regs(header_regs, N_ELEM(header_regs), where);
	for (i = 0; i < N_ELEM(std_caps); i++) {
		u16 s = std_caps[i].start;

		if (where < s || where >= std_caps[i].end)
			continue;
		if (where - s < 2) {	/* id and next pointer */
			m.ro = 0xff;
			return m;
		}
		switch (std_caps[i].id) {
		case PCI_CAP_ID_PM:
			return from_regs(pm_regs, N_ELEM(pm_regs), where - s);
		case PCI_CAP_ID_MSI:
			return from_regs(msi_regs, N_ELEM(msi_regs), where - s);
		case PCI_CAP_ID_MSIX:
			return from_regs(msix_regs, N_ELEM(msix_regs),
					 where - s);
		case PCI_CAP_ID_EXP:
			return from_regs(exp_regs, N_ELEM(exp_regs), where - s);
		}
		return m;	/* vendor-specific, unknown: the lender's */
	}
	if (where < PCI_CFG_SPACE_SIZE) {
		m.own = 0xff;	/* device-specific registers */
		return m;
	}
	for (i = 0; i < N_ELEM(ext_caps); i++)
		if (where >= ext_caps[i].start &&
		    where - ext_caps[i].start < 4) {
			m.ro = 0xff;	/* id, version and next */
			return m;
		}
	return m;	/* every extended capability's body, and the rest */
}

/* The value of the bits a write may leave alone without asking anything. */
static u8 neutral(struct bytemodel m, u8 cur)
{
	return cur & ~(m.clr | m.lclr);
}

/*
 * What a byte write of @v over @c does under the model: the bits for the
 * function (@hw), for the copy (@copy); false if it is refused.
 */
static bool model_write(struct bytemodel m, u8 v, u8 c, u8 *hw, u8 *copy)
{
	u8 lnd = ~(m.own | m.ro | m.clr | m.lclr);

	*hw = (v & (m.own | m.clr)) | (c & (m.ro | lnd));
	*copy = (v & m.own) | (c & (m.ro | lnd | m.lclr)) | (c & m.clr & ~v);
	return !((v ^ c) & lnd) && !(v & m.lclr);
}

/* --- every byte, every bit --- */

static const char *cls_name(struct bytemodel m, int bit)
{
	if (m.own & 1 << bit)
		return "the borrower's";
	if (m.ro & 1 << bit)
		return "read-only";
	if (m.clr & 1 << bit)
		return "the borrower's to clear";
	if (m.lclr & 1 << bit)
		return "the lender's to clear";
	return "the lender's";
}

START_TEST(test_every_bit)
{
	static const u8 curs[] = { 0x00, 0xff, 0xa5, 0x5a };
	struct smartio_config_judgement j;
	u8 hw, copy, c, v;
	int where, bit, k, ret;
	bool ok;

	fixture();
	for (where = 0; where < PCI_CFG_SPACE_EXP_SIZE; where++) {
		struct bytemodel m = model(where);

		for (k = 0; k < N_ELEM(curs); k++) {
			c = curs[k];
			/* the current value, less clears: always accepted */
			v = neutral(m, c);
			ret = smartio_config_judge(&layout, where, 1, v, c, &j);
			ck_assert_msg(!ret, "%#x: rewriting %#x over %#x refused",
				      where, v, c);
			ck_assert_uint_eq(j.copy, c);
			ck_assert_int_eq(j.write, (m.own | m.clr) != 0);
			for (bit = 0; bit < 8; bit++) {
				v = neutral(m, c) ^ 1 << bit;
				ok = model_write(m, v, c, &hw, &copy);
				ret = smartio_config_judge(&layout, where, 1, v,
							   c, &j);
				ck_assert_msg(ok ? !ret : ret == -EPERM,
					      "%#x bit %d (%s): writing %#x over %#x gives %d",
					      where, bit, cls_name(m, bit), v, c,
					      ret);
				if (!ok) {
					ck_assert_int_eq(j.refused, where);
					continue;
				}
				ck_assert_int_eq(j.refused, -1);
				ck_assert_msg(j.hw == hw && j.copy == copy,
					      "%#x bit %d (%s): writing %#x over %#x: hw %#x copy %#x, not %#x %#x",
					      where, bit, cls_name(m, bit), v, c,
					      j.hw, j.copy, hw, copy);
			}
		}
	}
}
END_TEST

/* Words and dwords, at every aligned offset: the composition of bytes. */
START_TEST(test_straddling)
{
	static const int sizes[] = { 2, 4 };
	struct smartio_config_judgement j;
	u32 cur, val, hw, copy;
	int where, s, n, i, refused, ret;
	u8 h, cp;

	fixture();
	srandom(30);
	for (s = 0; s < N_ELEM(sizes); s++) {
		for (where = 0; where < PCI_CFG_SPACE_EXP_SIZE;
		     where += sizes[s]) {
			for (n = 0; n < 16; n++) {
				cur = random() ^ (u32)random() << 16;
				val = cur;
				/* mostly neutral, a few random bits flipped */
				for (i = 0; i < sizes[s]; i++)
					val = (val & ~(0xffU << 8 * i)) |
					      (u32)neutral(model(where + i),
							   cur >> 8 * i) << 8 * i;
				if (n)
					val ^= random() & random();
				refused = -1;
				hw = 0;
				copy = 0;
				for (i = 0; i < sizes[s]; i++) {
					if (!model_write(model(where + i),
							 val >> 8 * i,
							 cur >> 8 * i, &h, &cp) &&
					    refused < 0)
						refused = where + i;
					hw |= (u32)h << 8 * i;
					copy |= (u32)cp << 8 * i;
				}
				if (sizes[s] == 2) {
					cur &= 0xffff;
					val &= 0xffff;
				}
				ret = smartio_config_judge(&layout, where,
							   sizes[s], val, cur,
							   &j);
				ck_assert_msg(j.refused == refused,
					      "%#x/%d: %#x over %#x refused at %d, not %d",
					      where, sizes[s], val, cur,
					      j.refused, refused);
				ck_assert_int_eq(ret, refused < 0 ? 0 : -EPERM);
				if (refused >= 0)
					continue;
				ck_assert_msg(j.hw == hw && j.copy == copy,
					      "%#x/%d: %#x over %#x: hw %#x copy %#x, not %#x %#x",
					      where, sizes[s], val, cur, j.hw,
					      j.copy, hw, copy);
			}
		}
	}
}
END_TEST

/* --- what a driver does, register by register --- */

static int judge(u16 where, int size, u32 val, u32 cur, u32 *hw)
{
	struct smartio_config_judgement j;
	int ret = smartio_config_judge(&layout, where, size, val, cur, &j);

	*hw = j.hw;
	return ret;
}

START_TEST(test_driver_writes)
{
	const u16 devctl = CAP_EXP + PCI_EXP_DEVCTL;
	const u16 pmcsr = CAP_PM + PCI_PM_CTRL;
	u32 hw, cmd = PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;

	fixture();
	/* pci_set_master() / pci_clear_master() */
	ck_assert_int_eq(judge(PCI_COMMAND, 2, PCI_COMMAND_MEMORY,
			       cmd, &hw), 0);
	ck_assert_uint_eq(hw, PCI_COMMAND_MEMORY);
	/* turning decoding off (BAR sizing), INTx off: accepted, kept */
	ck_assert_int_eq(judge(PCI_COMMAND, 2, PCI_COMMAND_MASTER |
			       PCI_COMMAND_INTX_DISABLE | PCI_COMMAND_IO,
			       cmd, &hw), 0);
	ck_assert_uint_eq(hw, cmd);
	/* command and status in one dword: status error bits cleared */
	ck_assert_int_eq(judge(PCI_COMMAND, 4,
			       cmd | PCI_STATUS_REC_MASTER_ABORT << 16,
			       cmd | (PCI_STATUS_REC_MASTER_ABORT |
				      PCI_STATUS_CAP_LIST) << 16, &hw), 0);
	ck_assert_uint_eq(hw, cmd | (PCI_STATUS_REC_MASTER_ABORT |
				     PCI_STATUS_CAP_LIST) << 16);
	/* a write of 0 to status does not clear what is set */
	ck_assert_int_eq(judge(PCI_STATUS, 2, 0, PCI_STATUS_SIG_SYSTEM_ERROR,
			       &hw), 0);
	ck_assert_uint_eq(hw, 0);
	/* BAR sizing: all ones to a BAR, the ROM, the interrupt line */
	ck_assert_int_eq(judge(PCI_BASE_ADDRESS_0, 4, ~0U, 0xfe000004, &hw),
			 -EPERM);
	ck_assert_int_eq(judge(PCI_BASE_ADDRESS_5, 4, ~0U, 0, &hw), -EPERM);
	ck_assert_int_eq(judge(PCI_ROM_ADDRESS, 4, 0xfffff800, 0xfff00001,
			       &hw), -EPERM);
	ck_assert_int_eq(judge(PCI_ROM_ADDRESS, 1, 0, 1, &hw), -EPERM);
	ck_assert_int_eq(judge(PCI_INTERRUPT_LINE, 1, 10, 11, &hw), -EPERM);
	ck_assert_int_eq(judge(PCI_BIST, 1, PCI_BIST_START | 0x80, 0x80,
			       &hw), -EPERM);
	/* cache line size and latency timer in one word, BIST in the dword */
	ck_assert_int_eq(judge(PCI_CACHE_LINE_SIZE, 2, 0x4010, 0, &hw), 0);
	ck_assert_uint_eq(hw, 0x4010);
	ck_assert_int_eq(judge(PCI_CACHE_LINE_SIZE, 4, PCI_BIST_START << 24 |
			       0x10, 0, &hw), -EPERM);

	/* power management: D3hot refused, PME enable refused */
	ck_assert_int_eq(judge(pmcsr, 2, 3 /* D3hot */, 0, &hw), -EPERM);
	ck_assert_int_eq(judge(pmcsr, 1, 1, 0, &hw), -EPERM);
	ck_assert_int_eq(judge(pmcsr, 2, PCI_PM_CTRL_PME_ENABLE, 0, &hw),
			 -EPERM);
	/* D0 as it is, PME status cleared, data select 3 */
	ck_assert_int_eq(judge(pmcsr, 2, PCI_PM_CTRL_PME_STATUS | 3 << 9,
			       PCI_PM_CTRL_PME_STATUS, &hw), 0);
	ck_assert_uint_eq(hw, PCI_PM_CTRL_PME_STATUS | 3 << 9);

	/* MSI: address, data, enable with 4 vectors */
	ck_assert_int_eq(judge(CAP_MSI + PCI_MSI_ADDRESS_LO, 4, 0xfee00000, 0,
			       &hw), 0);
	ck_assert_uint_eq(hw, 0xfee00000);
	ck_assert_int_eq(judge(CAP_MSI + PCI_MSI_DATA_64, 2, 0x4041, 0, &hw),
			 0);
	ck_assert_int_eq(judge(CAP_MSI + PCI_MSI_MASK_64, 4, 0xfffffffe, 0,
			       &hw), 0);
	ck_assert_int_eq(judge(CAP_MSI + PCI_MSI_FLAGS, 2,
			       0x018a | PCI_MSI_FLAGS_ENABLE | 2 << 4, 0x018a,
			       &hw), 0);
	ck_assert_uint_eq(hw, 0x018a | PCI_MSI_FLAGS_ENABLE | 2 << 4);
	/* MSI-X: enable and mask all; the table's place is read-only */
	ck_assert_int_eq(judge(CAP_MSIX + PCI_MSIX_FLAGS, 2, 7 |
			       PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL,
			       7, &hw), 0);
	ck_assert_uint_eq(hw, 7 | PCI_MSIX_FLAGS_ENABLE |
			  PCI_MSIX_FLAGS_MASKALL);
	ck_assert_int_eq(judge(CAP_MSIX + PCI_MSIX_FLAGS, 2, 0, 7, &hw), 0);
	ck_assert_uint_eq(hw, 7);
	ck_assert_int_eq(judge(CAP_MSIX + PCI_MSIX_TABLE, 4, 0x1000, 0, &hw),
			 0);
	ck_assert_uint_eq(hw, 0);

	/* PCI Express device control: Max_Payload_Size, phantom, FLR */
	ck_assert_int_eq(judge(devctl, 2, 0x2020 | 0x0f, 0x2020, &hw), 0);
	ck_assert_uint_eq(hw, 0x202f);
	ck_assert_int_eq(judge(devctl, 2, 0x2000, 0x2020, &hw), -EPERM);
	ck_assert_int_eq(judge(devctl, 2, 0x2020 | PCI_EXP_DEVCTL_PHANTOM,
			       0x2020, &hw), -EPERM);
	ck_assert_int_eq(judge(devctl, 2, 0x2020 | PCI_EXP_DEVCTL_BCR_FLR,
			       0x2020, &hw), -EPERM);
	ck_assert_int_eq(judge(devctl + 1, 1, 0x80 | 0x20, 0x20, &hw),
			 -EPERM);
	/* device status cleared with device control, in one dword */
	ck_assert_int_eq(judge(devctl, 4, 0x2020 | PCI_EXP_DEVSTA_URD << 16,
			       0x2020 | PCI_EXP_DEVSTA_URD << 16, &hw), 0);
	ck_assert_uint_eq(hw, 0x2020 | PCI_EXP_DEVSTA_URD << 16);
	/* link control (ASPM, retrain, disable) and status clears */
	ck_assert_int_eq(judge(CAP_EXP + PCI_EXP_LNKCTL, 2,
			       PCI_EXP_LNKCTL_LD, 0, &hw), -EPERM);
	ck_assert_int_eq(judge(CAP_EXP + PCI_EXP_LNKCTL, 2,
			       PCI_EXP_LNKCTL_ASPMC, 0, &hw), -EPERM);
	ck_assert_int_eq(judge(CAP_EXP + PCI_EXP_LNKSTA, 2,
			       PCI_EXP_LNKSTA_LBMS, PCI_EXP_LNKSTA_LBMS, &hw),
			 -EPERM);
	/* device control 2: completion timeout yes, ARI forwarding, LTR no */
	ck_assert_int_eq(judge(CAP_EXP + PCI_EXP_DEVCTL2, 2, 0x5, 0, &hw), 0);
	ck_assert_int_eq(judge(CAP_EXP + PCI_EXP_DEVCTL2, 2,
			       PCI_EXP_DEVCTL2_ARI, 0, &hw), -EPERM);
	ck_assert_int_eq(judge(CAP_EXP + PCI_EXP_DEVCTL2, 2,
			       PCI_EXP_DEVCTL2_LTR_EN, 0, &hw), -EPERM);
	ck_assert_int_eq(judge(CAP_EXP + PCI_EXP_DEVCTL2, 2,
			       PCI_EXP_DEVCTL2_OBFF_MSGA_EN, 0, &hw), -EPERM);

	/* SR-IOV NumVFs and VF enable; ACS control; AER masks */
	ck_assert_int_eq(judge(ECAP_SRIOV + PCI_SRIOV_NUM_VF, 2, 4, 0, &hw),
			 -EPERM);
	ck_assert_int_eq(judge(ECAP_SRIOV + PCI_SRIOV_CTRL, 2,
			       PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE, 0,
			       &hw), -EPERM);
	ck_assert_int_eq(judge(ECAP_ACS + PCI_ACS_CTRL, 2, 0, PCI_ACS_SV |
			       PCI_ACS_RR | PCI_ACS_CR, &hw), -EPERM);
	ck_assert_int_eq(judge(ECAP_AER + PCI_ERR_UNCOR_MASK, 4, ~0U, 0, &hw),
			 -EPERM);
	ck_assert_int_eq(judge(ECAP_AER + PCI_ERR_UNCOR_STATUS, 4, ~0U, 0,
			       &hw), -EPERM);
	/* a capability's header is read-only: its next pointer unchanged */
	ck_assert_int_eq(judge(ECAP_SRIOV, 4, 0, 0x18010010, &hw), 0);
	ck_assert_uint_eq(hw, 0x18010010);
	ck_assert_int_eq(judge(CAP_MSI, 2, 0, 0x7005, &hw), 0);
	ck_assert_uint_eq(hw, 0x7005);
	/* device-specific space; extended space outside every capability */
	ck_assert_int_eq(judge(GAP_STD, 4, 0xdeadbeef, 0, &hw), 0);
	ck_assert_uint_eq(hw, 0xdeadbeef);
	ck_assert_int_eq(judge(0x800, 4, 1, 0, &hw), -EPERM);
	ck_assert_int_eq(judge(0xffc, 4, 0, 0, &hw), 0);
}
END_TEST

/* The first byte refused is named, and nothing of a refused write is done. */
START_TEST(test_refused_whole)
{
	struct smartio_config_judgement j;

	fixture();
	/* bus master (allowed) with BIST started: refused at BIST */
	ck_assert_int_eq(smartio_config_judge(&layout, PCI_CACHE_LINE_SIZE, 4,
					      0x80000010, 0, &j), -EPERM);
	ck_assert_int_eq(j.refused, PCI_BIST);
	/* MPS in devctl's low byte, FLR in its high byte: the first */
	ck_assert_int_eq(smartio_config_judge(&layout,
					      CAP_EXP + PCI_EXP_DEVCTL, 2,
					      0x8000 | 0x40, 0, &j), -EPERM);
	ck_assert_int_eq(j.refused, CAP_EXP + PCI_EXP_DEVCTL);
	ck_assert_int_eq(smartio_config_judge(&layout,
					      CAP_EXP + PCI_EXP_DEVCTL, 2,
					      0x8000, 0, &j), -EPERM);
	ck_assert_int_eq(j.refused, CAP_EXP + PCI_EXP_DEVCTL + 1);
	/* bytes that nothing may write: not to be written */
	ck_assert_int_eq(smartio_config_judge(&layout, PCI_VENDOR_ID, 4,
					      0x12345678, 0x58458086, &j), 0);
	ck_assert(!j.write);
	ck_assert_uint_eq(j.copy, 0x58458086);
	ck_assert_int_eq(smartio_config_judge(&layout, ECAP_DSN + 4, 4, 7, 7,
					      &j), 0);
	ck_assert(!j.write);
}
END_TEST

/* --- accesses --- */

START_TEST(test_access_ok)
{
	static const struct {
		int where, size, cfg_size;
		bool ok;
	} cases[] = {
		{ 0, 1, 256, true }, { 0, 2, 256, true }, { 0, 4, 256, true },
		{ 0xff, 1, 256, true }, { 0xfe, 2, 256, true },
		{ 0xfc, 4, 256, true }, { 0x100, 1, 256, false },
		{ 0xffc, 4, 4096, true }, { 0x1000, 1, 4096, false },
		{ 0xfff, 2, 4096, false }, { 1, 2, 256, false },
		{ 3, 2, 256, false }, { 2, 4, 256, false }, { 1, 4, 256, false },
		{ 0, 3, 256, false }, { 0, 0, 256, false }, { 0, 8, 256, false },
		{ 4, -4, 256, false }, { 0, 4, 0, false },
	};
	int i;

	for (i = 0; i < N_ELEM(cases); i++)
		ck_assert_msg(smartio_config_access_ok(cases[i].where,
						       cases[i].size,
						       cases[i].cfg_size) ==
			      cases[i].ok, "%d bytes at %#x of %d",
			      cases[i].size, cases[i].where,
			      cases[i].cfg_size);
}
END_TEST

/* --- layouts --- */

START_TEST(test_layout)
{
	const struct smartio_config_cap *cap;
	int i;

	fixture();
	ck_assert_uint_eq(layout.size, PCI_CFG_SPACE_EXP_SIZE);
	ck_assert_uint_eq(layout.pm, CAP_PM);
	ck_assert_uint_eq(layout.exp, CAP_EXP);
	ck_assert_uint_eq(layout.nr_caps, N_ELEM(std_caps) + N_ELEM(ext_caps));
	for (i = 0; i < N_ELEM(std_caps); i++) {
		cap = smartio_config_cap_at(&layout, std_caps[i].start);
		ck_assert_ptr_nonnull(cap);
		ck_assert(!cap->ext);
		ck_assert_uint_eq(cap->id, std_caps[i].id);
		ck_assert_uint_eq(cap->start, std_caps[i].start);
		ck_assert_uint_eq(cap->len, std_caps[i].end - std_caps[i].start);
	}
	for (i = 0; i < N_ELEM(ext_caps); i++) {
		cap = smartio_config_cap_at(&layout, ext_caps[i].start);
		ck_assert_ptr_nonnull(cap);
		ck_assert(cap->ext);
		ck_assert_uint_eq(cap->id, ext_caps[i].id);
		ck_assert_uint_eq(cap->len, ext_caps[i].end - ext_caps[i].start);
	}
	ck_assert_ptr_null(smartio_config_cap_at(&layout, GAP_STD));
	ck_assert_ptr_null(smartio_config_cap_at(&layout, CAP_PM + 8));
	ck_assert_ptr_null(smartio_config_cap_at(&layout, ECAP_DSN + 12));
	ck_assert_ptr_null(smartio_config_cap_at(&layout, 0));
}
END_TEST

/* Lists that loop, lead into the header or out of their space end there. */
START_TEST(test_layout_hostile)
{
	struct smartio_config_layout l;
	u8 c[PCI_CFG_SPACE_EXP_SIZE];

	fixture_fill(c);
	c[CAP_UNKNOWN + 1] = CAP_PM;		/* back to the first */
	put_ext(c, ECAP_DSN, PCI_EXT_CAP_ID_DSN, ECAP_AER);
	smartio_config_layout_build(&l, c, sizeof(c));
	ck_assert_uint_eq(l.nr_caps, N_ELEM(std_caps) + N_ELEM(ext_caps));

	fixture_fill(c);
	c[CAP_PM + 1] = 0x10;			/* into the header */
	put_ext(c, ECAP_AER, PCI_EXT_CAP_ID_ERR, 0x0fc);	/* below 0x100 */
	smartio_config_layout_build(&l, c, sizeof(c));
	ck_assert_uint_eq(l.nr_caps, 2);
	ck_assert_uint_eq(l.caps[0].len, 8);
	ck_assert_ptr_null(smartio_config_cap_at(&l, CAP_MSI));

	fixture_fill(c);
	c[CAP_PM + 1] = 0xff;			/* & ~3: 0xfc, an id of 0 */
	put_ext(c, ECAP_AER, PCI_EXT_CAP_ID_ERR, 0xffc);
	put_ext(c, 0xffc, PCI_EXT_CAP_ID_DSN, 0);	/* 12 bytes, 4 left */
	smartio_config_layout_build(&l, c, sizeof(c));
	ck_assert_uint_eq(l.nr_caps, 4);
	ck_assert_uint_eq(l.caps[1].start, 0xfc);
	ck_assert_uint_eq(l.caps[1].len, 4);
	ck_assert_uint_eq(l.caps[3].start, 0xffc);
	ck_assert_uint_eq(l.caps[3].len, 4);

	fixture_fill(c);
	smartio_put_le16(&c[PCI_STATUS], 0);	/* no capability list */
	smartio_put_le32(&c[ECAP_AER], ~0U);	/* no extended space */
	smartio_config_layout_build(&l, c, sizeof(c));
	ck_assert_uint_eq(l.nr_caps, 0);
	ck_assert_uint_eq(l.pm, 0);
	ck_assert_uint_eq(l.exp, 0);

	/* 256 bytes: no extended capability is looked for */
	fixture_fill(c);
	smartio_config_layout_build(&l, c, PCI_CFG_SPACE_SIZE);
	ck_assert_uint_eq(l.nr_caps, N_ELEM(std_caps));
	ck_assert_uint_eq(l.size, PCI_CFG_SPACE_SIZE);

	/* a capability saying it is longer than the space to the next */
	fixture_fill(c);
	c[CAP_PM + 1] = CAP_MSI + 0x10 - 0x10;
	c[CAP_MSI + 1] = CAP_MSI + 0x10;
	c[CAP_MSI + 0x10] = PCI_CAP_ID_VNDR;
	c[CAP_MSI + 0x11] = 0;
	c[CAP_MSI + 0x12] = 8;
	smartio_config_layout_build(&l, c, sizeof(c));
	ck_assert_uint_eq(l.caps[1].len, 0x10);
	ck_assert_ptr_eq(smartio_config_cap_at(&l, CAP_MSI + 0x10), &l.caps[2]);
}
END_TEST

/* Capability lengths as their registers tell, and what lies past them. */
START_TEST(test_cap_lengths)
{
	static const struct {
		u8 id;
		u16 flags;
		u16 len;
	} cases[] = {
		{ PCI_CAP_ID_MSI, 0, 10 },
		{ PCI_CAP_ID_MSI, PCI_MSI_FLAGS_64BIT, 14 },
		{ PCI_CAP_ID_MSI, PCI_MSI_FLAGS_MASKBIT, 20 },
		{ PCI_CAP_ID_MSI, PCI_MSI_FLAGS_64BIT | PCI_MSI_FLAGS_MASKBIT,
		  24 },
		{ PCI_CAP_ID_EXP, 1, 20 },
		{ PCI_CAP_ID_EXP, 2, 0x3c },
		{ PCI_CAP_ID_PM, 0, 8 },
		{ PCI_CAP_ID_MSIX, 0, 12 },
		{ PCI_CAP_ID_VNDR, 0x10, 0x10 },
		{ PCI_CAP_ID_VNDR, 0, 2 },	/* at least its header */
	};
	struct smartio_config_layout l;
	struct smartio_config_judgement j;
	u8 c[PCI_CFG_SPACE_SIZE] = { 0 };
	int i;

	for (i = 0; i < N_ELEM(cases); i++) {
		memset(c, 0, sizeof(c));
		smartio_put_le16(&c[PCI_STATUS], PCI_STATUS_CAP_LIST);
		c[PCI_CAPABILITY_LIST] = 0x40;
		c[0x40] = cases[i].id;
		smartio_put_le16(&c[0x42], cases[i].flags);
		smartio_config_layout_build(&l, c, sizeof(c));
		ck_assert_uint_eq(l.nr_caps, 1);
		ck_assert_msg(l.caps[0].len == cases[i].len,
			      "cap %#x flags %#x: %u bytes, not %u",
			      cases[i].id, cases[i].flags, l.caps[0].len,
			      cases[i].len);
		/* past it: device-specific, the borrower's */
		ck_assert_int_eq(smartio_config_judge(&l, 0x40 + cases[i].len,
						      1, 0xff, 0, &j), 0);
		ck_assert_uint_eq(j.hw, 0xff);
	}
	/* a 32-bit MSI's data and mask bits where a 64-bit one's would be */
	memset(c, 0, sizeof(c));
	smartio_put_le16(&c[PCI_STATUS], PCI_STATUS_CAP_LIST);
	c[PCI_CAPABILITY_LIST] = 0x40;
	c[0x40] = PCI_CAP_ID_MSI;
	smartio_put_le16(&c[0x42], PCI_MSI_FLAGS_MASKBIT);
	smartio_config_layout_build(&l, c, sizeof(c));
	ck_assert_int_eq(smartio_config_judge(&l, 0x40 + PCI_MSI_MASK_32, 4,
					      ~0U, 0, &j), 0);
	ck_assert_uint_eq(j.hw, ~0U);
}
END_TEST

/* --- every capability the policy knows, alone in a function --- */

static const struct {
	u16 id;
	bool ext;
	bool visible;	/* the shadow lists it */
} kinds[] = {
	{ PCI_CAP_ID_PM, false, true },
	{ PCI_CAP_ID_MSI, false, true },
	{ PCI_CAP_ID_MSIX, false, true },
	{ PCI_CAP_ID_EXP, false, true },
	{ PCI_CAP_ID_VNDR, false, true },
	{ PCI_CAP_ID_SATA, false, true },
	{ PCI_CAP_ID_VPD, false, false },
	{ PCI_CAP_ID_PCIX, false, false },
	{ PCI_CAP_ID_HT, false, false },
	{ PCI_CAP_ID_AF, false, false },
	{ PCI_CAP_ID_EA, false, false },
	{ PCI_EXT_CAP_ID_DSN, true, true },
	{ PCI_EXT_CAP_ID_VNDR, true, true },
	{ PCI_EXT_CAP_ID_DVSEC, true, true },
	{ PCI_EXT_CAP_ID_ERR, true, false },
	{ PCI_EXT_CAP_ID_VC, true, false },
	{ PCI_EXT_CAP_ID_VC9, true, false },
	{ PCI_EXT_CAP_ID_PWR, true, false },
	{ PCI_EXT_CAP_ID_ACS, true, false },
	{ PCI_EXT_CAP_ID_ARI, true, false },
	{ PCI_EXT_CAP_ID_ATS, true, false },
	{ PCI_EXT_CAP_ID_SRIOV, true, false },
	{ PCI_EXT_CAP_ID_MCAST, true, false },
	{ PCI_EXT_CAP_ID_PRI, true, false },
	{ PCI_EXT_CAP_ID_REBAR, true, false },
	{ PCI_EXT_CAP_ID_LTR, true, false },
	{ PCI_EXT_CAP_ID_SECPCI, true, false },
	{ PCI_EXT_CAP_ID_PASID, true, false },
	{ PCI_EXT_CAP_ID_DPC, true, false },
	{ PCI_EXT_CAP_ID_L1SS, true, false },
	{ PCI_EXT_CAP_ID_PTM, true, false },
	/* ids no spec gives: nothing, hidden */
	{ UNKNOWN_ID, false, false },
	{ UNKNOWN_EXT_ID, true, false },
	/* standard ids as extended ones and back: other capabilities */
	{ PCI_EXT_CAP_ID_DSN, false, false },
	{ PCI_CAP_ID_MSI, true, false },
};

static bool has_rules(u16 id, bool ext)
{
	return !ext && (id == PCI_CAP_ID_PM || id == PCI_CAP_ID_MSI ||
			id == PCI_CAP_ID_MSIX || id == PCI_CAP_ID_EXP);
}

START_TEST(test_each_kind)
{
	const struct smartio_config_kind *kind;
	const struct smartio_config_cap *cap;
	struct smartio_config_layout l;
	struct smartio_config_judgement j;
	u8 c[PCI_CFG_SPACE_EXP_SIZE], v;
	u16 pos, hdr, where;
	int bit, ret;
	bool ext = kinds[_i].ext;

	memset(c, 0, sizeof(c));
	smartio_put_le16(&c[PCI_STATUS], PCI_STATUS_CAP_LIST);
	pos = ext ? 0x100 : 0x40;
	hdr = ext ? 4 : 2;
	if (ext) {
		put_ext(c, pos, kinds[_i].id, 0);
	} else {
		c[PCI_CAPABILITY_LIST] = pos;
		c[pos] = kinds[_i].id;
		if (kinds[_i].id == PCI_CAP_ID_VNDR)
			c[pos + 2] = 0x20;
	}
	smartio_config_layout_build(&l, c, sizeof(c));
	cap = smartio_config_cap_at(&l, pos);
	ck_assert_ptr_nonnull(cap);
	ck_assert_uint_eq(cap->id, kinds[_i].id);
	kind = smartio_config_kind_of(cap);
	ck_assert_int_eq(kind && kind->visible, kinds[_i].visible);
	if (has_rules(kinds[_i].id, ext)) {
		ck_assert_ptr_nonnull(kind);
		ck_assert_uint_gt(kind->nr_rules, 0);
		return;	/* every bit: test_every_bit */
	}
	/* nothing past the header: every bit of every byte is the lender's */
	for (where = pos; where < pos + cap->len; where++) {
		for (bit = 0; bit < 8; bit++) {
			v = 1 << bit;
			ret = smartio_config_judge(&l, where, 1, v, 0, &j);
			if (where - pos < hdr) {
				ck_assert_int_eq(ret, 0);
				ck_assert_uint_eq(j.hw, 0);
				ck_assert(!j.write);
				continue;
			}
			ck_assert_msg(ret == -EPERM && j.refused == where,
				      "cap %#x%s: bit %d at +%#x: %d",
				      kinds[_i].id, ext ? " (ext)" : "", bit,
				      where - pos, ret);
			ret = smartio_config_judge(&l, where, 1, 0, v, &j);
			ck_assert_int_eq(ret, -EPERM);
		}
		/* the register as it is: accepted, not written */
		ck_assert_int_eq(smartio_config_judge(&l, where, 1, 0x5a,
						      0x5a, &j), 0);
		ck_assert(!j.write);
	}
}
END_TEST

/* --- what the shadow shows --- */

START_TEST(test_virtualise)
{
	u8 c[PCI_CFG_SPACE_EXP_SIZE];
	u16 mps;

	fixture();
	memcpy(c, cfg, sizeof(c));
	mps = smartio_config_virtualise(&layout, c, false);
	ck_assert_uint_eq(mps, 0x0020);
	ck_assert_uint_eq(smartio_get_le32(&c[PCI_ROM_ADDRESS]), 0);
	ck_assert_uint_eq(c[PCI_INTERRUPT_PIN], 0);
	ck_assert_uint_eq(c[PCI_INTERRUPT_LINE], 0);
	ck_assert_uint_eq(smartio_get_le16(&c[PCI_STATUS]),
			  PCI_STATUS_CAP_LIST);
	/* what the borrower's driver needs, as the lender has it */
	ck_assert_mem_eq(c, cfg, PCI_STATUS);
	ck_assert_mem_eq(&c[PCI_CLASS_REVISION], &cfg[PCI_CLASS_REVISION],
			 PCI_ROM_ADDRESS - PCI_CLASS_REVISION);
	ck_assert_uint_eq(smartio_get_le16(&c[CAP_PM + PCI_PM_CTRL]),
			  PCI_PM_CTRL_NO_SOFT_RESET);
	/* no FLR offered where the lender cannot reset; FLR bit clear */
	ck_assert_uint_eq(smartio_get_le32(&c[CAP_EXP + PCI_EXP_DEVCAP]), 1);
	ck_assert_uint_eq(smartio_get_le16(&c[CAP_EXP + PCI_EXP_DEVCTL]),
			  0x2020);
	/* the standard list: PM, MSI, MSI-X, PCIe, vendor; not the unknown */
	ck_assert_uint_eq(c[PCI_CAPABILITY_LIST], CAP_PM);
	ck_assert_uint_eq(c[CAP_PM + 1], CAP_MSI);
	ck_assert_uint_eq(c[CAP_MSI + 1], CAP_MSIX);
	ck_assert_uint_eq(c[CAP_MSIX + 1], CAP_EXP);
	ck_assert_uint_eq(c[CAP_EXP + 1], CAP_VNDR);
	ck_assert_uint_eq(c[CAP_VNDR + 1], 0);
	/*
	 * The extended list: AER at its head hidden, leaving a capability
	 * of id 0 leading to the vendor-specific one, then the serial
	 * number; SR-IOV, ACS and the unknown one unlisted, their
	 * registers where they were.
	 */
	ck_assert_uint_eq(smartio_get_le32(&c[ECAP_AER]),
			  (u32)ECAP_VNDR << 20);
	ck_assert_uint_eq(smartio_get_le32(&c[ECAP_VNDR]),
			  PCI_EXT_CAP_ID_VNDR | 1U << 16 | (u32)ECAP_DSN << 20);
	ck_assert_uint_eq(smartio_get_le32(&c[ECAP_DSN]),
			  PCI_EXT_CAP_ID_DSN | 1U << 16);
	ck_assert_mem_eq(&c[ECAP_SRIOV], &cfg[ECAP_SRIOV],
			 ECAP_VNDR - ECAP_SRIOV);

	/* FLR offered where the lender can reset */
	memcpy(c, cfg, sizeof(c));
	smartio_config_virtualise(&layout, c, true);
	ck_assert_uint_eq(smartio_get_le32(&c[CAP_EXP + PCI_EXP_DEVCAP]),
			  PCI_EXP_DEVCAP_FLR | 1);
}
END_TEST

/* Nothing the borrower may use: no list at all. */
START_TEST(test_virtualise_hidden)
{
	struct smartio_config_layout l;
	u8 c[PCI_CFG_SPACE_EXP_SIZE] = { 0 };

	smartio_put_le16(&c[PCI_STATUS], PCI_STATUS_CAP_LIST |
			 PCI_STATUS_66MHZ);
	c[PCI_CAPABILITY_LIST] = 0x40;
	c[0x40] = PCI_CAP_ID_VPD;
	c[0x41] = 0x48;
	c[0x48] = PCI_CAP_ID_PCIX;
	put_ext(c, 0x100, PCI_EXT_CAP_ID_SRIOV, 0x140);
	put_ext(c, 0x140, PCI_EXT_CAP_ID_ACS, 0);
	smartio_config_layout_build(&l, c, sizeof(c));
	ck_assert_uint_eq(l.nr_caps, 4);
	ck_assert_uint_eq(smartio_config_virtualise(&l, c, true), 0);
	ck_assert_uint_eq(smartio_get_le16(&c[PCI_STATUS]), PCI_STATUS_66MHZ);
	ck_assert_uint_eq(c[PCI_CAPABILITY_LIST], 0);
	ck_assert_uint_eq(smartio_get_le32(&c[0x100]), 0);
	/* the ACS capability left unlisted, its registers untouched */
	ck_assert_uint_eq(smartio_get_le32(&c[0x140]),
			  PCI_EXT_CAP_ID_ACS | 1U << 16);
}
END_TEST

Suite *pci_config_suite(void)
{
	Suite *s = suite_create("pci_config");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_every_bit);
	tcase_add_test(tc, test_straddling);
	tcase_add_test(tc, test_driver_writes);
	tcase_add_test(tc, test_refused_whole);
	tcase_add_test(tc, test_access_ok);
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_layout_hostile);
	tcase_add_test(tc, test_cap_lengths);
	tcase_add_loop_test(tc, test_each_kind, 0, N_ELEM(kinds));
	tcase_add_test(tc, test_virtualise);
	tcase_add_test(tc, test_virtualise_hidden);
	suite_add_tcase(s, tc);
	return s;
}
