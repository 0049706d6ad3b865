// SPDX-License-Identifier: GPL-2.0
/*
 * Linux NTB hardware driver for smartio's emulated non-transparent bridge,
 * the QEMU device "smartio-ntb" (PCI 1234:4e54). Its registers are defined
 * in smartio/emu_ntb_regs.h and its behaviour in qemu/smartio-ntb.md.
 *
 * Each PCI function is one port of a two-port NTB. The driver exposes it
 * through the Linux NTB API, so the upstream clients (ntb_transport,
 * ntb_tool, ntb_perf, ntb_pingpong) and smartio's own client run on it as
 * on real hardware:
 *
 *  - direct windows (slices of BAR 2) are translated by the receiving port:
 *    inbound window n is programmed with ntb_mw_set_trans() and is reached
 *    by the peer's outbound window n;
 *  - with use_lut_mws, every LUT entry (a slice of BAR 4) is one more
 *    outbound window, after the direct ones, translated by the sending
 *    port with ntb_peer_mw_set_trans(); it has no inbound counterpart.
 *  - 32 doorbells, each with its own MSI-X vector; 16 scratchpads;
 *  - where the device has a requester-ID table (SNTB_RID_ENTRIES not 0), the
 *    requester-ID operations (ntb_req_id_add() and co.): only requesters
 *    listed there reach the peer through our outbound windows, as on IDT or
 *    Switchtec hardware. The driver lists the root complex (CPU accesses)
 *    and its own function (inbound accesses it forwards on) itself.
 */

#include <linux/interrupt.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/module.h>
#include <linux/ntb.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>

#include "smartio/emu_ntb_regs.h"

MODULE_DESCRIPTION("NTB hardware driver for the smartio emulated NTB");
MODULE_LICENSE("GPL");

/*
 * Read at probe only: the number of windows a device reports must not
 * change under the clients bound to it.
 */
static bool use_lut_mws;
module_param(use_lut_mws, bool, 0444);
MODULE_PARM_DESC(use_lut_mws,
		 "Also expose every LUT entry as a memory window (default: direct windows only)");

/*
 * Intel's NTB drivers call pci_request_regions() at probe, window BARs
 * included; this lets a test run the fabric layer against that habit.
 */
static bool reserve_window_bars;
module_param(reserve_window_bars, bool, 0444);
MODULE_PARM_DESC(reserve_window_bars,
		 "Hold the window BARs busy, as ntb_hw_intel does (default: leave them to clients)");

struct sntb_dev;

/* Context of one doorbell vector: which doorbell it reports. */
struct sntb_db_vec {
	struct sntb_dev *sndev;
	int db;
	char name[32];
};

struct sntb_dev {
	struct ntb_dev ntb;
	void __iomem *regs;

	int own_port;
	int peer_port;		/* last peer port seen, or -1 */

	int db_count;
	u64 db_valid_mask;
	u32 db_mask;		/* shadow of SNTB_DB_MASK */
	spinlock_t db_mask_lock;	/* serialises db_mask updates */

	int spad_count;

	int direct_count;
	resource_size_t direct_size;
	phys_addr_t direct_base;

	int lut_count;		/* LUT windows exposed: 0 unless use_lut_mws */
	resource_size_t lut_size;
	phys_addr_t lut_base;

	bool link_logged_up;	/* last link state logged; link ISR only */

	int rid_count;		/* requester-ID table entries; 0: no table */
	spinlock_t rid_lock;	/* serialises changes of the table */

	char link_name[32];
	struct sntb_db_vec db_vec[SNTB_DB_COUNT];
};

static struct sntb_dev *ntb_sndev(struct ntb_dev *ntb)
{
	return container_of(ntb, struct sntb_dev, ntb);
}

static u32 sntb_read(struct sntb_dev *sndev, unsigned int reg)
{
	return ioread32(sndev->regs + reg);
}

static void sntb_write(struct sntb_dev *sndev, unsigned int reg, u32 val)
{
	iowrite32(val, sndev->regs + reg);
}

static bool sntb_link_up(struct sntb_dev *sndev)
{
	return sntb_read(sndev, SNTB_LINK_STATUS) & SNTB_LINK_STATUS_UP;
}

/*
 * The register names the peer only while the link is up, but clients ask
 * for port numbers at any time (ntb_perf and ntb_pingpong derive their
 * window and doorbell assignment from them at probe, before they enable
 * the link). So remember the last peer seen and answer with that.
 */
