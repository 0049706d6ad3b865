// SPDX-License-Identifier: GPL-2.0
/*
 * Config space of a lent function: what its borrower may write, what its
 * shadow shows, and the config accesses between the two nodes. Modelled
 * on drivers/vfio/pci/vfio_pci_config.c.
 *
 * The lender is the authority: its borrower is another host, trusted
 * with the function but not with how the lender's fabric, IOMMU and
 * power are set up around it. The lender reads the function's
 * capabilities at the borrow (a layout) and, for each register it knows,
 * which bits a borrower's write sets (allowed), which are read-only
 * (whatever is written does not matter) and which are cleared by writing
 * one. Every other bit is the lender's: a write that would change one is
 * refused as a whole, changes nothing, is logged (rate-limited) naming
 * the borrower, the function and the register, and its writer gets an
 * error. Nothing is written past the function's config size. In short:
 *
 *  - header: the command bits (bus master, parity and SERR reporting...)
 *    but not decoding or INTx (SMARTIO_LENDER_COMMAND: the lender keeps
 *    them as they are, whatever is written); status bits cleared; cache
 *    line size and latency timer. Never the BARs, the expansion ROM, the
 *    interrupt line or BIST.
 *  - power management: PME status cleared, data select; never the power
 *    state, which stays D0 while lent (D3hot to D0 resets a function and
 *    loses its BARs), nor PME enable.
 *  - MSI and MSI-X: enables, multiple-message enable, function mask,
 *    message address, data and mask bits: the shadow programs them for
 *    the borrower's interrupts.
 *  - PCI Express: device control but Max_Payload_Size (the path's, set by
 *    the lender: never, as in vfio), phantom functions and initiate FLR (a
 *    reset, which the borrower asks for with SMARTIO_MSG_OP_RESET); error
 *    status cleared; completion timeout, IDO and AtomicOp requests in
 *    device control 2. Not link control: the link's other end is the
 *    lender's. Not slot or root registers.
 *  - every other capability, standard or extended, vendor-specific ones
 *    included (SR-IOV, ATS, ACS, AER, LTR, PASID, resizable BAR...):
 *    nothing.
 *  - standard config space outside every capability is device-specific
 *    (AHCI's port control at 0x92): the borrower's, as vfio has it.
 *    Extended space outside every capability: nothing.
 *
 * The borrower's shadow device (shadow.c) is served from a copy: the
 * lender's config space at the borrow, less what is not meaningful or
 * safe on the borrower: its capability lists skip what the borrower must
 * not use (VPD, PCI-X, enhanced allocation..., and in extended space all
 * but the serial number and vendor-specific ones: SR-IOV, ATS, ACS, AER,
 * LTR, L1 PM substates, PASID, PRI, ARI, resizable BAR...). Its BARs are
 * sized in the copy, and its ROM, interrupt pin and the Max_Payload_Size
 * its driver sets are its own. Initiate FLR becomes a reset on the
 * lender, pci_reset_function(), which saves and restores what the lender
 * keeps (BARs, decoding, bus master; its IOMMU domain and windows are not
 * touched): the shadow offers FLR where the lender can reset the function,
 * and its power management has no soft reset (a power state change is
 * refused). Writes go to the lender in order, waited for where the writer
 * may sleep (MMIO after them finds them done, and the writer gets the
 * lender's verdict), posted in atomic context (the writer gets the verdict
 * of the same permissions on the copy); the copy takes what they allow,
 * so that it stays what the lender has. What the function changes on its
 * own (status, power state, device and link status) is read from the
 * lender where the reader may sleep, at most once per SMARTIO_SHADOW_FRESH
 * per register; an atomic reader gets the copy, and a read from the
 * lender queued for the next one. No driver reads these per I/O: no
 * message crosses per I/O.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <asm/unaligned.h>

#include "smartio/ntb.h"
#include "lend_priv.h"

/**
 * struct smartio_config_rule - What a borrower may write in a register.
 * @off: Its offset in its capability (or in the header).
 * @len: Its bytes; 0: up to its capability's end. Over 4 bytes (a run of
 *	registers alike), each byte has the masks' low byte.
 * @allow: Bits a borrower's write sets.
 * @rw1c: Bits that writing 1 clears, allowed or not.
 * @ignore: Bits read-only in hardware: what is written does not matter.
 * @name: The register, in messages.
 *
 * A bit in none of the masks is the lender's: a write changing it is
 * refused.
 */
struct smartio_config_rule {
	u8 off;
	u8 len;
	u32 allow;
	u32 rw1c;
	u32 ignore;
	const char *name;
};

#define SMARTIO_ALL	0xffffffffU

/* The command bits that are the borrower's: not decoding or INTx. */
#define SMARTIO_COMMAND_ALLOW \
	(PCI_COMMAND_MASTER | PCI_COMMAND_SPECIAL | PCI_COMMAND_INVALIDATE | \
	 PCI_COMMAND_VGA_PALETTE | PCI_COMMAND_PARITY | PCI_COMMAND_WAIT | \
	 PCI_COMMAND_SERR | PCI_COMMAND_FAST_BACK)

#define SMARTIO_STATUS_RW1C \
	(PCI_STATUS_PARITY | PCI_STATUS_SIG_TARGET_ABORT | \
	 PCI_STATUS_REC_TARGET_ABORT | PCI_STATUS_REC_MASTER_ABORT | \
	 PCI_STATUS_SIG_SYSTEM_ERROR | PCI_STATUS_DETECTED_PARITY)

static const struct smartio_config_rule smartio_config_header[] = {
	{ PCI_VENDOR_ID, 4, 0, 0, SMARTIO_ALL, "vendor and device id" },
	{ PCI_COMMAND, 2, SMARTIO_COMMAND_ALLOW, 0,
	  0xffff & ~SMARTIO_COMMAND_ALLOW, "command register" },
	{ PCI_STATUS, 2, SMARTIO_STATUS_RW1C, SMARTIO_STATUS_RW1C,
	  0xffff & ~SMARTIO_STATUS_RW1C, "status register" },
	{ PCI_CLASS_REVISION, 4, 0, 0, SMARTIO_ALL, "revision and class" },
	{ PCI_CACHE_LINE_SIZE, 1, 0xff, 0, 0, "cache line size" },
	{ PCI_LATENCY_TIMER, 1, 0xff, 0, 0, "latency timer" },
	{ PCI_HEADER_TYPE, 1, 0, 0, 0xff, "header type" },
	{ PCI_BIST, 1, 0, 0, 0, "BIST register" },
	{ PCI_BASE_ADDRESS_0, 24, 0, 0, 0, "BARs" },
	{ PCI_CARDBUS_CIS, 8, 0, 0, SMARTIO_ALL, "subsystem ids" },
	{ PCI_ROM_ADDRESS, 4, 0, 0, 0, "expansion ROM address" },
	{ PCI_CAPABILITY_LIST, 8, 0, 0, SMARTIO_ALL, "capability pointer" },
	{ PCI_INTERRUPT_LINE, 1, 0, 0, 0, "interrupt line" },
	{ PCI_INTERRUPT_PIN, 3, 0, 0, SMARTIO_ALL, "interrupt pin" },
};

