// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver: QEMU's edu device (PCI 1234:11e8, hw/misc/edu.c) as a DMA
 * master whose driver, and nothing else, moves data; no CPU copies it.
 * Each edu gets a directory <debugfs>/smartio_edu_test/<PCI name>/:
 *
 *	echo "NODE SEGMENT OFFSET SEED" > copy
 *
 * fills a local buffer with SMARTIO_EDU_LEN bytes of the xorshift64
 * pattern drawn from SEED (as smartio-seg's), has edu DMA it into its
 * internal buffer and from there to OFFSET of segment SEGMENT of node
 * NODE, at the address the NTB layer's smartio_segment_map_device() gives
 * it, then DMA it back: the read returns only after the posted writes
 * before it are done (PCIe ordering), so the data is in place when the
 * write to "copy" returns (it fails with the error otherwise).
 *
 *	echo "PHYS SEED" > p2p
 *
 * is peer-to-peer DMA: PHYS is the CPU physical address of another
 * device's BAR (an NVMe controller memory buffer, say), which
 * dma_map_resource() turns into the address edu must use, whatever edu
 * is: a local device, or a borrowed one whose DMA goes through the
 * lender's DMA window. The CPU clears the target, edu writes the pattern
 * there and reads it back, and the CPU then finds it in the target; the
 * write to "p2p" fails with -EIO if any of the three differs.
 *
 *	echo "PHYS SEED NODE" > p2p
 *
 * is the same into a BAR of node NODE's (a borrowed device's, reached
 * through an NTB window here).
 *
 * A local edu's requests cross an NTB in both: it is listed in the NTB's
 * requester-ID table toward the node for the time of the DMA
 * (smartio_requester_add()), as every driver with DMA into a peer must.
 * A borrowed edu is its lender's to list.
 *
 *	echo "ADDR SEED" > stray
 *
 * has edu write SEED's pattern to bus address ADDR as it is, mapped by
 * nothing: a driver's stray DMA. A borrowed edu's lender must stop it in
 * its IOMMU (a DMAR fault there) whatever ADDR is, as only the borrower's
 * windows are mapped for it (tests/vm/lend-p2p).
 *
 *	echo SEED > <debugfs>/smartio_edu_test/guard
 *	cat <debugfs>/smartio_edu_test/guard
 *
 * is memory for a stray DMA to miss: a new page of SEED's pattern at each
 * write, and then its physical address and "intact", or "changed" once
 * anything wrote into it. The page is drawn below 16 MiB (ZONE_DMA), where
 * a lender places none of a borrower's windows (SMARTIO_LEND_IOVA_FLOOR in
 * lend/lender.c): the stray DMA must miss it because nothing maps it, not
 * because a window happens to lead there.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "smartio/ntb.h"
#include "edu.h"

/* Bytes per copy: edu's buffer is 4 KiB and a DMA must stay inside it. */
#define SMARTIO_EDU_LEN	2048

struct smartio_edu {
	struct pci_dev *pdev;
	void __iomem *regs;
	void *buf;
	dma_addr_t buf_dma;
	struct dentry *dir;
	struct mutex lock;
};

static struct dentry *smartio_edu_dir;

/* The guard page: its pattern's seed; under smartio_edu_guard_lock. */
static DEFINE_MUTEX(smartio_edu_guard_lock);
static struct page *smartio_edu_guard;
static u64 smartio_edu_guard_seed;

static void smartio_edu_pattern(u64 *words, u64 seed)
{
	u64 x = seed;
	int i;

	for (i = 0; i < SMARTIO_EDU_LEN / sizeof(u64); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		words[i] = x;
	}
}

static int smartio_edu_dma(struct smartio_edu *edu, u64 src, u64 dst, u32 cmd)
{
	return edu_dma(edu->regs, &edu->pdev->dev, src, dst, SMARTIO_EDU_LEN,
		       cmd);
}