static int sntb_peer_port(struct sntb_dev *sndev)
{
	u32 port = sntb_read(sndev, SNTB_PORT);
	int peer_port;

	if (sntb_link_up(sndev))
		WRITE_ONCE(sndev->peer_port, SNTB_PORT_PEER(port));

	peer_port = READ_ONCE(sndev->peer_port);
	return peer_port < 0 ? -ENOLINK : peer_port;
}

/* Ports */

static int sntb_port_number(struct ntb_dev *ntb)
{
	return ntb_sndev(ntb)->own_port;
}

static int sntb_peer_port_count(struct ntb_dev *ntb)
{
	return NTB_DEF_PEER_CNT;
}

static int sntb_peer_port_number(struct ntb_dev *ntb, int pidx)
{
	if (pidx != NTB_DEF_PEER_IDX)
		return -EINVAL;

	return sntb_peer_port(ntb_sndev(ntb));
}

static int sntb_peer_port_idx(struct ntb_dev *ntb, int port)
{
	int peer_port = sntb_peer_port(ntb_sndev(ntb));

	if (peer_port < 0 || port != peer_port)
		return -EINVAL;

	return NTB_DEF_PEER_IDX;
}

/* Link */

static u64 sntb_link_is_up(struct ntb_dev *ntb, enum ntb_speed *speed,
			   enum ntb_width *width)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);
	u32 sta = sntb_read(sndev, SNTB_LINK_STATUS);
	bool up = sta & SNTB_LINK_STATUS_UP;

	if (up)
		sntb_peer_port(sndev);
	if (speed)
		*speed = up ? SNTB_LINK_STATUS_SPEED(sta) : NTB_SPEED_NONE;
	if (width)
		*width = up ? SNTB_LINK_STATUS_WIDTH(sta) : NTB_WIDTH_NONE;

	return up ? BIT_ULL(NTB_DEF_PEER_IDX) : 0;
}

/* An emulated link does not train: speed and width limits do not apply. */
static int sntb_link_enable(struct ntb_dev *ntb, enum ntb_speed max_speed,
			    enum ntb_width max_width)
{
	sntb_write(ntb_sndev(ntb), SNTB_LINK_CTRL, SNTB_LINK_CTRL_ENABLE);

	return 0;
}

static int sntb_link_disable(struct ntb_dev *ntb)
{
	sntb_write(ntb_sndev(ntb), SNTB_LINK_CTRL, 0);

	return 0;
}

/* Memory windows */

static bool sntb_is_direct(struct sntb_dev *sndev, int widx)
{
	return widx < sndev->direct_count;
}

/*
 * Inbound windows are the direct windows only: they are the ones this side
 * translates. A LUT window is translated where the accesses start, by the
 * peer's ntb_peer_mw_set_trans(), and needs nothing here. Inbound window i
 * pairs with the peer's outbound window i, as the upstream clients expect,
 * because both ends list their direct windows first.
 */
static int sntb_mw_count(struct ntb_dev *ntb, int pidx)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (pidx != NTB_DEF_PEER_IDX)
		return -EINVAL;

	return sndev->direct_count;
}

static int sntb_mw_get_align(struct ntb_dev *ntb, int pidx, int widx,
			     resource_size_t *addr_align,
			     resource_size_t *size_align,
			     resource_size_t *size_max)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (pidx != NTB_DEF_PEER_IDX || widx < 0 ||
	    widx >= sndev->direct_count)
		return -EINVAL;

	/* XLAT_ADDR drops the bits below the window size. */
	if (addr_align)
		*addr_align = sndev->direct_size;
	if (size_align)
		*size_align = SZ_4K;
	if (size_max)
		*size_max = sndev->direct_size;

	return 0;
}

static void sntb_xlat_close(struct sntb_dev *sndev, int widx)
{
	writeq(0, sndev->regs + SNTB_XLAT_SIZE(widx));
	writeq(0, sndev->regs + SNTB_XLAT_ADDR(widx));
}

static int sntb_mw_set_trans(struct ntb_dev *ntb, int pidx, int widx,
			     dma_addr_t addr, resource_size_t size)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (pidx != NTB_DEF_PEER_IDX || widx < 0 ||
	    widx >= sndev->direct_count)
		return -EINVAL;
	if (size > sndev->direct_size || !IS_ALIGNED(size, SZ_4K))
		return -EINVAL;
	if (size && !IS_ALIGNED(addr, sndev->direct_size)) {
		dev_err(&ntb->dev, "window %d: address %pad is not aligned to %pa\n",
			widx, &addr, &sndev->direct_size);
		return -EINVAL;
	}

	/*
	 * Close the window while its address changes, so that no access from
	 * the peer is ever translated with half of an old address.
	 */
	sntb_xlat_close(sndev, widx);
	if (size) {
		writeq(addr, sndev->regs + SNTB_XLAT_ADDR(widx));
		writeq(size, sndev->regs + SNTB_XLAT_SIZE(widx));
	}

	return 0;
}