static const struct smartio_config_rule smartio_config_pm[] = {
	{ PCI_PM_PMC, 2, 0, 0, 0xffff, "capabilities" },
	{ PCI_PM_CTRL, 2, PCI_PM_CTRL_PME_STATUS | PCI_PM_CTRL_DATA_SEL_MASK,
	  PCI_PM_CTRL_PME_STATUS,
	  PCI_PM_CTRL_NO_SOFT_RESET | PCI_PM_CTRL_DATA_SCALE_MASK | 0x00f4,
	  "control/status (power state, PME enable)" },
	{ PCI_PM_PPB_EXTENSIONS, 2, 0, 0, 0xffff, "data" },
};

static const struct smartio_config_rule smartio_config_msi[] = {
	{ PCI_MSI_FLAGS, 2, PCI_MSI_FLAGS_ENABLE | PCI_MSI_FLAGS_QSIZE, 0,
	  PCI_MSI_FLAGS_QMASK | PCI_MSI_FLAGS_64BIT | PCI_MSI_FLAGS_MASKBIT |
	  0xfa00, "control" },
	{ PCI_MSI_ADDRESS_LO, 0, SMARTIO_ALL, 0, 0, "message" },
};

static const struct smartio_config_rule smartio_config_msix[] = {
	{ PCI_MSIX_FLAGS, 2, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL, 0,
	  PCI_MSIX_FLAGS_QSIZE | 0x3800, "control" },
	{ PCI_MSIX_TABLE, 8, 0, 0, SMARTIO_ALL, "table and PBA offsets" },
};

#define SMARTIO_DEVCTL_ALLOW \
	(PCI_EXP_DEVCTL_CERE | PCI_EXP_DEVCTL_NFERE | PCI_EXP_DEVCTL_FERE | \
	 PCI_EXP_DEVCTL_URRE | PCI_EXP_DEVCTL_RELAX_EN | \
	 PCI_EXP_DEVCTL_EXT_TAG | PCI_EXP_DEVCTL_AUX_PME | \
	 PCI_EXP_DEVCTL_NOSNOOP_EN | PCI_EXP_DEVCTL_READRQ)

#define SMARTIO_DEVSTA_RW1C \
	(PCI_EXP_DEVSTA_CED | PCI_EXP_DEVSTA_NFED | PCI_EXP_DEVSTA_FED | \
	 PCI_EXP_DEVSTA_URD)

#define SMARTIO_DEVCTL2_ALLOW \
	(PCI_EXP_DEVCTL2_COMP_TIMEOUT | PCI_EXP_DEVCTL2_COMP_TMOUT_DIS | \
	 PCI_EXP_DEVCTL2_ATOMIC_REQ | PCI_EXP_DEVCTL2_IDO_REQ_EN | \
	 PCI_EXP_DEVCTL2_IDO_CMP_EN)

#define SMARTIO_LNKSTA_RW1C	(PCI_EXP_LNKSTA_LBMS | PCI_EXP_LNKSTA_LABS)

static const struct smartio_config_rule smartio_config_exp[] = {
	{ PCI_EXP_FLAGS, 2, 0, 0, 0xffff, "capabilities" },
	{ PCI_EXP_DEVCAP, 4, 0, 0, SMARTIO_ALL, "device capabilities" },
	{ PCI_EXP_DEVCTL, 2, SMARTIO_DEVCTL_ALLOW, 0, 0,
	  "device control (Max_Payload_Size, phantom functions, FLR)" },
	{ PCI_EXP_DEVSTA, 2, SMARTIO_DEVSTA_RW1C, SMARTIO_DEVSTA_RW1C,
	  0xffff & ~SMARTIO_DEVSTA_RW1C, "device status" },
	{ PCI_EXP_LNKCAP, 4, 0, 0, SMARTIO_ALL, "link capabilities" },
	{ PCI_EXP_LNKCTL, 2, 0, 0, 0, "link control" },
	{ PCI_EXP_LNKSTA, 2, 0, SMARTIO_LNKSTA_RW1C,
	  0xffff & ~SMARTIO_LNKSTA_RW1C, "link status" },
	{ PCI_EXP_SLTCAP, 4, 0, 0, SMARTIO_ALL, "slot capabilities" },
	{ PCI_EXP_SLTCTL, 4, 0, 0, 0, "slot control and status" },
	{ PCI_EXP_RTCTL, 8, 0, 0, 0, "root control and status" },
	{ PCI_EXP_DEVCAP2, 4, 0, 0, SMARTIO_ALL, "device capabilities 2" },
	{ PCI_EXP_DEVCTL2, 2, SMARTIO_DEVCTL2_ALLOW, 0, 0,
	  "device control 2 (ARI, LTR, OBFF...)" },
	{ PCI_EXP_DEVSTA2, 2, 0, 0, 0xffff, "device status 2" },
	{ PCI_EXP_LNKCAP2, 4, 0, 0, SMARTIO_ALL, "link capabilities 2" },
	{ PCI_EXP_LNKCTL2, 2, 0, 0, 0, "link control 2" },
	{ PCI_EXP_LNKSTA2, 2, 0, 0, 0xffff, "link status 2" },
};

/**
 * struct smartio_config_kind - A kind of capability the policy knows.
 * @id: Its capability id.
 * @ext: An extended capability.
 * @visible: The shadow lists it: the borrower's driver may use it.
 * @name: What it is, in messages.
 * @rules: What a borrower may write in it past its header; none: nothing.
 * @nr_rules: How many rules.
 */
struct smartio_config_kind {
	u16 id;
	bool ext;
	bool visible;
	const char *name;
	const struct smartio_config_rule *rules;
	unsigned int nr_rules;
};

#define SMARTIO_CAP(i, v, n, r) \
	{ .id = (i), .visible = (v), .name = (n), .rules = (r), \
	  .nr_rules = ARRAY_SIZE(r) }
#define SMARTIO_CAP_RO(i, e, v, n) \
	{ .id = (i), .ext = (e), .visible = (v), .name = (n) }

static const struct smartio_config_kind smartio_config_kinds[] = {
	SMARTIO_CAP(PCI_CAP_ID_PM, true, "power management capability",
		    smartio_config_pm),
	SMARTIO_CAP(PCI_CAP_ID_MSI, true, "MSI capability", smartio_config_msi),
	SMARTIO_CAP(PCI_CAP_ID_MSIX, true, "MSI-X capability",
		    smartio_config_msix),
	SMARTIO_CAP(PCI_CAP_ID_EXP, true, "PCI Express capability",
		    smartio_config_exp),
	SMARTIO_CAP_RO(PCI_CAP_ID_VNDR, false, true,
		       "vendor-specific capability"),
	SMARTIO_CAP_RO(PCI_CAP_ID_SATA, false, true, "SATA capability"),
	SMARTIO_CAP_RO(PCI_CAP_ID_VPD, false, false, "VPD capability"),
	SMARTIO_CAP_RO(PCI_CAP_ID_PCIX, false, false, "PCI-X capability"),
	SMARTIO_CAP_RO(PCI_CAP_ID_HT, false, false, "HyperTransport capability"),
	SMARTIO_CAP_RO(PCI_CAP_ID_AF, false, false,
		       "advanced features capability"),
	SMARTIO_CAP_RO(PCI_CAP_ID_EA, false, false,
		       "enhanced allocation capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_DSN, true, true,
		       "device serial number capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_VNDR, true, true,
		       "vendor-specific extended capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_DVSEC, true, true,
		       "designated vendor-specific capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_ERR, true, false, "AER capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_VC, true, false,
		       "virtual channel capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_VC9, true, false,
		       "virtual channel capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_PWR, true, false,
		       "power budgeting capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_ACS, true, false, "ACS capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_ARI, true, false, "ARI capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_ATS, true, false, "ATS capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_SRIOV, true, false, "SR-IOV capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_MCAST, true, false,
		       "multicast capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_PRI, true, false, "PRI capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_REBAR, true, false,
		       "resizable BAR capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_LTR, true, false, "LTR capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_SECPCI, true, false,
		       "secondary PCI Express capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_PASID, true, false, "PASID capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_DPC, true, false, "DPC capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_L1SS, true, false,
		       "L1 PM substates capability"),
	SMARTIO_CAP_RO(PCI_EXT_CAP_ID_PTM, true, false, "PTM capability"),
};

