// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver: a kernel user of smartio_lend's borrowing API
 * (include/smartio/borrow.h), as the mdev driver is one.
 *
 *	echo "FDID DRIVER [START+SIZE ...]" > <debugfs>/smartio_borrow_test/borrow
 *
 * borrows device FDID (hex) with smartio_borrow(): DRIVER is the only
 * driver that may bind to its shadow, "-" for none
 * (SMARTIO_BORROW_NO_DRIVER) and "*" for any; each START+SIZE (hex, up
 * to SMARTIO_BORROW_USER_RANGES) is a range of device addresses this
 * user maps memory at (smartio_borrow_args.user_ranges). It logs "fdid
 * FDID borrowed as PCI-NAME", or the write fails with the error and logs
 * why.
 *
 *	echo "FDID ADDR PAGES" > <debugfs>/smartio_borrow_test/dma_map
 *	echo "FDID ADDR" > <debugfs>/smartio_borrow_test/dma_unmap
 *
 * map PAGES new pages at device address ADDR (hex) with
 * smartio_borrowed_dma_map(), for reads and writes, each 64-bit word
 * holding its own device address XOR SMARTIO_BORROW_TEST_MAGIC; and
 * unmap the range mapped at ADDR, freeing its pages. An error is the
 * write's.
 *
 *	echo "FDID FROM TO LEN" > <debugfs>/smartio_borrow_test/edu_copy
 *
 * has the device, QEMU's edu, copy LEN bytes (hex, less than its 4 KiB
 * buffer: EDU_DMA_MAX) from device address FROM into its buffer and from
 * there to TO,
 * both in ranges mapped above, and checks that TO's pages then hold
 * FROM's words: it logs "fdid FDID: edu copied LEN bytes from FROM to
 * TO: they match", or fails with EIO and logs the first word that does
 * not.
 *
 *	echo FDID > <debugfs>/smartio_borrow_test/give_back
 *	echo FDID > <debugfs>/smartio_borrow_test/reset
 *
 * give the device back (smartio_give_back()) and reset it on its lender
 * (smartio_borrowed_reset(), whose error the write returns). The lost
 * callback logs "fdid FDID lost, its shadow PCI-NAME reads VENDOR", the
 * vendor id it reads there, the shadow still on its bus: 0xffff where
 * the lender stopped the function (it reclaimed it, or left). Reading
 *
 *	cat <debugfs>/smartio_borrow_test/held
 *
 * lists each handle held: "FDID PCI-NAME borrowed|lost".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/iommu.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "smartio/borrow.h"
#include "edu.h"

/* What dma_map's pages hold, XORed with each word's device address. */
#define SMARTIO_BORROW_TEST_MAGIC	0x5eed0000b0aa0000ULL

static struct dentry *smartio_borrow_test_dir;

/* The handles held, in the order they were borrowed. */
static LIST_HEAD(smartio_borrow_test_held);
static DEFINE_MUTEX(smartio_borrow_test_lock);	/* protects the list */

struct smartio_borrow_test_entry {
	struct list_head list;
	struct smartio_borrowed *b;
	struct list_head ranges;
};

/* A range dma_map mapped: its pages, in device address order. */
struct smartio_borrow_test_range {
	struct list_head list;
	u64 addr;
	unsigned int npages;
	struct page *pages[];
};

static void smartio_borrow_test_range_free(struct smartio_borrow_test_range *r)
{
	unsigned int i;

	for (i = 0; i < r->npages; i++)
		__free_page(r->pages[i]);
	kfree(r);
}

/* Frees the ranges of @e, unmapped (given back, or unmapped by a loss). */
static void smartio_borrow_test_ranges_free(struct smartio_borrow_test_entry *e)
{
	struct smartio_borrow_test_range *r, *next;

	list_for_each_entry_safe(r, next, &e->ranges, list) {
		list_del(&r->list);
		smartio_borrow_test_range_free(r);
	}
}

static void smartio_borrow_test_lost(struct smartio_borrowed *b, void *priv)
{
	struct pci_dev *pdev = smartio_borrowed_pci_dev(b);
	u16 vendor = 0;

	pci_read_config_word(pdev, PCI_VENDOR_ID, &vendor);
	pr_info("fdid %x lost, its shadow %s reads %#06x\n",
		smartio_borrowed_fdid(b), pci_name(pdev), vendor);
}

static const struct smartio_borrow_ops smartio_borrow_test_ops = {
	.lost = smartio_borrow_test_lost,
};

/* The line written to one of our files, NUL-terminated, into @line. */
static int smartio_borrow_test_line(const char __user *ubuf, size_t count,
				    char *line, size_t size)
{
	if (count >= size)
		return -EINVAL;
	if (copy_from_user(line, ubuf, count))
		return -EFAULT;
	line[count] = '\0';
	return 0;
}

