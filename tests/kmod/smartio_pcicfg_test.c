// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver: config accesses as a driver makes them, through the PCI
 * core in process context, a write's error given back. User space has no
 * such path: sysfs's config file and /proc/bus/pci access config space
 * under the PCI core's raw spinlock, and drop what a write returns.
 *
 *	echo "DDDD:BB:DD.F OFFSET SIZE VALUE" > <debugfs>/smartio_pcicfg_test/write
 *
 * writes VALUE, SIZE bytes (1, 2 or 4), at OFFSET of function
 * DDDD:BB:DD.F's config space with pci_write_config_byte(), _word() or
 * _dword(); the write(2) fails with the error the accessor returned
 * (pcibios_err_to_errno()), as a driver would see it.
 *
 *	echo "DDDD:BB:DD.F OFFSET SIZE" > <debugfs>/smartio_pcicfg_test/read
 *
 * reads as a driver does, where it may sleep (sysfs reads under the
 * spinlock). Each logs what it did: "test config write of VALUE at
 * OFFSET (SIZE bytes): ERRNO", "test config read at OFFSET (SIZE bytes):
 * VALUE".
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "smartio/pci_addr.h"

static struct dentry *smartio_pcicfg_dir;

static int smartio_pcicfg_write_config(struct pci_dev *pdev, int where,
				       int size, u32 val)
{
	switch (size) {
	case 1:
		return pci_write_config_byte(pdev, where, val);
	case 2:
		return pci_write_config_word(pdev, where, val);
	case 4:
		return pci_write_config_dword(pdev, where, val);
	}
	return PCIBIOS_BAD_REGISTER_NUMBER;
}

static int smartio_pcicfg_read_config(struct pci_dev *pdev, int where,
				      int size, u32 *val)
{
	u16 w;
	u8 b;
	int ret;

	switch (size) {
	case 1:
		ret = pci_read_config_byte(pdev, where, &b);
		*val = b;
		return ret;
	case 2:
		ret = pci_read_config_word(pdev, where, &w);
		*val = w;
		return ret;
	case 4:
		return pci_read_config_dword(pdev, where, val);
	}
	return PCIBIOS_BAD_REGISTER_NUMBER;
}

/*
 * The function a command written to one of our files names, referenced,
 * with its OFFSET, SIZE and (@want_val) VALUE.
 */
static struct pci_dev *smartio_pcicfg_parse(const char __user *ubuf,
					    size_t count, bool want_val,
					    int *where, int *size, u32 *val)
{
	struct smartio_pci_addr addr;
	char line[96], name[32];
	struct pci_dev *pdev;

	if (count >= sizeof(line))
		return ERR_PTR(-EINVAL);
	if (copy_from_user(line, ubuf, count))
		return ERR_PTR(-EFAULT);
	line[count] = '\0';
	if (sscanf(line, "%31s %i %i %i", name, where, size, val) !=
	    3 + want_val || smartio_pci_addr_parse(name, &addr))
		return ERR_PTR(-EINVAL);
	pdev = pci_get_domain_bus_and_slot(addr.domain, addr.bus,
					   PCI_DEVFN(addr.dev, addr.fn));
	return pdev ?: ERR_PTR(-ENODEV);
}

static ssize_t smartio_pcicfg_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct pci_dev *pdev;
	int where, size, ret;
	u32 val;

	pdev = smartio_pcicfg_parse(ubuf, count, true, &where, &size, &val);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	ret = smartio_pcicfg_write_config(pdev, where, size, val);
	pci_info(pdev, "test config write of %#x at %#x (%d bytes): %d\n", val,
		 where, size, pcibios_err_to_errno(ret));
	pci_dev_put(pdev);
	return ret ? pcibios_err_to_errno(ret) : count;
}

static ssize_t smartio_pcicfg_read(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pci_dev *pdev;
	int where, size, ret;
	u32 val = 0;

	pdev = smartio_pcicfg_parse(ubuf, count, false, &where, &size, &val);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	ret = smartio_pcicfg_read_config(pdev, where, size, &val);
	pci_info(pdev, "test config read at %#x (%d bytes): %#x\n", where, size,
		 val);
	pci_dev_put(pdev);
	return ret ? pcibios_err_to_errno(ret) : count;
}

static const struct file_operations smartio_pcicfg_write_fops = {
	.owner = THIS_MODULE,
	.write = smartio_pcicfg_write,
};

static const struct file_operations smartio_pcicfg_read_fops = {
	.owner = THIS_MODULE,
	.write = smartio_pcicfg_read,
};

static int __init smartio_pcicfg_init(void)
{
	smartio_pcicfg_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("write", 0200, smartio_pcicfg_dir, NULL,
			    &smartio_pcicfg_write_fops);
	debugfs_create_file("read", 0200, smartio_pcicfg_dir, NULL,
			    &smartio_pcicfg_read_fops);
	return 0;
}

static void __exit smartio_pcicfg_exit(void)
{
	debugfs_remove_recursive(smartio_pcicfg_dir);
}

module_init(smartio_pcicfg_init);
module_exit(smartio_pcicfg_exit);

MODULE_DESCRIPTION("smartio test: config reads and writes as a driver makes them, their errors given back");
MODULE_LICENSE("GPL");