/* What the policy knows of @cap, or NULL: nothing (hidden, unwritable). */
static const struct smartio_config_kind *
smartio_config_kind_of(const struct smartio_config_cap *cap)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(smartio_config_kinds); i++)
		if (smartio_config_kinds[i].id == cap->id &&
		    smartio_config_kinds[i].ext == cap->ext)
			return &smartio_config_kinds[i];
	return NULL;
}

/* --- a function's layout --- */

/* Extended capabilities of a fixed length, for messages naming them. */
static const struct {
	u16 id;
	u16 len;
} smartio_config_ext_len[] = {
	{ PCI_EXT_CAP_ID_SRIOV, PCI_EXT_CAP_SRIOV_SIZEOF },
	{ PCI_EXT_CAP_ID_ATS, PCI_EXT_CAP_ATS_SIZEOF },
	{ PCI_EXT_CAP_ID_ARI, PCI_EXT_CAP_ARI_SIZEOF },
	{ PCI_EXT_CAP_ID_DSN, PCI_EXT_CAP_DSN_SIZEOF },
	{ PCI_EXT_CAP_ID_LTR, PCI_EXT_CAP_LTR_SIZEOF },
	{ PCI_EXT_CAP_ID_PASID, PCI_EXT_CAP_PASID_SIZEOF },
	{ PCI_EXT_CAP_ID_PRI, PCI_EXT_CAP_PRI_SIZEOF },
};

/*
 * The length of the capability @id at @pos of @cfg, as far as its
 * registers tell; U16_MAX where they do not: then up to the next
 * capability (all of an extended one is the lender's alike).
 */
static u16 smartio_config_cap_len(const u8 *cfg, u16 pos, u16 id, bool ext)
{
	u16 flags = get_unaligned_le16(&cfg[pos + PCI_CAP_FLAGS]);
	int i;

	if (ext) {
		for (i = 0; i < ARRAY_SIZE(smartio_config_ext_len); i++)
			if (smartio_config_ext_len[i].id == id)
				return smartio_config_ext_len[i].len;
		return U16_MAX;
	}
	switch (id) {
	case PCI_CAP_ID_PM:
		return PCI_PM_SIZEOF;
	case PCI_CAP_ID_MSI:
		return (flags & PCI_MSI_FLAGS_64BIT ? 14 : 10) +
		       (flags & PCI_MSI_FLAGS_MASKBIT ? 10 : 0);
	case PCI_CAP_ID_MSIX:
		return PCI_CAP_MSIX_SIZEOF;
	case PCI_CAP_ID_EXP:
		return (flags & PCI_EXP_FLAGS_VERS) > 1 ?
		       PCI_EXP_SLTSTA2 + 2 : PCI_CAP_EXP_ENDPOINT_SIZEOF_V1;
	case PCI_CAP_ID_VNDR:
		return max_t(u16, cfg[pos + PCI_CAP_FLAGS], PCI_CAP_FLAGS);
	}
	return U16_MAX;
}

/* Adds a capability; false if the list loops back or the layout is full. */
static bool smartio_config_add_cap(struct smartio_config_layout *l,
				   const u8 *cfg, u16 pos, u16 id, bool ext)
{
	struct smartio_config_cap *cap;
	int i;

	for (i = 0; i < l->nr_caps; i++)
		if (l->caps[i].start == pos)
			return false;
	if (l->nr_caps == SMARTIO_CONFIG_MAX_CAPS)
		return false;
	cap = &l->caps[l->nr_caps++];
	cap->start = pos;
	cap->len = smartio_config_cap_len(cfg, pos, id, ext);
	cap->id = id;
	cap->ext = ext;
	if (!ext && id == PCI_CAP_ID_PM && !l->pm)
		l->pm = pos;
	if (!ext && id == PCI_CAP_ID_EXP && !l->exp)
		l->exp = pos;
	return true;
}

/*
 * Each capability ends where its space does, and where the next one (by
 * address) starts: no byte is in two, whatever their registers say.
 */
static void smartio_config_clamp_caps(struct smartio_config_layout *l)
{
	int i, j;

	for (i = 0; i < l->nr_caps; i++) {
		struct smartio_config_cap *cap = &l->caps[i];
		u16 end = cap->ext ? l->size : PCI_CFG_SPACE_SIZE;

		for (j = 0; j < l->nr_caps; j++)
			if (l->caps[j].ext == cap->ext &&
			    l->caps[j].start > cap->start)
				end = min(end, l->caps[j].start);
		cap->len = min_t(u16, cap->len, end - cap->start);
	}
}

/**
 * smartio_config_layout_build() - Find a function's capabilities.
 * @l: Filled in.
 * @cfg: A copy of its config space, as its lender has it.
 * @size: Bytes of @cfg: 256, or 4096 with extended config space.
 *
 * The lists are walked as the PCI core walks them, bounded: a list that
 * loops, or leads out of its space, ends there.
 */
void smartio_config_layout_build(struct smartio_config_layout *l,
				 const u8 *cfg, u16 size)
{
	int ttl = (PCI_CFG_SPACE_SIZE - PCI_STD_HEADER_SIZEOF) / PCI_CAP_SIZEOF;
	u16 pos;
	u32 header;

	memset(l, 0, sizeof(*l));
	l->size = size;
	pos = cfg[PCI_CAPABILITY_LIST] & ~3;
	if (!(get_unaligned_le16(&cfg[PCI_STATUS]) & PCI_STATUS_CAP_LIST))
		pos = 0;
	while (pos >= PCI_STD_HEADER_SIZEOF && ttl-- &&
	       cfg[pos] != 0xff &&
	       smartio_config_add_cap(l, cfg, pos, cfg[pos], false))
		pos = cfg[pos + PCI_CAP_LIST_NEXT] & ~3;

	ttl = (size - PCI_CFG_SPACE_SIZE) / PCI_CAP_SIZEOF;
	pos = PCI_CFG_SPACE_SIZE;
	while (pos >= PCI_CFG_SPACE_SIZE && pos + PCI_CAP_SIZEOF <= size &&
	       ttl--) {
		header = get_unaligned_le32(&cfg[pos]);
		if (!header || header == ~0U ||
		    !smartio_config_add_cap(l, cfg, pos,
					    PCI_EXT_CAP_ID(header), true))
			break;
		pos = PCI_EXT_CAP_NEXT(header);
	}
	smartio_config_clamp_caps(l);
}

