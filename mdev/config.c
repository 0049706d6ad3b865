// SPDX-License-Identifier: GPL-2.0
/*
 * Config space of a mediated device, as the VM sees it (after
 * drivers/vfio/pci/vfio_pci_config.c): the borrowed function's, read and
 * written through its shadow's config accessors (lend/config.c: writes go
 * to the lender, which judges them by its permission table), but for the
 * BAR registers, which are the VM's own: it sizes and places them in its
 * address space, never the function's.
 */
#include <linux/pci.h>
#include <linux/uaccess.h>
#include <asm/unaligned.h>

#include "mdev_priv.h"

/* The BAR registers, PCI_BASE_ADDRESS_0 to _5. */
static bool smartio_mdev_config_is_bar(loff_t pos)
{
	return pos >= PCI_BASE_ADDRESS_0 && pos <= PCI_BASE_ADDRESS_5 + 3;
}

/**
 * smartio_mdev_config_open() - The VM's BARs for a device just borrowed.
 * @sm: The mdev, its shadow set. Called with @sm->lock held.
 *
 * Each BAR register starts as the shadow's (its type bits and its address
 * on this node), sized as the function's BAR is; the upper half of a
 * 64-bit BAR is part of it.
 */
void smartio_mdev_config_open(struct smartio_mdev *sm)
{
	int i;

	lockdep_assert_held(&sm->lock);
	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		sm->bar_size[i] = pci_resource_len(sm->pdev, i);
		pci_read_config_dword(sm->pdev, PCI_BASE_ADDRESS_0 + 4 * i,
				      &sm->bar[i]);
	}
}

/* The read-only low bits of BAR register @i: its type. */
static u32 smartio_mdev_bar_flags(struct smartio_mdev *sm, int i)
{
	if (!i || !sm->bar_size[i - 1] ||
	    !(sm->bar[i - 1] & PCI_BASE_ADDRESS_MEM_TYPE_64))
		return sm->bar[i] & ((sm->bar[i] & PCI_BASE_ADDRESS_SPACE_IO) ?
				     ~PCI_BASE_ADDRESS_IO_MASK :
				     ~PCI_BASE_ADDRESS_MEM_MASK);
	return 0;	/* the upper half of a 64-bit BAR */
}

/* What BAR register @i reads: its address bits within its size. */
static u32 smartio_mdev_bar_read(struct smartio_mdev *sm, int i)
{
	bool upper = i && sm->bar_size[i - 1] &&
		     (sm->bar[i - 1] & PCI_BASE_ADDRESS_MEM_TYPE_64);
	u64 size = upper ? sm->bar_size[i - 1] : sm->bar_size[i];
	u64 mask = size ? ~(size - 1) : 0;
	u32 flags = smartio_mdev_bar_flags(sm, i);

	if (upper)
		return sm->bar[i] & (u32)(mask >> 32);
	return (sm->bar[i] & (u32)mask & ~flags) | flags;
}

/* One aligned access of @size bytes at @pos of the BAR registers. */
static void smartio_mdev_bar_reg_rw(struct smartio_mdev *sm, loff_t pos,
				    int size, u32 *val, bool write)
{
	int i = (pos - PCI_BASE_ADDRESS_0) / 4;
	int shift = 8 * (pos & 3);
	u32 mask = (size == 4 ? ~0U : (1U << (8 * size)) - 1) << shift;
	u32 reg = smartio_mdev_bar_read(sm, i);

	if (!write) {
		*val = (reg & mask) >> shift;
		return;
	}
	/* Read by p2p.c without @sm->lock. */
	WRITE_ONCE(sm->bar[i], (reg & ~mask) | ((*val << shift) & mask));
	WRITE_ONCE(sm->bar[i], smartio_mdev_bar_read(sm, i));
}

/*
 * The VM's config writes must be done on the lender before the VM's next
 * MMIO, as a non-posted config write is on PCIe: Bus Master Enable, then
 * a doorbell through the mapped BAR, which goes through the NTB and not
 * through messages. The shadow's config ops wait for the lender's answer
 * where they may sleep and post the write otherwise (lend/config.c,
 * smartio_shadow_send()). The pci_user_*_config_*() accessors call them
 * under pci_lock with interrupts off, so their writes were posted, and a
 * doorbell could overtake one: the device then read its queue with bus
 * mastering still off and the command was lost (mdev-nvme, about one open
 * in 30). The plain accessors take no lock where the architecture's
 * config access needs none (PCI_LOCKLESS_CONFIG, x86's), and so wait.
 * What pci_user_* adds, waiting out pci_cfg_access_lock(), nothing here
 * needs: a reset is the lender's, under sm->lock like every access.
 */
