// SPDX-License-Identifier: GPL-2.0
/*
 * Config space of a lent function: serving its borrower's config accesses
 * on the lender, what its shadow shows, and the config accesses between
 * the two nodes. Modelled on drivers/vfio/pci/vfio_pci_config.c.
 *
 * What a borrower may write is pure logic, in lib/pci_config.c (the
 * permission table and the judge; the policy is told in
 * include/smartio/pci_config.h) and unit tested there. This file is what
 * needs the kernel: the lender reads the function's capabilities at the
 * borrow (a layout), judges each write against the real register and
 * writes what the judge allows; a write that would change a bit that is
 * the lender's is refused as a whole, changes nothing, is logged
 * (rate-limited) naming the borrower, the function and the register, and
 * its writer gets an error. Nothing is written past the function's
 * config size.
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

		if (!smartio_lent_bar(pdev, i))
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

/*
 * Asks the lender for @size bytes at @where of the function's config
 * space; @len is set to the size of its answer: 0 while it takes the
 * function back (its borrower's config accesses are dropped then).
 */
static int smartio_shadow_ask(struct smartio_shadow *sh, u16 where,
			      u16 size, u8 *buf, u32 *len)
{
	struct smartio_config_read_req req = {
		.fdid = cpu_to_le32(sh->fdid),
		.offset = cpu_to_le16(where),
		.size = cpu_to_le16(size),
	};

	*len = 0;
	return smartio_msg_call(sh->lender, SMARTIO_MSG_OP_CONFIG_READ, &req,
				sizeof(req), buf, size, len,
				SMARTIO_LEND_TIMEOUT);
}

/* Reads @size bytes at @where of the function's config space on its lender. */
static int smartio_shadow_fetch(struct smartio_shadow *sh, u16 where,
				u16 size, u8 *buf)
{
	u32 len;
	int ret = smartio_shadow_ask(sh, where, size, buf, &len);

	return !ret && len != size ? -EBADMSG : ret;
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

/**
 * smartio_shadow_dma_stop() - Stop a borrowed function's DMA, confirmed.
 * @sh: The shadow, whose driver let go of the function.
 *
 * Bus Master goes off in the function's command register on its lender,
 * and the lender reads the register back: once it has answered, the
 * function issues no more DMA, and every write we posted through our
 * windows before (a driver's last commands to its device) has reached
 * it, as the messages travel behind them. Only then may this node unmap
 * what the function might still reach (smartio_shadow_dma_reclaim()): a
 * driver's stop command posted across the fabric lands long after a
 * local one, and the device may meanwhile read a ring its driver freed.
 * A lost function was stopped by its lender, which no longer answers
 * for it; so was one its lender is taking back (a reclaim crossing our
 * return), which answers nothing.
 *
 * Context: Process context; sleeps.
 * Return: 0, or -errno if the lender could not be asked or still has
 * Bus Master on (logged).
 */
int smartio_shadow_dma_stop(struct smartio_shadow *sh)
{
	__le16 cmd;
	u32 len;
	int ret;

	if (READ_ONCE(sh->lost))
		return 0;
	pci_clear_master(sh->pdev);
	ret = smartio_shadow_ask(sh, PCI_COMMAND, sizeof(cmd), (u8 *)&cmd,
				 &len);
	/*
	 * An empty answer: the lender is taking the function back (a
	 * reclaim crossing our return), and stopped it before all else.
	 */
	if (!ret && len && len != sizeof(cmd))
		ret = -EBADMSG;
	else if (!ret && len && (le16_to_cpu(cmd) & PCI_COMMAND_MASTER))
		ret = -EBUSY;
	if (ret && !READ_ONCE(sh->lost))
		pci_warn(sh->pdev, "fdid %x: its lender, node %u, did not stop its DMA (%pe)\n",
			 sh->fdid, sh->lender, ERR_PTR(ret));
	return ret;
}

struct pci_ops smartio_shadow_pci_ops = {
	.read = smartio_shadow_read,
	.write = smartio_shadow_write,
};

/*
 * The copy as the shadow shows it (smartio_config_virtualise()); the
 * Max_Payload_Size the lender set is what the lender is sent.
 */
static void smartio_shadow_virtualise(struct smartio_shadow *sh)
{
	sh->lender_mps = smartio_config_virtualise(&sh->layout, sh->config,
						   sh->resettable);
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