/* The capability @where is in, or NULL. */
static const struct smartio_config_cap *
smartio_config_cap_at(const struct smartio_config_layout *l, u16 where)
{
	int i;

	for (i = 0; i < l->nr_caps; i++)
		if (where >= l->caps[i].start &&
		    where - l->caps[i].start < l->caps[i].len)
			return &l->caps[i];
	return NULL;
}

/* --- what a write may do --- */

/* What a write may do to the bits of one byte. */
struct smartio_config_perm {
	u8 allow;
	u8 rw1c;
	u8 ignore;
};

/*
 * The rule of @rules for byte @off of a capability of @len bytes, and
 * its masks in @p; NULL, @p untouched, where none has it.
 */
static const struct smartio_config_rule *
smartio_config_rule_at(const struct smartio_config_rule *rules,
		       unsigned int nr, u16 off, u16 len,
		       struct smartio_config_perm *p)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		const struct smartio_config_rule *r = &rules[i];
		u16 rlen = r->len ?: len - min_t(u16, len, r->off);
		int shift;

		if (off < r->off || off - r->off >= rlen)
			continue;
		shift = 8 * ((off - r->off) & 3);
		p->allow = r->allow >> shift;
		p->rw1c = r->rw1c >> shift;
		p->ignore = r->ignore >> shift;
		return r;
	}
	return NULL;
}

/*
 * What a write may do to byte @where, in @p, and the rule that says so
 * (NULL for a capability's header, the bytes of none, and the registers
 * the policy does not know: all the lender's).
 */
static const struct smartio_config_rule *
smartio_config_perm_at(const struct smartio_config_layout *l, u16 where,
		       struct smartio_config_perm *p)
{
	const struct smartio_config_kind *kind;
	const struct smartio_config_cap *cap;
	u16 off;

	memset(p, 0, sizeof(*p));
	if (where < PCI_STD_HEADER_SIZEOF)
		return smartio_config_rule_at(smartio_config_header,
					      ARRAY_SIZE(smartio_config_header),
					      where, PCI_STD_HEADER_SIZEOF, p);
	cap = smartio_config_cap_at(l, where);
	if (!cap) {
		/* Device-specific registers: the function's driver's. */
		if (where < PCI_CFG_SPACE_SIZE)
			p->allow = 0xff;
		return NULL;
	}
	off = where - cap->start;
	if (off < (cap->ext ? PCI_CAP_SIZEOF : PCI_CAP_FLAGS)) {
		p->ignore = 0xff;	/* id and next: read-only */
		return NULL;
	}
	kind = smartio_config_kind_of(cap);
	if (!kind)
		return NULL;
	return smartio_config_rule_at(kind->rules, kind->nr_rules, off,
				      cap->len, p);
}

/**
 * struct smartio_config_judgement - What a write does under the policy.
 * @hw: The value to write to the function.
 * @copy: The register's value once written (what a copy of it holds).
 * @write: The access has bits a borrower may set: @hw is to be written
 *	(else the write changes nothing and is not done).
 * @refused: The first byte whose bits the write would change against the
 *	policy, or -1.
 */
struct smartio_config_judgement {
	u32 hw;
	u32 copy;
	bool write;
	int refused;
};

/*
 * Judges a borrower's write of @val (@size bytes at @where, aligned and in
 * the function's config space) to registers whose value is @cur: 0, or
 * -EPERM where it would change a bit that is the lender's.
 */
static int smartio_config_judge(const struct smartio_config_layout *l,
				u16 where, int size, u32 val, u32 cur,
				struct smartio_config_judgement *j)
{
	struct smartio_config_perm p;
	int i;

	memset(j, 0, sizeof(*j));
	j->refused = -1;
	for (i = 0; i < size; i++) {
		u8 v = val >> (8 * i), c = cur >> (8 * i);
		u8 kept, hw, copy;

		smartio_config_perm_at(l, where + i, &p);
		kept = ~(p.allow | p.ignore);
		if ((((v ^ c) & ~p.rw1c) | (v & p.rw1c)) & kept &&
		    j->refused < 0)
			j->refused = where + i;
		/* A bit cleared by one stays set unless the borrower clears it. */
		hw = (v & p.allow) | (c & ~p.allow & ~p.rw1c);
		copy = (c & ~p.allow) | (v & p.allow & ~p.rw1c) |
		       (c & p.allow & p.rw1c & ~v);
		j->hw |= (u32)hw << (8 * i);
		j->copy |= (u32)copy << (8 * i);
		j->write |= p.allow != 0;
	}
	return j->refused < 0 ? 0 : -EPERM;
}

/* Names the register at @where in @buf, for messages. */
static void smartio_config_describe(const struct smartio_config_layout *l,
				    u16 where, char *buf, size_t len)
{
	const struct smartio_config_kind *kind;
	const struct smartio_config_rule *rule;
	const struct smartio_config_cap *cap;
	struct smartio_config_perm p;

	rule = smartio_config_perm_at(l, where, &p);
	if (where < PCI_STD_HEADER_SIZEOF) {
		snprintf(buf, len, "the header's %s",
			 rule ? rule->name : "registers");
		return;
	}
	cap = smartio_config_cap_at(l, where);
	if (!cap) {
		snprintf(buf, len, "config space outside every capability");
		return;
	}
	kind = smartio_config_kind_of(cap);
	if (kind)
		snprintf(buf, len, "the %s at %#x, %s", kind->name, cap->start,
			 rule ? rule->name : "register");
	else
		snprintf(buf, len, "the %scapability %#x at %#x",
			 cap->ext ? "extended " : "", cap->id, cap->start);
	if (!rule && kind)
		snprintf(buf + strlen(buf), len - strlen(buf), " +%#x",
			 where - cap->start);
}

/* Is a write of @size bytes at @where one config space of @cfg_size has? */
static bool smartio_config_access_ok(u16 where, int size, int cfg_size)
{
	return (size == 1 || size == 2 || size == 4) &&
	       !(where & (size - 1)) && where + size <= cfg_size;
}

/* --- the lender --- */

static int smartio_config_read_raw(struct pci_dev *pdev, u16 where, int size,
				   u32 *val)
{
	u16 w;
	u8 b;
	int ret;

	switch (size) {
	case 1:
		ret = pci_read_config_byte(pdev, where, &b);
		*val = b;
		break;
	case 2:
		ret = pci_read_config_word(pdev, where, &w);
		*val = w;
		break;
	default:
		ret = pci_read_config_dword(pdev, where, val);
		break;
	}
	return ret ? -EIO : 0;
}

static int smartio_config_write_raw(struct pci_dev *pdev, u16 where, int size,
				    u32 val)
{
	int ret;

	switch (size) {
	case 1:
		ret = pci_write_config_byte(pdev, where, val);
		break;
	case 2:
		ret = pci_write_config_word(pdev, where, val);
		break;
	default:
		ret = pci_write_config_dword(pdev, where, val);
		break;
	}
	return ret ? -EIO : 0;
}