static int sntb_mw_clear_trans(struct ntb_dev *ntb, int pidx, int widx)
{
	return sntb_mw_set_trans(ntb, pidx, widx, 0, 0);
}

static int sntb_peer_mw_count(struct ntb_dev *ntb)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	return sndev->direct_count + sndev->lut_count;
}

static int sntb_peer_mw_get_addr(struct ntb_dev *ntb, int widx,
				 phys_addr_t *base, resource_size_t *size)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);
	int lut = widx - sndev->direct_count;

	if (widx < 0 || widx >= sntb_peer_mw_count(ntb))
		return -EINVAL;

	if (sntb_is_direct(sndev, widx)) {
		if (base)
			*base = sndev->direct_base + widx * sndev->direct_size;
		if (size)
			*size = sndev->direct_size;
	} else {
		if (base)
			*base = sndev->lut_base + lut * sndev->lut_size;
		if (size)
			*size = sndev->lut_size;
	}

	return 0;
}

static void sntb_lut_clear(struct sntb_dev *sndev, int lut)
{
	writeq(0, sndev->regs + SNTB_LUT_ADDR(lut));
}

static int sntb_peer_mw_set_trans(struct ntb_dev *ntb, int pidx, int widx,
				  u64 addr, resource_size_t size)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);
	int lut = widx - sndev->direct_count;
	int peer_port;

	if (pidx != NTB_DEF_PEER_IDX || widx < 0 ||
	    widx >= sntb_peer_mw_count(ntb))
		return -EINVAL;

	/*
	 * Direct windows are translated by the receiving port, which the peer
	 * programs with ntb_mw_set_trans(). Accept the request as the NTB core
	 * does for hardware that has no outbound translation at all: clients
	 * such as ntb_tool announce every outbound window this way.
	 */
	if (sntb_is_direct(sndev, widx))
		return 0;

	if (size > sndev->lut_size)
		return -EINVAL;
	if (!size) {
		sntb_lut_clear(sndev, lut);
		return 0;
	}
	if (!IS_ALIGNED(addr, sndev->lut_size))
		return -EINVAL;

	peer_port = sntb_peer_port(sndev);
	if (peer_port < 0)
		return peer_port;

	/* Invalidate first: the entry must not point at the old address. */
	sntb_lut_clear(sndev, lut);
	sntb_write(sndev, SNTB_LUT_PORT(lut), peer_port);
	writeq(addr | SNTB_LUT_ADDR_VALID, sndev->regs + SNTB_LUT_ADDR(lut));

	return 0;
}

static int sntb_peer_mw_clear_trans(struct ntb_dev *ntb, int pidx, int widx)
{
	return sntb_peer_mw_set_trans(ntb, pidx, widx, 0, 0);
}

/* Doorbells */

static u64 sntb_db_valid_mask(struct ntb_dev *ntb)
{
	return ntb_sndev(ntb)->db_valid_mask;
}

static int sntb_db_vector_count(struct ntb_dev *ntb)
{
	return ntb_sndev(ntb)->db_count;
}

static u64 sntb_db_vector_mask(struct ntb_dev *ntb, int db_vector)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (db_vector < 0 || db_vector >= sndev->db_count)
		return 0;

	return BIT_ULL(db_vector);
}

static u64 sntb_db_read(struct ntb_dev *ntb)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	return sntb_read(sndev, SNTB_DB_STATUS) & sndev->db_valid_mask;
}

static int sntb_db_set(struct ntb_dev *ntb, u64 db_bits)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (db_bits & ~sndev->db_valid_mask)
		return -EINVAL;

	sntb_write(sndev, SNTB_DB_SET, db_bits);

	return 0;
}

static int sntb_db_clear(struct ntb_dev *ntb, u64 db_bits)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (db_bits & ~sndev->db_valid_mask)
		return -EINVAL;

	sntb_write(sndev, SNTB_DB_STATUS, db_bits);

	return 0;
}

static u64 sntb_db_read_mask(struct ntb_dev *ntb)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	return READ_ONCE(sndev->db_mask);
}

/*
 * Clients mask and unmask doorbells from interrupt context and from several
 * threads at once; the register is written whole, so each update is a
 * read-modify-write of the shadow under the lock.
 */
