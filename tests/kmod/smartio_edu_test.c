// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver: QEMU's edu device (PCI 1234:11e8, hw/misc/edu.c) copies
 * data into a remote segment by DMA, at the address the NTB layer's
 * smartio_segment_map_device() gives it: the data crosses the fabric with
 * no CPU copy.
 *
 *	echo "NODE SEGMENT OFFSET SEED" > <debugfs>/smartio_edu_test/copy
 *
 * fills a local buffer with SMARTIO_EDU_LEN bytes of the xorshift64
 * pattern drawn from SEED (as smartio-seg's), has edu DMA it into its
 * internal buffer and from there to OFFSET of segment SEGMENT of node
 * NODE, then DMA it back: the read returns only after the posted writes
 * before it are done (PCIe ordering), so the data is in place when the
 * write to "copy" returns (it fails with the error otherwise).
 */
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "smartio/ntb.h"

#define EDU_DMA_SRC	0x80
#define EDU_DMA_DST	0x88
#define EDU_DMA_CNT	0x90
#define EDU_DMA_CMD	0x98
#define EDU_DMA_RUN	0x1
#define EDU_DMA_TO_RAM	0x2	/* direction: edu's buffer to the bus */
#define EDU_BUF		0x40000

/* Bytes per copy: edu's buffer is 4 KiB and a DMA must stay inside it. */
#define SMARTIO_EDU_LEN	2048

struct smartio_edu {
	struct pci_dev *pdev;
	void __iomem *regs;
	void *buf;
	dma_addr_t buf_dma;
	struct mutex lock;
};

static struct smartio_edu *smartio_edu;
static struct dentry *smartio_edu_dir;

/* One edu DMA, waiting for its end (edu runs it from a timer). */
static int smartio_edu_dma(struct smartio_edu *edu, u64 src, u64 dst, u32 cmd)
{
	u32 status;

	writeq(src, edu->regs + EDU_DMA_SRC);
	writeq(dst, edu->regs + EDU_DMA_DST);
	writeq(SMARTIO_EDU_LEN, edu->regs + EDU_DMA_CNT);
	writel(cmd | EDU_DMA_RUN, edu->regs + EDU_DMA_CMD);
	return readl_poll_timeout(edu->regs + EDU_DMA_CMD, status,
				  !(status & EDU_DMA_RUN), 10000, 10000000);
}

static int smartio_edu_copy(struct smartio_edu *edu, u16 node, u32 segment,
			    u64 offset, u64 seed)
{
	struct smartio_segment_conn *conn;
	dma_addr_t seg_dma;
	u64 *words = edu->buf, x = seed;
	int i, ret;

	for (i = 0; i < SMARTIO_EDU_LEN / sizeof(u64); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		words[i] = x;
	}

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

	ret = smartio_edu_dma(edu, edu->buf_dma, EDU_BUF, 0);
	if (!ret)
		ret = smartio_edu_dma(edu, EDU_BUF, seg_dma + offset,
				      EDU_DMA_TO_RAM);
	if (!ret)
		ret = smartio_edu_dma(edu, seg_dma + offset, EDU_BUF, 0);
	if (!ret)
		dev_info(&edu->pdev->dev, "copied %d bytes to segment %u of node %u + %#llx at %pad\n",
			 SMARTIO_EDU_LEN, segment, node, offset, &seg_dma);
	smartio_segment_unmap_device(conn, &edu->pdev->dev, seg_dma);
disconnect:
	smartio_segment_disconnect(conn);
	return ret;
}

static ssize_t smartio_edu_copy_write(struct file *file, const char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	struct smartio_edu *edu = file->private_data;
	unsigned long long offset, seed;
	unsigned int node, segment;
	char line[96];
	int ret;

	if (count >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, count))
		return -EFAULT;
	line[count] = '\0';
	if (sscanf(line, "%u %u %llu %llu", &node, &segment, &offset, &seed) != 4 ||
	    !node || node > U16_MAX)
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

static int smartio_edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct smartio_edu *edu;
	int ret;

	if (smartio_edu)
		return -EBUSY;	/* one is enough for the tests */

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

	smartio_edu = edu;
	debugfs_create_file("copy", 0200, smartio_edu_dir, edu,
			    &smartio_edu_copy_fops);
	return 0;
}

static void smartio_edu_remove(struct pci_dev *pdev)
{
	debugfs_lookup_and_remove("copy", smartio_edu_dir);
	smartio_edu = NULL;
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
	ret = pci_register_driver(&smartio_edu_driver);
	if (ret)
		debugfs_remove(smartio_edu_dir);
	return ret;
}

static void __exit smartio_edu_exit(void)
{
	pci_unregister_driver(&smartio_edu_driver);
	debugfs_remove(smartio_edu_dir);
}

module_init(smartio_edu_init);
module_exit(smartio_edu_exit);

MODULE_DESCRIPTION("smartio test: QEMU's edu DMAs into a remote segment");
MODULE_LICENSE("GPL");