static int smartio_edu_copy(struct smartio_edu *edu, u16 node, u32 segment,
			    u64 offset, u64 seed)
{
	struct smartio_segment_conn *conn;
	dma_addr_t seg_dma;
	int ret;

	smartio_edu_pattern(edu->buf, seed);
	conn = smartio_segment_connect(node, segment);
	if (IS_ERR(conn))
		return PTR_ERR(conn);
	if (offset > smartio_segment_size(conn) ||
	    smartio_segment_size(conn) - offset < SMARTIO_EDU_LEN) {
		ret = -EINVAL;
		goto disconnect;
	}
	ret = smartio_segment_map_device(conn, &edu->pdev->dev, &seg_dma);
	if (ret)
		goto disconnect;
	ret = smartio_requester_add(node, edu->pdev);
	if (ret)
		goto unmap;

	ret = smartio_edu_dma(edu, edu->buf_dma, EDU_BUF, 0);
	if (!ret)
		ret = smartio_edu_dma(edu, EDU_BUF, seg_dma + offset,
				      EDU_DMA_TO_RAM);
	if (!ret)
		ret = smartio_edu_dma(edu, seg_dma + offset, EDU_BUF, 0);
	if (!ret)
		dev_info(&edu->pdev->dev, "copied %d bytes to segment %u of node %u + %#llx at %pad\n",
			 SMARTIO_EDU_LEN, segment, node, offset, &seg_dma);
	smartio_requester_remove(node, edu->pdev);
unmap:
	smartio_segment_unmap_device(conn, &edu->pdev->dev, seg_dma);
disconnect:
	smartio_segment_disconnect(conn);
	return ret;
}

/*
 * Parses the arguments a command written to a debugfs file holds: at least
 * @nmin, at most @nmax; returns how many, or -EINVAL.
 */
static __scanf(5, 6) int smartio_edu_args(const char __user *ubuf,
					   size_t count, int nmin, int nmax,
					   const char *fmt, ...)
{
	va_list args;
	char *line;
	int n;

	if (count > 128)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	va_start(args, fmt);
	n = vsscanf(line, fmt, args);
	va_end(args);
	kfree(line);
	return n >= nmin && n <= nmax ? n : -EINVAL;
}

static ssize_t smartio_edu_copy_write(struct file *file, const char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	struct smartio_edu *edu = file->private_data;
	unsigned long long offset, seed;
	unsigned int node, segment;
	int ret;

	ret = smartio_edu_args(ubuf, count, 4, 4, "%u %u %llu %llu", &node,
			       &segment, &offset, &seed);
	if (ret < 0)
		return ret;
	if (!node || node > U16_MAX)
		return -EINVAL;

	mutex_lock(&edu->lock);
	ret = smartio_edu_copy(edu, node, segment, offset, seed);
	mutex_unlock(&edu->lock);
	return ret ?: count;
}

static const struct file_operations smartio_edu_copy_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = smartio_edu_copy_write,
	.llseek = noop_llseek,
};

/*
 * Does the target hold the pattern, as the CPU reads it? Writes posted to
 * a BAR across the fabric may still be on their way (edu's read-back went
 * to its own mapping, not necessarily the same path): give them a second.
 */
static bool smartio_edu_target_holds(void __iomem *target, const u64 *want)
{
	int tries, i;

	for (tries = 0; tries < 50; tries++) {
		for (i = 0; i < SMARTIO_EDU_LEN / sizeof(u64); i++)
			if (readq(target + i * sizeof(u64)) != want[i])
				break;
		if (i == SMARTIO_EDU_LEN / sizeof(u64))
			return true;
		msleep(20);
	}
	return false;
}

/* The index of the first 64-bit word where @got and @want differ. */
static size_t smartio_edu_first_difference(const void *got, const u64 *want)
{
	const u64 *words = got;
	size_t i;

	for (i = 0; i < SMARTIO_EDU_LEN / sizeof(u64) - 1; i++)
		if (words[i] != want[i])
			break;
	return i;
}