static int sntb_db_update_mask(struct sntb_dev *sndev, u64 set, u64 clear)
{
	unsigned long flags;

	if ((set | clear) & ~sndev->db_valid_mask)
		return -EINVAL;

	spin_lock_irqsave(&sndev->db_mask_lock, flags);
	sndev->db_mask = (sndev->db_mask | set) & ~clear;
	sntb_write(sndev, SNTB_DB_MASK, sndev->db_mask);
	spin_unlock_irqrestore(&sndev->db_mask_lock, flags);

	return 0;
}

static int sntb_db_set_mask(struct ntb_dev *ntb, u64 db_bits)
{
	return sntb_db_update_mask(ntb_sndev(ntb), db_bits, 0);
}

static int sntb_db_clear_mask(struct ntb_dev *ntb, u64 db_bits)
{
	return sntb_db_update_mask(ntb_sndev(ntb), 0, db_bits);
}

static int sntb_peer_db_addr(struct ntb_dev *ntb, phys_addr_t *db_addr,
			     resource_size_t *db_size, u64 *db_data, int db_bit)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (db_bit < 0 || db_bit >= sndev->db_count)
		return -EINVAL;

	if (db_addr)
		*db_addr = pci_resource_start(ntb->pdev, SNTB_BAR_REGS) +
			   SNTB_PEER_DB_SET;
	if (db_size)
		*db_size = sizeof(u32);
	if (db_data)
		*db_data = BIT_ULL(db_bit);

	return 0;
}

static int sntb_peer_db_set(struct ntb_dev *ntb, u64 db_bits)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (db_bits & ~sndev->db_valid_mask)
		return -EINVAL;

	sntb_write(sndev, SNTB_PEER_DB_SET, db_bits);

	return 0;
}

/* Scratchpads */

static int sntb_spad_is_unsafe(struct ntb_dev *ntb)
{
	return 0;
}

static int sntb_spad_count(struct ntb_dev *ntb)
{
	return ntb_sndev(ntb)->spad_count;
}

static u32 sntb_spad_read(struct ntb_dev *ntb, int sidx)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (sidx < 0 || sidx >= sndev->spad_count)
		return 0;

	return sntb_read(sndev, SNTB_SPAD(sidx));
}

static int sntb_spad_write(struct ntb_dev *ntb, int sidx, u32 val)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (sidx < 0 || sidx >= sndev->spad_count)
		return -EINVAL;

	sntb_write(sndev, SNTB_SPAD(sidx), val);

	return 0;
}

static int sntb_peer_spad_addr(struct ntb_dev *ntb, int pidx, int sidx,
			       phys_addr_t *spad_addr)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (pidx != NTB_DEF_PEER_IDX || sidx < 0 || sidx >= sndev->spad_count)
		return -EINVAL;

	if (spad_addr)
		*spad_addr = pci_resource_start(ntb->pdev, SNTB_BAR_REGS) +
			     SNTB_PEER_SPAD(sidx);

	return 0;
}

/*
 * A peer scratchpad read is a round trip over the link: the CPU stalls on
 * it until the peer answers, or gets all-ones at once when the link is down.
 */
static u32 sntb_peer_spad_read(struct ntb_dev *ntb, int pidx, int sidx)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (pidx != NTB_DEF_PEER_IDX || sidx < 0 || sidx >= sndev->spad_count)
		return 0;

	return sntb_read(sndev, SNTB_PEER_SPAD(sidx));
}

static int sntb_peer_spad_write(struct ntb_dev *ntb, int pidx, int sidx,
				u32 val)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (pidx != NTB_DEF_PEER_IDX || sidx < 0 || sidx >= sndev->spad_count)
		return -EINVAL;

	sntb_write(sndev, SNTB_PEER_SPAD(sidx), val);

	return 0;
}

/* Requester-ID table */

#ifdef SMARTIO_NTB_REQ_ID
/*
 * A device without a table forwards every requester: it has no entries to
 * count, and the operations say so as they do where a driver leaves them
 * out, so that no client needs to tell the two apart.
 */
static int sntb_req_id_count(struct ntb_dev *ntb, int pidx)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);

	if (pidx != NTB_DEF_PEER_IDX)
		return -EINVAL;

	return sndev->rid_count ?: -EOPNOTSUPP;
}
#endif

/*
 * The entry listing @req_id, or the first free entry in *@free (-1 if
 * none). Called with rid_lock held.
 */
