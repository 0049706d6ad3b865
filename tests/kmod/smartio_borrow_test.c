// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver: a kernel user of smartio_lend's borrowing API
 * (include/smartio/borrow.h), as the mdev driver is one.
 *
 *	echo "FDID DRIVER" > <debugfs>/smartio_borrow_test/borrow
 *
 * borrows device FDID (hex) with smartio_borrow(): DRIVER is the only
 * driver that may bind to its shadow, "-" for none
 * (SMARTIO_BORROW_NO_DRIVER) and "*" for any. It logs "fdid FDID
 * borrowed as PCI-NAME", or the write fails with the error and logs why.
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
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "smartio/borrow.h"

static struct dentry *smartio_borrow_test_dir;

/* The handles held, in the order they were borrowed. */
static LIST_HEAD(smartio_borrow_test_held);
static DEFINE_MUTEX(smartio_borrow_test_lock);	/* protects the list */

struct smartio_borrow_test_entry {
	struct list_head list;
	struct smartio_borrowed *b;
};

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
	struct netlink_ext_ack extack = {};
	struct smartio_borrow_test_entry *e;
	char line[64], driver[32];
	const char *name;
	u32 fdid;
	int ret;

	ret = smartio_borrow_test_line(ubuf, count, line, sizeof(line));
	if (ret)
		return ret;
	if (sscanf(line, "%x %31s", &fdid, driver) != 2)
		return -EINVAL;
	if (!strcmp(driver, "-"))
		name = SMARTIO_BORROW_NO_DRIVER;
	else if (!strcmp(driver, "*"))
		name = NULL;
	else
		name = driver;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->b = smartio_borrow(fdid, name, &smartio_borrow_test_ops, NULL,
			      &extack);
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
		kfree(e);
	}
}

module_init(smartio_borrow_test_init);
module_exit(smartio_borrow_test_exit);

MODULE_DESCRIPTION("smartio test: a kernel user of the borrowing API");
MODULE_LICENSE("GPL");