static int smartio_edu_p2p(struct smartio_edu *edu, phys_addr_t phys, u64 seed,
			   u16 node)
{
	struct device *dev = &edu->pdev->dev;
	void __iomem *target;
	u64 *want;
	dma_addr_t addr;
	int ret;

	want = kmalloc(SMARTIO_EDU_LEN, GFP_KERNEL);
	target = ioremap(phys, SMARTIO_EDU_LEN);
	if (!want || !target) {
		ret = -ENOMEM;
		goto out;
	}
	addr = dma_map_resource(dev, phys, SMARTIO_EDU_LEN, DMA_BIDIRECTIONAL, 0);
	if (dma_mapping_error(dev, addr)) {
		ret = -EIO;
		goto out;
	}
	if (node) {
		ret = smartio_requester_add(node, edu->pdev);
		if (ret)
			goto unmap;
	}
	smartio_edu_pattern(want, seed);
	memcpy(edu->buf, want, SMARTIO_EDU_LEN);
	memset_io(target, 0, SMARTIO_EDU_LEN);

	ret = smartio_edu_dma(edu, edu->buf_dma, EDU_BUF, 0);
	if (!ret)
		ret = smartio_edu_dma(edu, EDU_BUF, addr, EDU_DMA_TO_RAM);
	if (ret)
		goto unlist;
	/* Back through the same address, over a cleared buffer. */
	memset(edu->buf, 0, SMARTIO_EDU_LEN);
	ret = smartio_edu_dma(edu, addr, EDU_BUF, 0);
	if (!ret)
		ret = smartio_edu_dma(edu, EDU_BUF, edu->buf_dma, EDU_DMA_TO_RAM);
	if (ret)
		goto unlist;
	if (memcmp(edu->buf, want, SMARTIO_EDU_LEN)) {
		size_t i = smartio_edu_first_difference(edu->buf, want);

		dev_err(dev, "p2p: edu read back otherwise from %pa at %pad: word %zu is %#llx, not %#llx\n",
			&phys, &addr, i, ((const u64 *)edu->buf)[i], want[i]);
		ret = -EIO;
	} else if (!smartio_edu_target_holds(target, want)) {
		dev_err(dev, "p2p: %pa does not hold what edu wrote at %pad\n",
			&phys, &addr);
		ret = -EIO;
	} else {
		dev_info(dev, "p2p: %d bytes into %pa at %pad, read back, arrived\n",
			 SMARTIO_EDU_LEN, &phys, &addr);
	}
unlist:
	if (node)
		smartio_requester_remove(node, edu->pdev);
unmap:
	dma_unmap_resource(dev, addr, SMARTIO_EDU_LEN, DMA_BIDIRECTIONAL, 0);
out:
	if (target)
		iounmap(target);
	kfree(want);
	return ret;
}

static ssize_t smartio_edu_p2p_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct smartio_edu *edu = file->private_data;
	unsigned long long phys, seed;
	unsigned int node = 0;
	int ret;

	ret = smartio_edu_args(ubuf, count, 2, 3, "%llx %llu %u", &phys, &seed,
			       &node);
	if (ret < 0)
		return ret;
	if (!IS_ALIGNED(phys, sizeof(u64)) || (ret == 3 && !node) ||
	    node > U16_MAX)
		return -EINVAL;

	mutex_lock(&edu->lock);
	ret = smartio_edu_p2p(edu, phys, seed, node);
	mutex_unlock(&edu->lock);
	return ret ?: count;
}

static const struct file_operations smartio_edu_p2p_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = smartio_edu_p2p_write,
	.llseek = noop_llseek,
};

/* edu writes @seed's pattern to @addr, a bus address no one mapped. */
static int smartio_edu_stray(struct smartio_edu *edu, u64 addr, u64 seed)
{
	int ret;

	smartio_edu_pattern(edu->buf, seed);
	ret = smartio_edu_dma(edu, edu->buf_dma, EDU_BUF, 0);
	if (!ret)
		ret = smartio_edu_dma(edu, EDU_BUF, addr, EDU_DMA_TO_RAM);
	if (!ret)
		dev_info(&edu->pdev->dev, "stray: %d bytes written to %#llx, which nothing maps\n",
			 SMARTIO_EDU_LEN, addr);
	return ret;
}

static ssize_t smartio_edu_stray_write(struct file *file,
				       const char __user *ubuf, size_t count,
				       loff_t *ppos)
{
	struct smartio_edu *edu = file->private_data;
	unsigned long long addr, seed;
	int ret;

	ret = smartio_edu_args(ubuf, count, 2, 2, "%llx %llu", &addr, &seed);
	if (ret < 0)
		return ret;

	mutex_lock(&edu->lock);
	ret = smartio_edu_stray(edu, addr, seed);
	mutex_unlock(&edu->lock);
	return ret ?: count;
}

static const struct file_operations smartio_edu_stray_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = smartio_edu_stray_write,
	.llseek = noop_llseek,
};

/*
 * A new guard page filled with @seed's pattern, below the lowest address
 * a lender gives a window. A random page would not do: a borrower's DMA
 * window covers 256 MiB of a lender's low addresses, its RAM's too, and
 * the allocator hands the same few pages back draw after draw (CI saw
 * fifty draws all inside one).
 */
static int smartio_edu_guard_set(u64 seed)
{
	struct page *page = alloc_page(GFP_KERNEL | GFP_DMA);
	u8 *va;
	int i;

	if (!page)
		return -ENOMEM;
	if (smartio_edu_guard)
		__free_page(smartio_edu_guard);
	smartio_edu_guard = page;
	va = page_address(smartio_edu_guard);
	for (i = 0; i < PAGE_SIZE; i += SMARTIO_EDU_LEN)
		smartio_edu_pattern((u64 *)(va + i), seed);
	smartio_edu_guard_seed = seed;
	return 0;
}