static int sntb_rid_find(struct sntb_dev *sndev, u16 req_id, int *free)
{
	u32 v;
	int i;

	*free = -1;
	for (i = 0; i < sndev->rid_count; i++) {
		v = sntb_read(sndev, SNTB_RID(i));
		if (!(v & SNTB_RID_VALID)) {
			if (*free < 0)
				*free = i;
		} else if (SNTB_RID_ID(v) == req_id) {
			return i;
		}
	}
	return -1;
}

static int sntb_rid_add(struct sntb_dev *sndev, u16 req_id)
{
	unsigned long flags;
	int ret = 0, free;

	if (!sndev->rid_count)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&sndev->rid_lock, flags);
	if (sntb_rid_find(sndev, req_id, &free) < 0) {
		if (free < 0)
			ret = -ENOSPC;
		else
			sntb_write(sndev, SNTB_RID(free),
				   SNTB_RID_VALID | req_id);
	}
	spin_unlock_irqrestore(&sndev->rid_lock, flags);

	return ret;
}

#ifdef SMARTIO_NTB_REQ_ID
static int sntb_req_id_add(struct ntb_dev *ntb, int pidx, u16 req_id)
{
	if (pidx != NTB_DEF_PEER_IDX)
		return -EINVAL;

	return sntb_rid_add(ntb_sndev(ntb), req_id);
}

static int sntb_req_id_remove(struct ntb_dev *ntb, int pidx, u16 req_id)
{
	struct sntb_dev *sndev = ntb_sndev(ntb);
	unsigned long flags;
	int i, free;

	if (pidx != NTB_DEF_PEER_IDX)
		return -EINVAL;
	if (!sndev->rid_count)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&sndev->rid_lock, flags);
	i = sntb_rid_find(sndev, req_id, &free);
	if (i >= 0)
		sntb_write(sndev, SNTB_RID(i), 0);
	spin_unlock_irqrestore(&sndev->rid_lock, flags);

	return i >= 0 ? 0 : -ENOENT;
}
#endif

static const struct ntb_dev_ops sntb_ops = {
	.port_number		= sntb_port_number,
	.peer_port_count	= sntb_peer_port_count,
	.peer_port_number	= sntb_peer_port_number,
	.peer_port_idx		= sntb_peer_port_idx,
	.link_is_up		= sntb_link_is_up,
	.link_enable		= sntb_link_enable,
	.link_disable		= sntb_link_disable,
	.mw_count		= sntb_mw_count,
	.mw_get_align		= sntb_mw_get_align,
	.mw_set_trans		= sntb_mw_set_trans,
	.mw_clear_trans		= sntb_mw_clear_trans,
	.peer_mw_count		= sntb_peer_mw_count,
	.peer_mw_get_addr	= sntb_peer_mw_get_addr,
	.peer_mw_set_trans	= sntb_peer_mw_set_trans,
	.peer_mw_clear_trans	= sntb_peer_mw_clear_trans,
	.db_valid_mask		= sntb_db_valid_mask,
	.db_vector_count	= sntb_db_vector_count,
	.db_vector_mask		= sntb_db_vector_mask,
	.db_read		= sntb_db_read,
	.db_set			= sntb_db_set,
	.db_clear		= sntb_db_clear,
	.db_read_mask		= sntb_db_read_mask,
	.db_set_mask		= sntb_db_set_mask,
	.db_clear_mask		= sntb_db_clear_mask,
	.peer_db_addr		= sntb_peer_db_addr,
	.peer_db_set		= sntb_peer_db_set,
	.spad_is_unsafe		= sntb_spad_is_unsafe,
	.spad_count		= sntb_spad_count,
	.spad_read		= sntb_spad_read,
	.spad_write		= sntb_spad_write,
	.peer_spad_addr		= sntb_peer_spad_addr,
	.peer_spad_read		= sntb_peer_spad_read,
	.peer_spad_write	= sntb_peer_spad_write,
#ifdef SMARTIO_NTB_REQ_ID
	.req_id_count		= sntb_req_id_count,
	.req_id_add		= sntb_req_id_add,
	.req_id_remove		= sntb_req_id_remove,
#endif
};

/* Interrupts */

static irqreturn_t sntb_link_isr(int irq, void *dev)
{
	struct sntb_dev *sndev = dev;

	int peer_port;
	bool up;

	/* Acknowledge first, so that a change after this read is not lost. */
	sntb_write(sndev, SNTB_LINK_EVENT, SNTB_LINK_EVENT_CHANGED);
	peer_port = sntb_peer_port(sndev);
	up = sntb_link_up(sndev);

	/* One line per change: losing a peer must show in the log. */
	if (up != sndev->link_logged_up) {
		sndev->link_logged_up = up;
		if (up)
			dev_info(&sndev->ntb.pdev->dev, "link up to port %d\n",
				 peer_port);
		else
			dev_info(&sndev->ntb.pdev->dev, "link down\n");
	}
	ntb_link_event(&sndev->ntb);

	return IRQ_HANDLED;
}

