/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Config space of a lent function: which bits of which registers its
 * borrower may write, and the judge that applies that to a write
 * (lib/pci_config.c). Modelled on drivers/vfio/pci/vfio_pci_config.c.
 *
 * The lender is the authority: its borrower is another host, trusted
 * with the function but not with how the lender's fabric, IOMMU and
 * power are set up around it. A layout (smartio_config_layout_build())
 * says where the function's capabilities are; a table says, for each
 * register the policy knows, which bits a borrower's write sets
 * (allowed), which are read-only (whatever is written does not matter)
 * and which are cleared by writing one. Every other bit is the lender's:
 * a write that would change one is refused as a whole. In short:
 *
 *  - header: the command bits (bus master, parity and SERR reporting...)
 *    but not decoding or INTx; status bits cleared; cache line size and
 *    latency timer. Never the BARs, the expansion ROM, the interrupt line
 *    or BIST.
 *  - power management: PME status cleared, data select; never the power
 *    state, which stays D0 while lent (D3hot to D0 resets a function and
 *    loses its BARs), nor PME enable.
 *  - MSI and MSI-X: enables, multiple-message enable, function mask,
 *    message address, data and mask bits.
 *  - PCI Express: device control but Max_Payload_Size, phantom functions
 *    and initiate FLR; error status cleared; completion timeout, IDO and
 *    AtomicOp requests in device control 2. Not link control, slot or
 *    root registers.
 *  - every other capability, standard or extended, vendor-specific ones
 *    included (SR-IOV, ATS, ACS, AER, LTR, PASID, resizable BAR...):
 *    nothing.
 *  - standard config space outside every capability is device-specific
 *    (AHCI's port control at 0x92): the borrower's, as vfio has it.
 *    Extended space outside every capability: nothing.
 *
 * Pure logic (include/smartio/compat.h): in smartio.ko, which exports it
 * to the lending module, and in the unit tests.
 */
#ifndef _SMARTIO_PCI_CONFIG_H
#define _SMARTIO_PCI_CONFIG_H

#include <smartio/compat.h>
#include <linux/pci_regs.h>	/* the spec's registers: uapi, both sides */

/* Capabilities a layout holds at most; a function has a few. */
#define SMARTIO_CONFIG_MAX_CAPS		64

/**
 * struct smartio_config_cap - Where a capability is in config space.
 * @start: Its offset.
 * @len: Its length, never past the next capability or its space's end.
 * @id: Its capability id (standard or extended).
 * @ext: It is an extended capability.
 */
struct smartio_config_cap {
	u16 start;
	u16 len;
	u16 id;
	bool ext;
};

/**
 * struct smartio_config_layout - A function's config space as the lender
 *	has it: what the permissions apply to. Built from a copy of it, the
 *	lender's own (at the borrow) and the borrower's (from what the
 *	lender sent).
 * @size: Bytes of config space: 256, or 4096 with extended space.
 * @pm: Offset of the power management capability, 0 if none.
 * @exp: Offset of the PCI Express capability, 0 if none.
 * @nr_caps: Capabilities in @caps.
 * @caps: Each capability, standard then extended, in list order.
 */
struct smartio_config_layout {
	u16 size;
	u16 pm;
	u16 exp;
	u16 nr_caps;
	struct smartio_config_cap caps[SMARTIO_CONFIG_MAX_CAPS];
};

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

/**
 * struct smartio_config_perm - What a write may do to the bits of a byte.
 * @allow: Bits it sets.
 * @rw1c: Bits that writing 1 clears.
 * @ignore: Read-only bits: what is written does not matter.
 */
struct smartio_config_perm {
	u8 allow;
	u8 rw1c;
	u8 ignore;
};

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

void smartio_config_layout_build(struct smartio_config_layout *l,
				 const u8 *cfg, u16 size);
const struct smartio_config_cap *
smartio_config_cap_at(const struct smartio_config_layout *l, u16 where);
const struct smartio_config_kind *
smartio_config_kind_of(const struct smartio_config_cap *cap);
const struct smartio_config_rule *
smartio_config_perm_at(const struct smartio_config_layout *l, u16 where,
		       struct smartio_config_perm *p);
int smartio_config_judge(const struct smartio_config_layout *l, u16 where,
			 int size, u32 val, u32 cur,
			 struct smartio_config_judgement *j);
bool smartio_config_access_ok(u16 where, int size, int cfg_size);
u16 smartio_config_virtualise(const struct smartio_config_layout *l, u8 *cfg,
			      bool resettable);

#endif /* _SMARTIO_PCI_CONFIG_H */