/* Does the guard page still hold its pattern? */
static bool smartio_edu_guard_intact(void)
{
	const u8 *va = page_address(smartio_edu_guard);
	bool intact = true;
	u64 *want;
	int i;

	want = kmalloc(SMARTIO_EDU_LEN, GFP_KERNEL);
	if (!want)
		return false;
	smartio_edu_pattern(want, smartio_edu_guard_seed);
	for (i = 0; i < PAGE_SIZE && intact; i += SMARTIO_EDU_LEN)
		intact = !memcmp(va + i, want, SMARTIO_EDU_LEN);
	kfree(want);
	return intact;
}

static ssize_t smartio_edu_guard_write(struct file *file,
				       const char __user *ubuf, size_t count,
				       loff_t *ppos)
{
	unsigned long long seed;
	int ret;

	ret = smartio_edu_args(ubuf, count, 1, 1, "%llu", &seed);
	if (ret < 0)
		return ret;
	mutex_lock(&smartio_edu_guard_lock);
	ret = smartio_edu_guard_set(seed);
	mutex_unlock(&smartio_edu_guard_lock);
	return ret ?: count;
}

static ssize_t smartio_edu_guard_read(struct file *file, char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	char line[64];
	int len;

	mutex_lock(&smartio_edu_guard_lock);
	if (!smartio_edu_guard) {
		mutex_unlock(&smartio_edu_guard_lock);
		return -ENODATA;
	}
	len = scnprintf(line, sizeof(line), "%#llx %s\n",
			(unsigned long long)page_to_phys(smartio_edu_guard),
			smartio_edu_guard_intact() ? "intact" : "changed");
	mutex_unlock(&smartio_edu_guard_lock);
	return simple_read_from_buffer(ubuf, count, ppos, line, len);
}

static const struct file_operations smartio_edu_guard_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = smartio_edu_guard_read,
	.write = smartio_edu_guard_write,
	.llseek = default_llseek,
};

static int smartio_edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct smartio_edu *edu;
	int ret;

	edu = devm_kzalloc(&pdev->dev, sizeof(*edu), GFP_KERNEL);
	if (!edu)
		return -ENOMEM;
	edu->pdev = pdev;
	mutex_init(&edu->lock);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), KBUILD_MODNAME);
	if (ret)
		return ret;
	edu->regs = pcim_iomap_table(pdev)[0];
	pci_set_master(pdev);
	/* QEMU must give edu a full mask (dma_mask=): the NTB is high. */
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	edu->buf = dmam_alloc_coherent(&pdev->dev, SMARTIO_EDU_LEN,
				       &edu->buf_dma, GFP_KERNEL);
	if (!edu->buf)
		return -ENOMEM;

	edu->dir = debugfs_create_dir(pci_name(pdev), smartio_edu_dir);
	debugfs_create_file("copy", 0200, edu->dir, edu, &smartio_edu_copy_fops);
	debugfs_create_file("p2p", 0200, edu->dir, edu, &smartio_edu_p2p_fops);
	debugfs_create_file("stray", 0200, edu->dir, edu,
			    &smartio_edu_stray_fops);
	pci_set_drvdata(pdev, edu);
	return 0;
}

static void smartio_edu_remove(struct pci_dev *pdev)
{
	struct smartio_edu *edu = pci_get_drvdata(pdev);

	debugfs_remove(edu->dir);
}

static const struct pci_device_id smartio_edu_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },
	{ }
};
MODULE_DEVICE_TABLE(pci, smartio_edu_ids);

static struct pci_driver smartio_edu_driver = {
	.name = KBUILD_MODNAME,
	.id_table = smartio_edu_ids,
	.probe = smartio_edu_probe,
	.remove = smartio_edu_remove,
};

static int __init smartio_edu_init(void)
{
	int ret;

	smartio_edu_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("guard", 0600, smartio_edu_dir, NULL,
			    &smartio_edu_guard_fops);
	ret = pci_register_driver(&smartio_edu_driver);
	if (ret)
		debugfs_remove(smartio_edu_dir);
	return ret;
}

static void __exit smartio_edu_exit(void)
{
	pci_unregister_driver(&smartio_edu_driver);
	debugfs_remove(smartio_edu_dir);
	if (smartio_edu_guard)
		__free_page(smartio_edu_guard);
}

module_init(smartio_edu_init);
module_exit(smartio_edu_exit);

MODULE_DESCRIPTION("smartio test: QEMU's edu DMAs into a remote segment or another device's BAR, or astray");
MODULE_LICENSE("GPL");