static irqreturn_t sntb_db_isr(int irq, void *dev)
{
	struct sntb_db_vec *vec = dev;

	ntb_db_event(&vec->sndev->ntb, vec->db);

	return IRQ_HANDLED;
}

/*
 * The interrupts are requested disabled and enabled only once the NTB device
 * is registered: an event before that would reach a core context that is
 * not set up yet. The device keeps it pending in MSI-X until then.
 */
static int sntb_request_irqs(struct sntb_dev *sndev)
{
	struct pci_dev *pdev = sndev->ntb.pdev;
	int i, ret;

	snprintf(sndev->link_name, sizeof(sndev->link_name), "%s-link",
		 KBUILD_MODNAME);
	ret = request_irq(pci_irq_vector(pdev, SNTB_VEC_LINK), sntb_link_isr,
			  IRQF_NO_AUTOEN, sndev->link_name, sndev);
	if (ret)
		return ret;

	for (i = 0; i < sndev->db_count; i++) {
		struct sntb_db_vec *vec = &sndev->db_vec[i];

		vec->sndev = sndev;
		vec->db = i;
		snprintf(vec->name, sizeof(vec->name), "%s-db%d",
			 KBUILD_MODNAME, i);
		ret = request_irq(pci_irq_vector(pdev, SNTB_VEC_DB(i)),
				  sntb_db_isr, IRQF_NO_AUTOEN, vec->name, vec);
		if (ret)
			goto err_free;
	}

	return 0;

err_free:
	while (i--)
		free_irq(pci_irq_vector(pdev, SNTB_VEC_DB(i)),
			 &sndev->db_vec[i]);
	free_irq(pci_irq_vector(pdev, SNTB_VEC_LINK), sndev);
	return ret;
}

/*
 * One MSI-X vector per doorbell where the CPUs have that many to spare.
 * Every vector requested takes one of its CPU's (on x86 about 200 each)
 * for good, so a node of one CPU runs out at its sixth port (33 vectors
 * each). Then the port offers fewer doorbells, half as many each time, down
 * to one, each still with its own vector: the rest are left out of the
 * valid mask, so no client uses them, and stay masked. smartio_ntb needs
 * two.
 */
static int sntb_setup_irqs(struct sntb_dev *sndev)
{
	struct pci_dev *pdev = sndev->ntb.pdev;
	int all = sndev->db_count, db_count = all;
	int ret;

	for (;;) {
		sndev->db_count = db_count;
		sndev->db_valid_mask = BIT_ULL(db_count) - 1;
		ret = pci_alloc_irq_vectors(pdev, SNTB_VEC_DB(db_count),
					    SNTB_VEC_DB(db_count), PCI_IRQ_MSIX);
		if (ret >= 0) {
			ret = sntb_request_irqs(sndev);
			if (!ret)
				break;
			pci_free_irq_vectors(pdev);
		}
		if (ret != -ENOSPC || db_count <= 1) {
			dev_err(&pdev->dev, "cannot set up %d MSI-X vectors: %d\n",
				SNTB_VEC_DB(db_count), ret);
			return ret;
		}
		db_count /= 2;
	}
	if (db_count < all)
		dev_warn(&pdev->dev, "too few interrupt vectors: %d doorbells of %d\n",
			 db_count, all);
	return 0;
}

static void sntb_enable_irqs(struct sntb_dev *sndev)
{
	struct pci_dev *pdev = sndev->ntb.pdev;
	int i;

	enable_irq(pci_irq_vector(pdev, SNTB_VEC_LINK));
	for (i = 0; i < sndev->db_count; i++)
		enable_irq(pci_irq_vector(pdev, SNTB_VEC_DB(i)));
}

static void sntb_free_irqs(struct sntb_dev *sndev)
{
	struct pci_dev *pdev = sndev->ntb.pdev;
	int i;

	for (i = 0; i < sndev->db_count; i++)
		free_irq(pci_irq_vector(pdev, SNTB_VEC_DB(i)),
			 &sndev->db_vec[i]);
	free_irq(pci_irq_vector(pdev, SNTB_VEC_LINK), sndev);
}

/* Setup */