/*
 * A virtual function's own header reads 0xffff as vendor and device id
 * and 0 in its BARs (its memory comes from its physical function's SR-IOV
 * capability): its borrower gets the ids Linux keeps for it, and BARs of
 * its resources' type and at their addresses.
 */
static void smartio_config_virtfn(struct pci_dev *pdev, u8 *config)
{
	int i;

	put_unaligned_le16(pdev->vendor, &config[PCI_VENDOR_ID]);
	put_unaligned_le16(pdev->device, &config[PCI_DEVICE_ID]);
	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		unsigned long flags = pci_resource_flags(pdev, i);
		resource_size_t start = pci_resource_start(pdev, i);
		u8 *bar = &config[PCI_BASE_ADDRESS_0 + 4 * i];

		if (!(flags & IORESOURCE_MEM) || !pci_resource_len(pdev, i))
			continue;
		put_unaligned_le32(lower_32_bits(start) |
				   (flags & IORESOURCE_PREFETCH ?
				    PCI_BASE_ADDRESS_MEM_PREFETCH : 0) |
				   (flags & IORESOURCE_MEM_64 ?
				    PCI_BASE_ADDRESS_MEM_TYPE_64 : 0), bar);
		if ((flags & IORESOURCE_MEM_64) && i + 1 < PCI_STD_NUM_BARS) {
			put_unaligned_le32(upper_32_bits(start), bar + 4);
			i++;
		}
	}
}

/**
 * smartio_config_lend() - A function's config space, as it is lent.
 * @pdev: The function, set up for its borrower.
 * @layout: Set to its capabilities: what its borrower's writes are
 *	judged by while it is lent.
 * @resp: Its config fields are filled in: the first 256 bytes of config
 *	space as a driver expects them, its size, whether this node can
 *	reset the function.
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int smartio_config_lend(struct pci_dev *pdev,
			struct smartio_config_layout *layout,
			struct smartio_borrow_resp *resp)
{
	u16 size = min(pdev->cfg_size, PCI_CFG_SPACE_EXP_SIZE);
	u8 *cfg;
	u32 v;
	int i;

	cfg = kzalloc(PCI_CFG_SPACE_EXP_SIZE, GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	for (i = 0; i < size; i += 4) {
		pci_read_config_dword(pdev, i, &v);
		put_unaligned_le32(v, &cfg[i]);
	}
	smartio_config_layout_build(layout, cfg, size);
	memcpy(resp->config, cfg, sizeof(resp->config));
	if (pdev->is_virtfn)
		smartio_config_virtfn(pdev, resp->config);
	resp->config_size = cpu_to_le16(size);
	/* As the PCI core's pci_reset_supported(), which it keeps to itself. */
	resp->flags = cpu_to_le16(pdev->reset_methods[0] ?
				  SMARTIO_BORROW_RESETTABLE : 0);
	kfree(cfg);
	return 0;
}

/**
 * smartio_config_write() - Serve a borrower's config write.
 * @pdev: The function, lent to @node.
 * @layout: Its capabilities (smartio_config_lend()).
 * @node: Its borrower.
 * @w: The write, from @node: nothing in it is trusted.
 *
 * What the policy allows is written; a write that would change what is
 * the lender's changes nothing and is said once (rate-limited).
 *
 * Context: Process context.
 * Return: 0, -EPERM (refused), -EINVAL (not a config access of @pdev's),
 * -EIO (the write failed).
 */
int smartio_config_write(struct pci_dev *pdev,
			 const struct smartio_config_layout *layout, u16 node,
			 const struct smartio_config_write *w)
{
	u16 where = le16_to_cpu(w->offset);
	u32 val = le32_to_cpu(w->value);
	struct smartio_config_judgement j;
	char what[96];
	u32 cur;
	int ret;

	if (w->reserved || !smartio_config_access_ok(where, w->size,
						     layout->size)) {
		dev_warn_ratelimited(&pdev->dev, "node %u's config write of %u bytes at %#x refused: not an aligned access within its %u-byte config space\n",
				     node, w->size, where, layout->size);
		return -EINVAL;
	}
	ret = smartio_config_read_raw(pdev, where, w->size, &cur);
	if (ret)
		return ret;
	if (smartio_config_judge(layout, where, w->size, val, cur, &j)) {
		smartio_config_describe(layout, j.refused, what, sizeof(what));
		dev_warn_ratelimited(&pdev->dev, "node %u's config write of %#x at %#x (%u bytes) refused: %s is the lender's while it lends\n",
				     node, val, where, w->size, what);
		return -EPERM;
	}
	if (!j.write)
		return 0;
	return smartio_config_write_raw(pdev, where, w->size, j.hw);
}

/**
 * smartio_config_read() - Serve a borrower's config read.
 * @pdev: The function, lent to @node.
 * @node: Its borrower.
 * @r: The request, from @node: nothing in it is trusted.
 * @resp: Filled with the bytes read.
 * @resp_len: Set to their number.
 *
 * Context: Process context.
 * Return: 0, or -EINVAL (not a config access of @pdev's).
 */
int smartio_config_read(struct pci_dev *pdev, u16 node,
			const struct smartio_config_read_req *r, void *resp,
			u32 *resp_len)
{
	u16 where = le16_to_cpu(r->offset);
	u16 size = le16_to_cpu(r->size);
	u32 v;
	int i;

	if (!(size < 4 ? smartio_config_access_ok(where, size, pdev->cfg_size) :
	      size <= SMARTIO_CONFIG_READ_MAX && !(size & 3) && !(where & 3) &&
	      where + size <= pdev->cfg_size)) {
		dev_warn_ratelimited(&pdev->dev, "node %u's config read of %u bytes at %#x refused: not an aligned access within its %d-byte config space\n",
				     node, size, where, pdev->cfg_size);
		return -EINVAL;
	}
	for (i = 0; i < size; i += 4) {
		if (smartio_config_read_raw(pdev, where + i, min_t(int, size, 4),
					    &v))
			v = ~0U;
		put_unaligned_le32(v, resp + i);
	}
	*resp_len = size;
	return 0;
}

/**
 * smartio_config_reset() - Reset a lent function for its borrower.
 * @pdev: The function, lent to @node.
 * @node: Its borrower, which asked.
 *
 * Its state is saved and restored around the reset (the BARs, decoding
 * and bus master as they were; the borrower restores what it set, its
 * interrupts among them); its IOMMU domain and the windows onto the
 * borrower are not touched.
 *
 * Context: Process context, with @pdev's device lock held; sleeps.
 * Return: 0 or -errno.
 */
int smartio_config_reset(struct pci_dev *pdev, u16 node)
{
	int ret = pci_reset_function_locked(pdev);

	if (ret)
		pci_warn(pdev, "node %u asked for a reset, which failed: %d\n",
			 node, ret);
	else
		pci_info(pdev, "reset for node %u, its state restored\n",
			 node);
	return ret;
}

/* --- the borrower's shadow --- */

/* How long a register read from the lender is served from the copy. */
#define SMARTIO_SHADOW_FRESH	(HZ / 10)

/*
 * The bits @bits of the 16-bit register at @reg where they fall in an
 * access of @size bytes at @where; 0 where it does not cover them.
 */