/* The FDID (hex) written to one of our files, into @fdid. */
static int smartio_borrow_test_fdid(const char __user *ubuf, size_t count,
				    u32 *fdid)
{
	char line[32];
	int ret;

	ret = smartio_borrow_test_line(ubuf, count, line, sizeof(line));
	if (ret)
		return ret;
	return kstrtou32(strim(line), 16, fdid) ? -EINVAL : 0;
}

/* Called with smartio_borrow_test_lock held. */
static struct smartio_borrow_test_entry *smartio_borrow_test_find(u32 fdid)
{
	struct smartio_borrow_test_entry *e;

	lockdep_assert_held(&smartio_borrow_test_lock);
	list_for_each_entry(e, &smartio_borrow_test_held, list)
		if (smartio_borrowed_fdid(e->b) == fdid)
			return e;
	return NULL;
}

static ssize_t smartio_borrow_test_borrow(struct file *file,
					  const char __user *ubuf,
					  size_t count, loff_t *ppos)
{
	struct smartio_borrow_args args = {
		.ops = &smartio_borrow_test_ops,
	};
	struct smartio_dma_range *r = args.user_ranges;
	struct netlink_ext_ack extack = {};
	struct smartio_borrow_test_entry *e;
	char line[256], driver[32];
	int ret, n;
	u32 fdid;

	ret = smartio_borrow_test_line(ubuf, count, line, sizeof(line));
	if (ret)
		return ret;
	n = sscanf(line, "%x %31s %llx+%llx %llx+%llx %llx+%llx %llx+%llx",
		   &fdid, driver, &r[0].start, &r[0].size, &r[1].start,
		   &r[1].size, &r[2].start, &r[2].size, &r[3].start,
		   &r[3].size);
	if (n < 2 || n % 2)
		return -EINVAL;
	if (!strcmp(driver, "-"))
		args.driver = SMARTIO_BORROW_NO_DRIVER;
	else if (strcmp(driver, "*"))
		args.driver = driver;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	INIT_LIST_HEAD(&e->ranges);
	e->b = smartio_borrow(fdid, &args, &extack);
	if (IS_ERR(e->b)) {
		ret = PTR_ERR(e->b);
		pr_info("fdid %x not borrowed: %s (%d)\n", fdid,
			extack._msg ?: "no message", ret);
		kfree(e);
		return ret;
	}
	pr_info("fdid %x borrowed as %s\n", fdid,
		pci_name(smartio_borrowed_pci_dev(e->b)));
	mutex_lock(&smartio_borrow_test_lock);
	list_add_tail(&e->list, &smartio_borrow_test_held);
	mutex_unlock(&smartio_borrow_test_lock);
	return count;
}

static ssize_t smartio_borrow_test_give_back(struct file *file,
					     const char __user *ubuf,
					     size_t count, loff_t *ppos)
{
	struct smartio_borrow_test_entry *e;
	u32 fdid;
	int ret;

	ret = smartio_borrow_test_fdid(ubuf, count, &fdid);
	if (ret)
		return ret;
	mutex_lock(&smartio_borrow_test_lock);
	e = smartio_borrow_test_find(fdid);
	if (e)
		list_del(&e->list);
	mutex_unlock(&smartio_borrow_test_lock);
	if (!e)
		return -ENOENT;
	smartio_give_back(e->b);
	smartio_borrow_test_ranges_free(e);
	kfree(e);
	pr_info("fdid %x given back\n", fdid);
	return count;
}

static ssize_t smartio_borrow_test_reset(struct file *file,
					 const char __user *ubuf,
					 size_t count, loff_t *ppos)
{
	struct smartio_borrow_test_entry *e;
	u32 fdid;
	int ret;

	ret = smartio_borrow_test_fdid(ubuf, count, &fdid);
	if (ret)
		return ret;
	/* Held across the reset: a give back waits for it. */
	mutex_lock(&smartio_borrow_test_lock);
	e = smartio_borrow_test_find(fdid);
	ret = e ? smartio_borrowed_reset(e->b) : -ENOENT;
	mutex_unlock(&smartio_borrow_test_lock);
	pr_info("fdid %x reset: %d\n", fdid, ret);
	return ret ?: count;
}