/*
 * Reads the geometry the device reports and checks it against its BARs,
 * so that no window handed to a client lies outside of them.
 */
static int sntb_init_geometry(struct sntb_dev *sndev)
{
	struct pci_dev *pdev = sndev->ntb.pdev;
	u32 caps = sntb_read(sndev, SNTB_CAPS);
	u32 direct_shift = sntb_read(sndev, SNTB_DIRECT_SHIFT);
	u32 lut_shift = sntb_read(sndev, SNTB_LUT_SHIFT);
	u32 lut_entries = sntb_read(sndev, SNTB_LUT_ENTRIES);
	u32 rid_entries = sntb_read(sndev, SNTB_RID_ENTRIES);

	sndev->own_port = SNTB_PORT_OWN(sntb_read(sndev, SNTB_PORT));
	sndev->peer_port = -1;

	sndev->db_count = SNTB_CAPS_DB_COUNT(caps);
	sndev->spad_count = SNTB_CAPS_SPAD_COUNT(caps);
	sndev->direct_count = SNTB_CAPS_DIRECT_COUNT(caps);
	if (sndev->db_count > SNTB_DB_COUNT ||
	    sndev->spad_count > SNTB_SPAD_COUNT ||
	    sndev->direct_count > SNTB_DIRECT_MAX ||
	    direct_shift < PAGE_SHIFT || direct_shift > 40) {
		dev_err(&pdev->dev, "unsupported capabilities %#x, direct shift %u\n",
			caps, direct_shift);
		return -ENODEV;
	}
	sndev->db_valid_mask = BIT_ULL(sndev->db_count) - 1;

	/* Room for the root complex and ourselves, the entries we need. */
	if (rid_entries == 1 || rid_entries > SNTB_RID_MAX) {
		dev_err(&pdev->dev, "unsupported requester-ID table of %u entries\n",
			rid_entries);
		return -ENODEV;
	}
	sndev->rid_count = rid_entries;

	sndev->direct_size = BIT_ULL(direct_shift);
	sndev->direct_base = pci_resource_start(pdev, SNTB_BAR_DIRECT);
	if (sndev->direct_count * sndev->direct_size >
	    pci_resource_len(pdev, SNTB_BAR_DIRECT)) {
		dev_err(&pdev->dev, "%d direct windows of %pa do not fit BAR %d\n",
			sndev->direct_count, &sndev->direct_size,
			SNTB_BAR_DIRECT);
		return -ENODEV;
	}

	if (!use_lut_mws || !lut_entries)
		return 0;

	if (lut_entries > SNTB_LUT_MAX || lut_shift < PAGE_SHIFT ||
	    lut_shift > 40) {
		dev_err(&pdev->dev, "unsupported LUT: %u entries, shift %u\n",
			lut_entries, lut_shift);
		return -ENODEV;
	}
	sndev->lut_count = lut_entries;
	sndev->lut_size = BIT_ULL(lut_shift);
	sndev->lut_base = pci_resource_start(pdev, SNTB_BAR_LUT);
	if (sndev->lut_count * sndev->lut_size >
	    pci_resource_len(pdev, SNTB_BAR_LUT)) {
		dev_err(&pdev->dev, "%d LUT entries of %pa do not fit BAR %d\n",
			sndev->lut_count, &sndev->lut_size, SNTB_BAR_LUT);
		return -ENODEV;
	}

	return 0;
}

/*
 * Brings the port to a known state: link disabled, every doorbell masked
 * and clear, no inbound or outbound translation, no requester listed. A
 * previous driver instance may have left any of them set.
 */
static void sntb_quiesce(struct sntb_dev *sndev)
{
	u32 lut_entries = min_t(u32, sntb_read(sndev, SNTB_LUT_ENTRIES),
				SNTB_LUT_MAX);
	int i;

	sntb_write(sndev, SNTB_LINK_CTRL, 0);
	sndev->db_mask = sndev->db_valid_mask;
	sntb_write(sndev, SNTB_DB_MASK, sndev->db_mask);
	sntb_write(sndev, SNTB_DB_STATUS, sndev->db_valid_mask);
	for (i = 0; i < sndev->direct_count; i++)
		sntb_xlat_close(sndev, i);
	for (i = 0; i < lut_entries; i++)
		sntb_lut_clear(sndev, i);
	for (i = 0; i < sndev->rid_count; i++)
		sntb_write(sndev, SNTB_RID(i), 0);
}