static u32 smartio_config_place(int where, int size, int reg, u16 bits)
{
	u32 out = 0;
	int i, j;

	for (i = 0; i < size; i++) {
		j = where + i - reg;
		if (j >= 0 && j < 2)
			out |= ((bits >> (8 * j)) & 0xffU) << (8 * i);
	}
	return out;
}

/* The accessors' status for a verdict, an error of the lender's or ours. */
static int smartio_config_pcibios(int err)
{
	switch (err) {
	case 0:
		return PCIBIOS_SUCCESSFUL;
	case -EPERM:
	case -EIO:
		return PCIBIOS_SET_FAILED;
	case -EINVAL:
		return PCIBIOS_BAD_REGISTER_NUMBER;
	default:	/* the lender is not there to say */
		return PCIBIOS_DEVICE_NOT_FOUND;
	}
}

/* Reads @size bytes at @where of the function's config space on its lender. */
static int smartio_shadow_fetch(struct smartio_shadow *sh, u16 where,
				u16 size, u8 *buf)
{
	struct smartio_config_read_req req = {
		.fdid = cpu_to_le32(sh->fdid),
		.offset = cpu_to_le16(where),
		.size = cpu_to_le16(size),
	};

	return smartio_lend_call(sh->lender, SMARTIO_MSG_OP_CONFIG_READ, &req,
				 sizeof(req), buf, size, SMARTIO_LEND_TIMEOUT);
}

static bool smartio_shadow_stale(const struct smartio_shadow_dynamic *d)
{
	return d->where && time_after_eq(jiffies, READ_ONCE(d->fresh_until));
}

/* Reads dynamic register @d from the lender into the copy. Sleeps. */
static void smartio_shadow_refresh_one(struct smartio_shadow *sh,
				       struct smartio_shadow_dynamic *d)
{
	unsigned long flags;
	u8 buf[2];
	u16 old;
	int ret;

	ret = smartio_shadow_fetch(sh, d->where, sizeof(buf), buf);
	spin_lock_irqsave(&sh->config_lock, flags);
	if (!ret) {
		old = get_unaligned_le16(&sh->config[d->where]);
		put_unaligned_le16((old & ~d->mask) |
				   (get_unaligned_le16(buf) & d->mask),
				   &sh->config[d->where]);
	}
	/* Even when it failed: a lender that does not answer is not asked
	 * again at every read.
	 */
	WRITE_ONCE(d->fresh_until, jiffies + SMARTIO_SHADOW_FRESH);
	spin_unlock_irqrestore(&sh->config_lock, flags);
}

static void smartio_shadow_refresh_work(struct work_struct *work)
{
	struct smartio_shadow *sh = container_of(work, struct smartio_shadow,
						 refresh);
	int i;

	for (i = 0; i < SMARTIO_CONFIG_NR_DYNAMIC; i++)
		if (!READ_ONCE(sh->lost) && smartio_shadow_stale(&sh->dynamic[i]))
			smartio_shadow_refresh_one(sh, &sh->dynamic[i]);
}

/*
 * Before a read of @size bytes at @where: the stale registers it covers
 * that the function changes on its own are read from the lender, where
 * the reader may sleep; for an atomic reader, for the next one.
 */
static void smartio_shadow_refresh(struct smartio_shadow *sh, int where,
				   int size)
{
	struct smartio_shadow_dynamic *d;
	unsigned long flags;
	int i;

	for (i = 0; i < SMARTIO_CONFIG_NR_DYNAMIC; i++) {
		d = &sh->dynamic[i];
		if (!smartio_shadow_stale(d) || where >= d->where + 2 ||
		    where + size <= d->where)
			continue;
		if (preemptible()) {
			smartio_shadow_refresh_one(sh, d);
			continue;
		}
		spin_lock_irqsave(&sh->config_lock, flags);
		if (!sh->closing)
			queue_work(system_wq, &sh->refresh);
		spin_unlock_irqrestore(&sh->config_lock, flags);
	}
}

static int smartio_shadow_read(struct pci_bus *bus, unsigned int devfn,
			       int where, int size, u32 *val)
{
	struct smartio_shadow *sh = smartio_shadow_of_bus(bus);
	unsigned long flags;

	if (devfn || where < 0 || where + size > SMARTIO_SHADOW_CONFIG_SIZE) {
		*val = ~0U;
		return PCIBIOS_DEVICE_NOT_FOUND;
	}
	/*
	 * A lost device reads all-ones, as one that fell off a real bus;
	 * past its config space, as a function without extended space.
	 */
	if (READ_ONCE(sh->lost) || where >= sh->config_size) {
		*val = ~0U;
		return PCIBIOS_SUCCESSFUL;
	}
	smartio_shadow_refresh(sh, where, size);
	spin_lock_irqsave(&sh->config_lock, flags);
	switch (size) {
	case 1:
		*val = sh->config[where];
		break;
	case 2:
		*val = get_unaligned_le16(&sh->config[where]);
		break;
	default:
		*val = get_unaligned_le32(&sh->config[where]);
		break;
	}
	spin_unlock_irqrestore(&sh->config_lock, flags);
	return PCIBIOS_SUCCESSFUL;
}

/* Merges a write of @size bytes at @where into the dword at @reg. */
static u32 smartio_shadow_merge(u32 old, int reg, int where, int size, u32 val)
{
	int shift = (where - reg) * 8;
	u32 mask = size == 4 ? ~0U : (BIT(size * 8) - 1) << shift;

	return (old & ~mask) | ((val << shift) & mask);
}

/*
 * The part of config space that is this node's own, never sent: BAR
 * sizing (only the address bits above a BAR's size stick), the expansion
 * ROM (none) and the interrupt line (this host's bookkeeping). True if
 * the write was there. Called with config_lock held.
 */
static bool smartio_shadow_write_own(struct smartio_shadow *sh, int where,
				     int size, u32 val)
{
	int reg = where & ~3;
	u32 old = get_unaligned_le32(&sh->config[reg]);
	u32 v = smartio_shadow_merge(old, reg, where, size, val);
	u32 mask;

	if (reg >= PCI_BASE_ADDRESS_0 && reg <= PCI_BASE_ADDRESS_5) {
		mask = sh->bar_mask[(reg - PCI_BASE_ADDRESS_0) / 4];
		put_unaligned_le32((old & ~mask) | (v & mask), &sh->config[reg]);
		return true;
	}
	if (reg == PCI_INTERRUPT_LINE)
		sh->config[PCI_INTERRUPT_LINE] = v;
	return reg == PCI_ROM_ADDRESS || reg == PCI_INTERRUPT_LINE;
}

/**
 * struct smartio_shadow_write - A write of the shadow's, judged.
 * @fwd: The value the lender gets.
 * @send: The lender gets it.
 * @reset: It initiates FLR: the lender resets the function.
 * @verdict: 0, -EPERM or -EINVAL: the lender's permissions applied to
 *	the copy; the lender, the authority, judges again.
 * @reg: The dword of the copy it is in.
 * @old: That dword before.
 * @new: That dword after.
 */
struct smartio_shadow_write {
	u32 fwd;
	bool send;
	bool reset;
	int verdict;
	int reg;
	u32 old;
	u32 new;
};