static ssize_t smartio_borrow_test_dma_map(struct file *file,
					   const char __user *ubuf,
					   size_t count, loff_t *ppos)
{
	struct smartio_borrow_test_entry *e;
	struct smartio_borrow_test_range *r;
	unsigned int npages, i, j;
	char line[64];
	u64 addr, *words;
	u32 fdid;
	int ret;

	ret = smartio_borrow_test_line(ubuf, count, line, sizeof(line));
	if (ret)
		return ret;
	if (sscanf(line, "%x %llx %u", &fdid, &addr, &npages) != 3 ||
	    !npages || npages > 4096)
		return -EINVAL;
	r = kzalloc(struct_size(r, pages, npages), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->addr = addr;
	for (i = 0; i < npages; i++) {
		r->pages[i] = alloc_page(GFP_KERNEL);
		if (!r->pages[i]) {
			smartio_borrow_test_range_free(r);
			return -ENOMEM;
		}
		r->npages++;
		words = page_address(r->pages[i]);
		for (j = 0; j < PAGE_SIZE / sizeof(u64); j++)
			words[j] = (addr + i * PAGE_SIZE + j * sizeof(u64)) ^
				   SMARTIO_BORROW_TEST_MAGIC;
	}
	mutex_lock(&smartio_borrow_test_lock);
	e = smartio_borrow_test_find(fdid);
	ret = e ? smartio_borrowed_dma_map(e->b, addr, r->pages, npages,
					   IOMMU_READ | IOMMU_WRITE) : -ENOENT;
	if (!ret)
		list_add_tail(&r->list, &e->ranges);
	mutex_unlock(&smartio_borrow_test_lock);
	pr_info("fdid %x: %u pages at %#llx: %d\n", fdid, npages, addr, ret);
	if (ret)
		smartio_borrow_test_range_free(r);
	return ret ?: count;
}

/* Called with smartio_borrow_test_lock held. */
static struct smartio_borrow_test_range *
smartio_borrow_test_range_find(struct smartio_borrow_test_entry *e, u64 addr,
			       u64 len)
{
	struct smartio_borrow_test_range *r;

	lockdep_assert_held(&smartio_borrow_test_lock);
	list_for_each_entry(r, &e->ranges, list)
		if (addr >= r->addr &&
		    addr - r->addr + len <= (u64)r->npages * PAGE_SIZE)
			return r;
	return NULL;
}

static ssize_t smartio_borrow_test_dma_unmap(struct file *file,
					     const char __user *ubuf,
					     size_t count, loff_t *ppos)
{
	struct smartio_borrow_test_entry *e;
	struct smartio_borrow_test_range *r = NULL;
	char line[64];
	u64 addr;
	u32 fdid;
	int ret;

	ret = smartio_borrow_test_line(ubuf, count, line, sizeof(line));
	if (ret)
		return ret;
	if (sscanf(line, "%x %llx", &fdid, &addr) != 2)
		return -EINVAL;
	mutex_lock(&smartio_borrow_test_lock);
	e = smartio_borrow_test_find(fdid);
	if (e)
		r = smartio_borrow_test_range_find(e, addr, 0);
	ret = r && r->addr == addr ?
	      smartio_borrowed_dma_unmap(e->b, addr,
					 (u64)r->npages * PAGE_SIZE) : -ENOENT;
	if (!ret)
		list_del(&r->list);
	mutex_unlock(&smartio_borrow_test_lock);
	pr_info("fdid %x: unmapped %#llx: %d\n", fdid, addr, ret);
	if (ret)
		return ret;
	smartio_borrow_test_range_free(r);
	return count;
}

/* The 64-bit word at device address @addr of @r, in host order. */
static u64 smartio_borrow_test_word(struct smartio_borrow_test_range *r,
				    u64 addr)
{
	u64 off = addr - r->addr;
	u64 *words = page_address(r->pages[off >> PAGE_SHIFT]);

	return words[offset_in_page(off) / sizeof(u64)];
}

static ssize_t smartio_borrow_test_edu_copy(struct file *file,
					    const char __user *ubuf,
					    size_t count, loff_t *ppos)
{
	struct smartio_borrow_test_range *from_r, *to_r;
	struct smartio_borrow_test_entry *e;
	void __iomem *regs = NULL;
	struct pci_dev *pdev;
	u64 from, to, i;
	char line[96];
	u32 fdid, len;
	int ret;

	ret = smartio_borrow_test_line(ubuf, count, line, sizeof(line));
	if (ret)
		return ret;
	if (sscanf(line, "%x %llx %llx %x", &fdid, &from, &to, &len) != 4 ||
	    !len || len > EDU_DMA_MAX || len % sizeof(u64) ||
	    from % sizeof(u64) || to % sizeof(u64))
		return -EINVAL;
	/* Held across the copy: a give back waits for it. */
	mutex_lock(&smartio_borrow_test_lock);
	e = smartio_borrow_test_find(fdid);
	from_r = e ? smartio_borrow_test_range_find(e, from, len) : NULL;
	to_r = e ? smartio_borrow_test_range_find(e, to, len) : NULL;
	if (!from_r || !to_r) {
		ret = -ENOENT;
		goto unlock;
	}
	pdev = smartio_borrowed_pci_dev(e->b);
	regs = pci_iomap(pdev, 0, 0);
	if (!regs) {
		ret = -ENOMEM;
		goto unlock;
	}
	ret = edu_dma(regs, &pdev->dev, from, EDU_BUF, len, 0);
	if (!ret)
		ret = edu_dma(regs, &pdev->dev, EDU_BUF, to, len,
			      EDU_DMA_TO_RAM);
	if (ret)
		goto unlock;
	for (i = 0; i < len; i += sizeof(u64)) {
		u64 want = smartio_borrow_test_word(from_r, from + i);
		u64 got = smartio_borrow_test_word(to_r, to + i);

		if (got != want) {
			pr_info("fdid %x: edu copied %#x bytes from %#llx to %#llx: at +%#llx %#llx, not %#llx\n",
				fdid, len, from, to, i, got, want);
			ret = -EIO;
			goto unlock;
		}
	}
	pr_info("fdid %x: edu copied %#x bytes from %#llx to %#llx: they match\n",
		fdid, len, from, to);
unlock:
	if (regs)
		pci_iounmap(smartio_borrowed_pci_dev(e->b), regs);
	mutex_unlock(&smartio_borrow_test_lock);
	return ret ?: count;
}

static int smartio_borrow_test_held_show(struct seq_file *m, void *v)
{
	struct smartio_borrow_test_entry *e;

	mutex_lock(&smartio_borrow_test_lock);
	list_for_each_entry(e, &smartio_borrow_test_held, list)
		seq_printf(m, "%x %s %s\n", smartio_borrowed_fdid(e->b),
			   pci_name(smartio_borrowed_pci_dev(e->b)),
			   smartio_borrowed_lost(e->b) ? "lost" : "borrowed");
	mutex_unlock(&smartio_borrow_test_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smartio_borrow_test_held);

static const struct file_operations smartio_borrow_test_borrow_fops = {
	.owner = THIS_MODULE,
	.write = smartio_borrow_test_borrow,
};

static const struct file_operations smartio_borrow_test_give_back_fops = {
	.owner = THIS_MODULE,
	.write = smartio_borrow_test_give_back,
};

static const struct file_operations smartio_borrow_test_reset_fops = {
	.owner = THIS_MODULE,
	.write = smartio_borrow_test_reset,
};

static const struct file_operations smartio_borrow_test_dma_map_fops = {
	.owner = THIS_MODULE,
	.write = smartio_borrow_test_dma_map,
};

static const struct file_operations smartio_borrow_test_dma_unmap_fops = {
	.owner = THIS_MODULE,
	.write = smartio_borrow_test_dma_unmap,
};

static const struct file_operations smartio_borrow_test_edu_copy_fops = {
	.owner = THIS_MODULE,
	.write = smartio_borrow_test_edu_copy,
};

static int __init smartio_borrow_test_init(void)
{
	smartio_borrow_test_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("borrow", 0200, smartio_borrow_test_dir, NULL,
			    &smartio_borrow_test_borrow_fops);
	debugfs_create_file("give_back", 0200, smartio_borrow_test_dir, NULL,
			    &smartio_borrow_test_give_back_fops);
	debugfs_create_file("reset", 0200, smartio_borrow_test_dir, NULL,
			    &smartio_borrow_test_reset_fops);
	debugfs_create_file("held", 0400, smartio_borrow_test_dir, NULL,
			    &smartio_borrow_test_held_fops);
	debugfs_create_file("dma_map", 0200, smartio_borrow_test_dir, NULL,
			    &smartio_borrow_test_dma_map_fops);
	debugfs_create_file("dma_unmap", 0200, smartio_borrow_test_dir, NULL,
			    &smartio_borrow_test_dma_unmap_fops);
	debugfs_create_file("edu_copy", 0200, smartio_borrow_test_dir, NULL,
			    &smartio_borrow_test_edu_copy_fops);
	return 0;
}

/* What is still held is given back, as a user's release would. */
static void __exit smartio_borrow_test_exit(void)
{
	struct smartio_borrow_test_entry *e, *next;

	debugfs_remove_recursive(smartio_borrow_test_dir);
	list_for_each_entry_safe(e, next, &smartio_borrow_test_held, list) {
		list_del(&e->list);
		smartio_give_back(e->b);
		smartio_borrow_test_ranges_free(e);
		kfree(e);
	}
}

module_init(smartio_borrow_test_init);
module_exit(smartio_borrow_test_exit);

MODULE_DESCRIPTION("smartio test: a kernel user of the borrowing API");
MODULE_LICENSE("GPL");
