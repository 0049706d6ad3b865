// SPDX-License-Identifier: GPL-2.0
/*
 * Config space of a lent function: the permission table saying which
 * bits of which registers a borrower may write, and the judge applying it
 * to a write (see include/smartio/pci_config.h for the policy). Modelled
 * on drivers/vfio/pci/vfio_pci_config.c.
 *
 * Pure logic: no kernel headers, built both into the kernel module and into
 * the userspace unit tests (tests/unit/check_pci_config.c).
 */
#include <smartio/compat.h>
#include <smartio/le.h>
#include <smartio/pci_config.h>

#define SMARTIO_NR(a)	((unsigned int)(sizeof(a) / sizeof((a)[0])))
/* A capability whose registers do not say its length: up to the next. */
#define SMARTIO_CAP_LEN_OPEN	0xffffU

static u16 smartio_min16(u16 a, u16 b)
{
	return a < b ? a : b;
}

static u16 smartio_max16(u16 a, u16 b)
{
	return a > b ? a : b;
}

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

#define SMARTIO_CAP(i, v, n, r) \
	{ .id = (i), .visible = (v), .name = (n), .rules = (r), \
	  .nr_rules = SMARTIO_NR(r) }
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

/**
 * smartio_config_kind_of() - What the policy knows of a capability.
 * @cap: The capability, of a layout.
 *
 * Return: Its kind, or NULL: the policy knows nothing of it (the shadow
 * hides it and a borrower writes nothing in it).
 */