#ifndef CONFIG_PCI_LOCKLESS_CONFIG
#error "smartio_mdev needs config writes that may sleep (PCI_LOCKLESS_CONFIG)"
#endif

/* One aligned access of @size bytes at @pos of the function's own. */
static int smartio_mdev_config_access(struct smartio_mdev *sm, loff_t pos,
				      int size, u32 *val, bool write)
{
	u8 b;
	u16 w;
	int ret;

	switch (size) {
	case 1:
		if (write)
			ret = pci_write_config_byte(sm->pdev, pos, *val);
		else
			ret = pci_read_config_byte(sm->pdev, pos, &b);
		*val = write ? *val : b;
		break;
	case 2:
		if (write)
			ret = pci_write_config_word(sm->pdev, pos, *val);
		else
			ret = pci_read_config_word(sm->pdev, pos, &w);
		*val = write ? *val : w;
		break;
	default:
		if (write)
			ret = pci_write_config_dword(sm->pdev, pos, *val);
		else
			ret = pci_read_config_dword(sm->pdev, pos, val);
		break;
	}
	return pcibios_err_to_errno(ret);
}

/*
 * A write of @size bytes at @pos that sets the command register to
 * @val's bits there: does it turn Bus Master Enable on (1), off (-1), or
 * neither (0)?
 */
static int smartio_mdev_master_change(struct smartio_mdev *sm, loff_t pos,
				      int size, u32 val)
{
	u16 cmd, now;

	if (pos > PCI_COMMAND || pos + size <= PCI_COMMAND)
		return 0;
	cmd = val >> (8 * (PCI_COMMAND - pos));
	pci_read_config_word(sm->pdev, PCI_COMMAND, &now);
	if ((cmd & PCI_COMMAND_MASTER) && !(now & PCI_COMMAND_MASTER))
		return 1;
	if (!(cmd & PCI_COMMAND_MASTER) && (now & PCI_COMMAND_MASTER))
		return -1;
	return 0;
}

/* One aligned access of @size bytes at @pos, to the function or a BAR. */
static int smartio_mdev_config_one(struct smartio_mdev *sm, loff_t pos,
				   int size, u32 *val, bool write)
{
	int master = 0;
	int ret;

	if (smartio_mdev_config_is_bar(pos)) {
		smartio_mdev_bar_reg_rw(sm, pos, size, val, write);
		return 0;
	}
	/*
	 * Bus Master Enable: the guest RAM is mapped for the device before
	 * it may master the bus, and unmapped once it may not (dma.c).
	 */
	if (write)
		master = smartio_mdev_master_change(sm, pos, size, *val);
	if (master > 0) {
		ret = smartio_mdev_dma_on(sm);
		if (ret)
			return ret;
	}
	ret = smartio_mdev_config_access(sm, pos, size, val, write);
	if (master < 0 && !ret)
		smartio_mdev_dma_off(sm);
	else if (master > 0 && ret)
		smartio_mdev_dma_off(sm);
	return ret;
}
/**
 * smartio_mdev_config_rw() - The VM reads or writes config space.
 * @sm: The mdev, open. Called with @sm->lock held.
 * @buf: The VM's bytes.
 * @count: How many.
 * @pos: Where, from the start of config space.
 * @write: A write.
 *
 * Accesses go in the largest aligned pieces, as the VM made them.
 * Return: The bytes done, or -errno for the first that failed.
 */
ssize_t smartio_mdev_config_rw(struct smartio_mdev *sm, char __user *buf,
			       size_t count, loff_t pos, bool write)
{
	size_t done = 0;
	u8 bytes[4];
	int size, ret;
	u32 val;

	lockdep_assert_held(&sm->lock);
	if (!sm->pdev)
		return -ENODEV;
	if (pos >= sm->pdev->cfg_size || count > sm->pdev->cfg_size - pos)
		return -EINVAL;
	while (done < count) {
		size = (count - done >= 4 && !(pos & 3)) ? 4 :
		       (count - done >= 2 && !(pos & 1)) ? 2 : 1;
		if (write && copy_from_user(bytes, buf + done, size))
			return -EFAULT;
		/* Config space is little-endian, whatever the CPU. */
		val = size == 4 ? get_unaligned_le32(bytes) :
		      size == 2 ? get_unaligned_le16(bytes) : bytes[0];
		ret = smartio_mdev_config_one(sm, pos, size, &val, write);
		if (ret)
			return pcibios_err_to_errno(ret);
		if (!write) {
			if (size == 4)
				put_unaligned_le32(val, bytes);
			else if (size == 2)
				put_unaligned_le16(val, bytes);
			else
				bytes[0] = val;
			if (copy_to_user(buf + done, bytes, size))
				return -EFAULT;
		}
		done += size;
		pos += size;
	}
	return done;
}