/*
 * Applies a write of @val (@size bytes at @where) to the copy as the
 * lender's permissions allow, and says what to send in @w. Some bits are
 * the shadow's own: the decoding and INTx command bits (the lender keeps
 * its own, whatever it is sent) and Max_Payload_Size (the lender's is
 * sent); initiate FLR is not a bit but the lender's reset. Called with
 * config_lock held.
 */
static void smartio_shadow_judge(struct smartio_shadow *sh, int where,
				 int size, u32 val,
				 struct smartio_shadow_write *w)
{
	const struct smartio_config_layout *l = &sh->layout;
	int devctl = l->exp + PCI_EXP_DEVCTL, shift = (where & 3) * 8;
	u32 access = size == 4 ? ~0U : BIT(size * 8) - 1;
	u32 own = smartio_config_place(where, size, PCI_COMMAND,
				       SMARTIO_LENDER_COMMAND);
	u32 mps = 0, lender_mps = 0, flr = 0, cur, cur_l, new;
	struct smartio_config_judgement j;

	if (l->exp) {
		mps = smartio_config_place(where, size, devctl,
					   PCI_EXP_DEVCTL_PAYLOAD);
		lender_mps = smartio_config_place(where, size, devctl,
						  sh->lender_mps);
		flr = smartio_config_place(where, size, devctl,
					   PCI_EXP_DEVCTL_BCR_FLR);
	}
	w->reg = where & ~3;
	w->old = get_unaligned_le32(&sh->config[w->reg]);
	w->new = w->old;
	w->reset = val & flr;
	w->fwd = (val & ~mps & ~flr) | lender_mps;
	w->send = true;
	if (where >= sh->config_size) {
		w->verdict = -EINVAL;
		return;
	}
	cur = (w->old >> shift) & access;
	cur_l = (cur & ~mps) | lender_mps;
	w->verdict = smartio_config_judge(l, where, size, w->fwd, cur_l, &j);
	if (w->verdict)
		return;	/* the copy stays; the lender says so too */
	new = (j.copy & ~(mps | own)) | (val & (mps | own));
	w->new = (w->old & ~(access << shift)) | (new << shift);
	put_unaligned_le32(w->new, &sh->config[w->reg]);
	/*
	 * Nothing to send where only the shadow's own bits change: Linux
	 * toggles decoding around each BAR's sizing and INTx around MSI
	 * setup (each would be a round trip), and initiate FLR comes with
	 * device control as it is.
	 */
	if (w->reg == PCI_COMMAND &&
	    !((new ^ cur) & smartio_config_place(where, size, PCI_COMMAND,
						 ~SMARTIO_LENDER_COMMAND)) &&
	    !(val & smartio_config_place(where, size, PCI_STATUS, 0xffff)))
		w->send = false;
	if (w->reset && !((new ^ cur) & ~mps) &&
	    !(val & smartio_config_place(where, size, l->exp + PCI_EXP_DEVSTA,
					 0xffff)))
		w->send = false;
}

/*
 * Sends a write to the lender. Where we may sleep, it waits until the
 * write is done, so that MMIO that follows it (through our windows, not
 * the messages) finds it done, and returns the lender's verdict; in
 * atomic context it is posted, still ordered with our other messages,
 * and the verdict is that of the same permissions on our copy.
 */
static int smartio_shadow_send(struct smartio_shadow *sh, int where, int size,
			       const struct smartio_shadow_write *w)
{
	struct smartio_config_write msg = {
		.fdid = cpu_to_le32(sh->fdid),
		.value = cpu_to_le32(w->fwd),
		.offset = cpu_to_le16(where),
		.size = size,
	};
	unsigned long flags;
	int ret;

	if (!preemptible()) {
		ret = smartio_msg_post(sh->lender, SMARTIO_MSG_OP_CONFIG_WRITE,
				       &msg, sizeof(msg));
		return ret ?: w->verdict;
	}
	ret = smartio_lend_call(sh->lender, SMARTIO_MSG_OP_CONFIG_WRITE, &msg,
				sizeof(msg), NULL, 0, SMARTIO_LEND_TIMEOUT);
	if (ret && !w->verdict) {
		/* Refused after all: the copy is what the lender has. */
		spin_lock_irqsave(&sh->config_lock, flags);
		if (get_unaligned_le32(&sh->config[w->reg]) == w->new)
			put_unaligned_le32(w->old, &sh->config[w->reg]);
		spin_unlock_irqrestore(&sh->config_lock, flags);
	}
	return ret;
}

/* Initiate FLR: the lender resets the function, its state restored. */
static int smartio_shadow_reset(struct smartio_shadow *sh)
{
	struct smartio_reset_req req = { .fdid = cpu_to_le32(sh->fdid) };
	unsigned long flags;
	int ret, i;

	if (preemptible())
		ret = smartio_lend_call(sh->lender, SMARTIO_MSG_OP_RESET, &req,
					sizeof(req), NULL, 0,
					SMARTIO_LEND_RESET_TIMEOUT);
	else
		ret = smartio_msg_post(sh->lender, SMARTIO_MSG_OP_RESET, &req,
				       sizeof(req));
	/* What the function changed on its own is read again when next read. */
	spin_lock_irqsave(&sh->config_lock, flags);
	for (i = 0; i < SMARTIO_CONFIG_NR_DYNAMIC; i++)
		WRITE_ONCE(sh->dynamic[i].fresh_until, jiffies);
	spin_unlock_irqrestore(&sh->config_lock, flags);
	return ret;
}

static int smartio_shadow_write(struct pci_bus *bus, unsigned int devfn,
				int where, int size, u32 val)
{
	struct smartio_shadow *sh = smartio_shadow_of_bus(bus);
	struct smartio_shadow_write w;
	unsigned long flags;
	bool own;
	int ret;

	if (devfn || where < 0 || where + size > SMARTIO_SHADOW_CONFIG_SIZE)
		return PCIBIOS_DEVICE_NOT_FOUND;
	if (READ_ONCE(sh->lost))
		return PCIBIOS_SUCCESSFUL;

	spin_lock_irqsave(&sh->config_lock, flags);
	own = smartio_shadow_write_own(sh, where, size, val);
	if (!own)
		smartio_shadow_judge(sh, where, size, val, &w);
	spin_unlock_irqrestore(&sh->config_lock, flags);
	if (own)
		return PCIBIOS_SUCCESSFUL;

	ret = w.send ? smartio_shadow_send(sh, where, size, &w) : w.verdict;
	if (!ret && w.reset)
		ret = smartio_shadow_reset(sh);
	if (ret)
		dev_notice_ratelimited(&bus->dev, "fdid %x: config write of %#x at %#x (%d bytes)%s refused by its lender, node %u: %pe\n",
				       sh->fdid, val, where, size,
				       w.reset ? ", a reset," : "", sh->lender,
				       ERR_PTR(ret));
	return smartio_config_pcibios(ret);
}

struct pci_ops smartio_shadow_pci_ops = {
	.read = smartio_shadow_read,
	.write = smartio_shadow_write,
};

/* Sets the next pointer of the extended capability at @pos of @cfg. */
static void smartio_config_set_next(u8 *cfg, u16 pos, u16 next)
{
	u32 header = get_unaligned_le32(&cfg[pos]);

	put_unaligned_le32((header & 0xfffff) | (u32)next << 20, &cfg[pos]);
}