static int sntb_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct sntb_dev *sndev;
	u32 magic, version;
	int ret;

	sndev = devm_kzalloc(&pdev->dev, sizeof(*sndev), GFP_KERNEL);
	if (!sndev)
		return -ENOMEM;
	sndev->ntb.pdev = pdev;
	sndev->ntb.topo = NTB_TOPO_SWITCH;
	sndev->ntb.ops = &sntb_ops;
	spin_lock_init(&sndev->db_mask_lock);
	spin_lock_init(&sndev->rid_lock);
	pci_set_drvdata(pdev, sndev);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	ret = pcim_iomap_regions(pdev, BIT(SNTB_BAR_REGS), KBUILD_MODNAME);
	if (ret)
		return ret;
	sndev->regs = pcim_iomap_table(pdev)[SNTB_BAR_REGS];

	magic = sntb_read(sndev, SNTB_ID);
	version = sntb_read(sndev, SNTB_VERSION);
	if (magic != SNTB_MAGIC || version != SNTB_VERSION_1) {
		dev_err(&pdev->dev, "unsupported device: id %#x, version %u\n",
			magic, version);
		return -ENODEV;
	}

	ret = sntb_init_geometry(sndev);
	if (ret)
		return ret;

	/*
	 * The window BARs are apertures, not registers: their clients map
	 * slices of them, and a device reached through one (a borrowed
	 * function on a shadow bus) has its driver reserve its own BAR
	 * there. So they are left unreserved, as VMD leaves its memory BARs,
	 * unless asked to behave as Intel's drivers do.
	 */
	if (reserve_window_bars) {
		static const int window_bars[] = { SNTB_BAR_DIRECT, SNTB_BAR_LUT };
		int i;

		for (i = 0; i < ARRAY_SIZE(window_bars); i++) {
			if (!pci_resource_len(pdev, window_bars[i]))
				continue;
			ret = pci_request_region(pdev, window_bars[i],
						 KBUILD_MODNAME);
			if (ret)
				return ret;
		}
	}

	/* Inbound accesses are DMA by this function, anywhere in memory. */
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	pci_set_master(pdev);

	sntb_quiesce(sndev);

	/*
	 * What must cross the NTB whoever the clients are, as upstream drivers
	 * list it: CPU accesses through the windows (the root complex, 0:00.0)
	 * and the accesses from the peer that this function forwards, which
	 * may lead back out through a window (a peer's device reaching
	 * another peer's BAR mapped here).
	 */
	if (sndev->rid_count) {
		sntb_rid_add(sndev, 0);
		sntb_rid_add(sndev, pci_dev_id(pdev));
	}

	ret = sntb_setup_irqs(sndev);
	if (ret)
		goto err_clear_master;

	ret = ntb_register_device(&sndev->ntb);
	if (ret)
		goto err_free_irqs;

	sntb_enable_irqs(sndev);

	/*
	 * Clients read port numbers before they enable the link, but the
	 * device names the peer only while the link is up. So announce the
	 * port on the cable now, as hardware whose link trains on its own
	 * does: the link comes up as soon as the peer's driver does the same,
	 * and the peer's port is known from then on. Clients still take the
	 * link down and up with ntb_link_disable() and ntb_link_enable().
	 */
	sntb_write(sndev, SNTB_LINK_CTRL, SNTB_LINK_CTRL_ENABLE);

	dev_info(&pdev->dev, "port %d: %d direct windows of %pa, %d LUT windows, %d doorbells, %d scratchpads, %d requester-ID entries\n",
		 sndev->own_port, sndev->direct_count, &sndev->direct_size,
		 sndev->lut_count, sndev->db_count, sndev->spad_count,
		 sndev->rid_count);

	return 0;

err_free_irqs:
	sntb_free_irqs(sndev);
	pci_free_irq_vectors(pdev);
err_clear_master:
	pci_clear_master(pdev);
	return ret;
}

static void sntb_remove(struct pci_dev *pdev)
{
	struct sntb_dev *sndev = pci_get_drvdata(pdev);

	/* Clients are gone after this; then nothing may reach memory here. */
	ntb_unregister_device(&sndev->ntb);
	sntb_quiesce(sndev);
	sntb_free_irqs(sndev);
	pci_free_irq_vectors(pdev);
	pci_clear_master(pdev);
}

static const struct pci_device_id sntb_pci_ids[] = {
	{ PCI_DEVICE(SNTB_VENDOR_ID, SNTB_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, sntb_pci_ids);

static struct pci_driver sntb_pci_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= sntb_pci_ids,
	.probe		= sntb_probe,
	.remove		= sntb_remove,
};
module_pci_driver(sntb_pci_driver);