const struct smartio_config_kind *
smartio_config_kind_of(const struct smartio_config_cap *cap)
{
	unsigned int i;

	for (i = 0; i < SMARTIO_NR(smartio_config_kinds); i++)
		if (smartio_config_kinds[i].id == cap->id &&
		    smartio_config_kinds[i].ext == cap->ext)
			return &smartio_config_kinds[i];
	return NULL;
}
EXPORT_SYMBOL_GPL(smartio_config_kind_of);

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
 * registers tell; SMARTIO_CAP_LEN_OPEN where they do not: then up to the next
 * capability (all of an extended one is the lender's alike).
 */
static u16 smartio_config_cap_len(const u8 *cfg, u16 pos, u16 id, bool ext)
{
	u16 flags = smartio_get_le16(&cfg[pos + PCI_CAP_FLAGS]);
	unsigned int i;

	if (ext) {
		for (i = 0; i < SMARTIO_NR(smartio_config_ext_len); i++)
			if (smartio_config_ext_len[i].id == id)
				return smartio_config_ext_len[i].len;
		return SMARTIO_CAP_LEN_OPEN;
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
		return smartio_max16(cfg[pos + PCI_CAP_FLAGS], PCI_CAP_FLAGS);
	}
	return SMARTIO_CAP_LEN_OPEN;
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
				end = smartio_min16(end, l->caps[j].start);
		cap->len = smartio_min16(cap->len, end - cap->start);
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

	l->pm = 0;
	l->exp = 0;
	l->nr_caps = 0;
	l->size = size;
	pos = cfg[PCI_CAPABILITY_LIST] & ~3;
	if (!(smartio_get_le16(&cfg[PCI_STATUS]) & PCI_STATUS_CAP_LIST))
		pos = 0;
	while (pos >= PCI_STD_HEADER_SIZEOF && ttl-- &&
	       cfg[pos] != 0xff &&
	       smartio_config_add_cap(l, cfg, pos, cfg[pos], false))
		pos = cfg[pos + PCI_CAP_LIST_NEXT] & ~3;

	ttl = (size - PCI_CFG_SPACE_SIZE) / PCI_CAP_SIZEOF;
	pos = PCI_CFG_SPACE_SIZE;
	while (pos >= PCI_CFG_SPACE_SIZE && pos + PCI_CAP_SIZEOF <= size &&
	       ttl--) {
		header = smartio_get_le32(&cfg[pos]);
		if (!header || header == ~0U ||
		    !smartio_config_add_cap(l, cfg, pos,
					    PCI_EXT_CAP_ID(header), true))
			break;
		pos = PCI_EXT_CAP_NEXT(header);
	}
	smartio_config_clamp_caps(l);
}
EXPORT_SYMBOL_GPL(smartio_config_layout_build);

/**
 * smartio_config_cap_at() - The capability a byte of config space is in.
 * @l: The function's layout.
 * @where: The byte's offset.
 *
 * Return: The capability, or NULL: the header or no capability's space.
 */
const struct smartio_config_cap *
smartio_config_cap_at(const struct smartio_config_layout *l, u16 where)
{
	int i;

	for (i = 0; i < l->nr_caps; i++)
		if (where >= l->caps[i].start &&
		    where - l->caps[i].start < l->caps[i].len)
			return &l->caps[i];
	return NULL;
}
EXPORT_SYMBOL_GPL(smartio_config_cap_at);

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
		u16 rlen = r->len ?: len - smartio_min16(len, r->off);
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

/**
 * smartio_config_perm_at() - What a borrower's write may do to a byte.
 * @l: The function's layout.
 * @where: The byte's offset, within @l's config space.
 * @p: Set to its permissions; all zero: the lender's.
 *
 * Return: The rule that says so; NULL for a capability's header, the
 * bytes of no capability, and the registers the policy does not know.
 */
const struct smartio_config_rule *
smartio_config_perm_at(const struct smartio_config_layout *l, u16 where,
		       struct smartio_config_perm *p)
{
	const struct smartio_config_kind *kind;
	const struct smartio_config_cap *cap;
	u16 off;

	*p = (struct smartio_config_perm){ 0 };
	if (where < PCI_STD_HEADER_SIZEOF)
		return smartio_config_rule_at(smartio_config_header,
					      SMARTIO_NR(smartio_config_header),
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
EXPORT_SYMBOL_GPL(smartio_config_perm_at);

/**
 * smartio_config_judge() - Judge a borrower's write under the policy.
 * @l: The function's layout.
 * @where: The write's offset, aligned and within @l's config space
 *	(smartio_config_access_ok()).
 * @size: Its bytes: 1, 2 or 4.
 * @val: The value written.
 * @cur: The value of the registers it covers, before.
 * @j: Set to what it does: what to write to the function, what a copy of
 *	the registers holds after, and where it was refused.
 *
 * Return: 0, or -EPERM: it would change a bit that is the lender's (then
 * nothing is to be written).
 */
int smartio_config_judge(const struct smartio_config_layout *l, u16 where,
			 int size, u32 val, u32 cur,
			 struct smartio_config_judgement *j)
{
	struct smartio_config_perm p;
	int i;

	*j = (struct smartio_config_judgement){ 0 };
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
EXPORT_SYMBOL_GPL(smartio_config_judge);

/**
 * smartio_config_access_ok() - Is an access one a config space has?
 * @where: Its offset.
 * @size: Its bytes.
 * @cfg_size: Bytes of the config space.
 *
 * Return: @size is 1, 2 or 4, @where is aligned to it, and the access
 * ends within @cfg_size.
 */
bool smartio_config_access_ok(u16 where, int size, int cfg_size)
{
	return (size == 1 || size == 2 || size == 4) &&
	       !(where & (size - 1)) && where + size <= cfg_size;
}
EXPORT_SYMBOL_GPL(smartio_config_access_ok);

/* --- what a shadow shows --- */

/* Sets the next pointer of the extended capability at @pos of @cfg. */
static void smartio_config_set_next(u8 *cfg, u16 pos, u16 next)
{
	u32 header = smartio_get_le32(&cfg[pos]);

	smartio_put_le32(&cfg[pos], (header & 0xfffff) | (u32)next << 20);
}

/*
 * The capability lists the shadow shows: only what the borrower may use.
 * The hidden capabilities' registers stay where they are, unlisted; a
 * hidden one at the head of the extended list leaves a capability of id
 * 0 in its place (as vfio does), which leads to the first shown.
 */
static void smartio_config_hide_caps(const struct smartio_config_layout *l,
				     u8 *cfg)
{
	const struct smartio_config_kind *kind;
	int prev = PCI_CAPABILITY_LIST, ext_prev = 0, i;
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
				smartio_put_le32(&cfg[ext_prev], 0);
		}
		if (cap->start != ext_prev)
			smartio_config_set_next(cfg, ext_prev, cap->start);
		ext_prev = cap->start;
	}
	cfg[prev] = 0;
	if (prev == PCI_CAPABILITY_LIST) {
		status = smartio_get_le16(&cfg[PCI_STATUS]);
		smartio_put_le16(&cfg[PCI_STATUS], status & ~PCI_STATUS_CAP_LIST);
	}
	if (ext_prev)
		smartio_config_set_next(cfg, ext_prev, 0);
	else if (l->size > PCI_CFG_SPACE_SIZE)
		smartio_put_le32(&cfg[PCI_CFG_SPACE_SIZE], 0);
}

/**
 * smartio_config_virtualise() - A config space as a shadow shows it.
 * @l: Its layout (smartio_config_layout_build() of @cfg).
 * @cfg: The lender's config space, @l->size bytes: changed in place.
 * @resettable: The lender can reset the function.
 *
 * No ROM, no interrupt pin or line and no interrupt status (INTx does
 * not cross the fabric); FLR where the lender can reset the function and
 * no initiate FLR bit set; no soft reset in power management (its power
 * state stays: a power state change is refused); only the capabilities
 * the borrower may use listed, the hidden ones' registers left unlisted
 * where they are.
 *
 * Return: The Max_Payload_Size the lender set in device control (0
 * without a PCI Express capability): what the lender is sent whatever
 * the shadow's driver sets.
 */
u16 smartio_config_virtualise(const struct smartio_config_layout *l, u8 *cfg,
			      bool resettable)
{
	u16 mps = 0, v;
	u32 devcap;

	smartio_put_le32(&cfg[PCI_ROM_ADDRESS], 0);
	cfg[PCI_INTERRUPT_PIN] = 0;
	cfg[PCI_INTERRUPT_LINE] = 0;
	v = smartio_get_le16(&cfg[PCI_STATUS]);
	smartio_put_le16(&cfg[PCI_STATUS], v & ~PCI_STATUS_INTERRUPT);
	if (l->pm) {
		v = smartio_get_le16(&cfg[l->pm + PCI_PM_CTRL]);
		smartio_put_le16(&cfg[l->pm + PCI_PM_CTRL],
				 v | PCI_PM_CTRL_NO_SOFT_RESET);
	}
	if (l->exp) {
		devcap = smartio_get_le32(&cfg[l->exp + PCI_EXP_DEVCAP]);
		devcap &= ~PCI_EXP_DEVCAP_FLR;
		if (resettable)
			devcap |= PCI_EXP_DEVCAP_FLR;
		smartio_put_le32(&cfg[l->exp + PCI_EXP_DEVCAP], devcap);
		v = smartio_get_le16(&cfg[l->exp + PCI_EXP_DEVCTL]);
		mps = v & PCI_EXP_DEVCTL_PAYLOAD;
		smartio_put_le16(&cfg[l->exp + PCI_EXP_DEVCTL],
				 v & ~PCI_EXP_DEVCTL_BCR_FLR);
	}
	smartio_config_hide_caps(l, cfg);
	return mps;
}
EXPORT_SYMBOL_GPL(smartio_config_virtualise);