/*
 * The capability lists the shadow shows: only what the borrower may use.
 * The hidden capabilities' registers stay where they are, unlisted; a
 * hidden one at the head of the extended list leaves a capability of id
 * 0 in its place (as vfio does), which leads to the first shown.
 */
static void smartio_shadow_hide_caps(struct smartio_shadow *sh)
{
	const struct smartio_config_layout *l = &sh->layout;
	const struct smartio_config_kind *kind;
	int prev = PCI_CAPABILITY_LIST, ext_prev = 0, i;
	u8 *cfg = sh->config;
	u16 status;

	for (i = 0; i < l->nr_caps; i++) {
		const struct smartio_config_cap *cap = &l->caps[i];

		kind = smartio_config_kind_of(cap);
		if (!kind || !kind->visible)
			continue;
		if (!cap->ext) {
			cfg[prev] = cap->start;
			prev = cap->start + PCI_CAP_LIST_NEXT;
			continue;
		}
		if (!ext_prev) {
			ext_prev = PCI_CFG_SPACE_SIZE;
			if (cap->start != ext_prev)
				put_unaligned_le32(0, &cfg[ext_prev]);
		}
		if (cap->start != ext_prev)
			smartio_config_set_next(cfg, ext_prev, cap->start);
		ext_prev = cap->start;
	}
	cfg[prev] = 0;
	if (prev == PCI_CAPABILITY_LIST) {
		status = get_unaligned_le16(&cfg[PCI_STATUS]);
		put_unaligned_le16(status & ~PCI_STATUS_CAP_LIST,
				   &cfg[PCI_STATUS]);
	}
	if (ext_prev)
		smartio_config_set_next(cfg, ext_prev, 0);
	else if (sh->config_size > PCI_CFG_SPACE_SIZE)
		put_unaligned_le32(0, &cfg[PCI_CFG_SPACE_SIZE]);
}

/*
 * The copy as the shadow shows it: no ROM, no interrupt pin (INTx does
 * not cross the fabric), FLR where the lender can reset the function,
 * no soft reset in power management (its power state stays), and only
 * the capabilities the borrower may use.
 */
static void smartio_shadow_virtualise(struct smartio_shadow *sh)
{
	const struct smartio_config_layout *l = &sh->layout;
	u8 *cfg = sh->config;
	u32 devcap;
	u16 v;

	put_unaligned_le32(0, &cfg[PCI_ROM_ADDRESS]);
	cfg[PCI_INTERRUPT_PIN] = 0;
	cfg[PCI_INTERRUPT_LINE] = 0;
	v = get_unaligned_le16(&cfg[PCI_STATUS]);
	put_unaligned_le16(v & ~PCI_STATUS_INTERRUPT, &cfg[PCI_STATUS]);
	if (l->pm) {
		v = get_unaligned_le16(&cfg[l->pm + PCI_PM_CTRL]);
		put_unaligned_le16(v | PCI_PM_CTRL_NO_SOFT_RESET,
				   &cfg[l->pm + PCI_PM_CTRL]);
	}
	if (l->exp) {
		devcap = get_unaligned_le32(&cfg[l->exp + PCI_EXP_DEVCAP]);
		devcap &= ~PCI_EXP_DEVCAP_FLR;
		if (sh->resettable)
			devcap |= PCI_EXP_DEVCAP_FLR;
		put_unaligned_le32(devcap, &cfg[l->exp + PCI_EXP_DEVCAP]);
		v = get_unaligned_le16(&cfg[l->exp + PCI_EXP_DEVCTL]);
		sh->lender_mps = v & PCI_EXP_DEVCTL_PAYLOAD;
		put_unaligned_le16(v & ~PCI_EXP_DEVCTL_BCR_FLR,
				   &cfg[l->exp + PCI_EXP_DEVCTL]);
	}
	smartio_shadow_hide_caps(sh);
}

/* The registers the function changes on its own, just read. */
static void smartio_shadow_dynamic_init(struct smartio_shadow *sh)
{
	const struct smartio_config_layout *l = &sh->layout;
	const struct smartio_shadow_dynamic regs[SMARTIO_CONFIG_NR_DYNAMIC] = {
		{ PCI_STATUS,
		  (u16)~(PCI_STATUS_INTERRUPT | PCI_STATUS_CAP_LIST) },
		{ l->pm ? l->pm + PCI_PM_CTRL : 0,
		  (u16)~PCI_PM_CTRL_NO_SOFT_RESET },
		{ l->exp ? l->exp + PCI_EXP_DEVSTA : 0, 0xffff },
		{ l->exp ? l->exp + PCI_EXP_LNKSTA : 0, 0xffff },
	};
	int i;

	for (i = 0; i < SMARTIO_CONFIG_NR_DYNAMIC; i++) {
		sh->dynamic[i] = regs[i];
		sh->dynamic[i].fresh_until = jiffies + SMARTIO_SHADOW_FRESH;
	}
}

/**
 * smartio_shadow_config_init() - A shadow's config space, from its lender.
 * @sh: The shadow, its config_lock initialised.
 * @resp: The lender's answer to the borrow: its first 256 bytes.
 *
 * The rest of extended config space is read from the lender.
 *
 * Context: Process context; sleeps for round trips to the lender.
 * Return: 0 or -errno, with one message.
 */
int smartio_shadow_config_init(struct smartio_shadow *sh,
			       const struct smartio_borrow_resp *resp)
{
	u16 size = le16_to_cpu(resp->config_size);
	u16 where, n;
	int ret;

	INIT_WORK(&sh->refresh, smartio_shadow_refresh_work);
	if (size != PCI_CFG_SPACE_SIZE && size != PCI_CFG_SPACE_EXP_SIZE) {
		dev_err(&sh->ntb->dev, "fdid %x: its lender, node %u, gives it a config space of %u bytes\n",
			sh->fdid, sh->lender, size);
		return -EBADMSG;
	}
	sh->config_size = size;
	sh->resettable = le16_to_cpu(resp->flags) & SMARTIO_BORROW_RESETTABLE;
	memcpy(sh->config, resp->config, sizeof(resp->config));
	for (where = PCI_CFG_SPACE_SIZE; where < size; where += n) {
		n = min_t(u16, size - where, SMARTIO_CONFIG_READ_MAX);
		ret = smartio_shadow_fetch(sh, where, n, &sh->config[where]);
		if (ret) {
			dev_err(&sh->ntb->dev, "fdid %x: cannot read its extended config space from its lender, node %u: %pe\n",
				sh->fdid, sh->lender, ERR_PTR(ret));
			return ret;
		}
	}
	smartio_config_layout_build(&sh->layout, sh->config, size);
	smartio_shadow_virtualise(sh);
	smartio_shadow_dynamic_init(sh);
	return 0;
}

/**
 * smartio_shadow_config_exit() - A shadow's config space reads no more
 *	from its lender on its own.
 * @sh: The shadow, after smartio_shadow_config_init().
 *
 * Context: Process context; sleeps.
 */
void smartio_shadow_config_exit(struct smartio_shadow *sh)
{
	unsigned long flags;

	spin_lock_irqsave(&sh->config_lock, flags);
	sh->closing = true;
	spin_unlock_irqrestore(&sh->config_lock, flags);
	cancel_work_sync(&sh->refresh);
}
