// SPDX-License-Identifier: GPL-2.0
/*
 * The lender's devices: local PCI functions registered for lending.
 *
 * A function is added (it gets an index, hence a fabric device id, and
 * stays with its host driver: unavailable), made available (its host
 * driver lets go and the stub driver below holds it, so nothing on this
 * node touches it while a borrower drives it), made unavailable (the host
 * driver gets it back) and removed. The fdid is the node's id (its first
 * adapter's) with the index below it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/idr.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "smartio/fdid.h"
#include "smartio/ntb.h"
#include "smartio/pci_addr.h"
#include "lend_priv.h"

/**
 * struct smartio_lent - A local function registered for lending.
 * @list: Entry in smartio_lent_devices.
 * @index: Index, the low half of the fdid.
 * @pdev: The function, referenced.
 * @state: enum smartio_device_state.
 * @borrower: The borrower's node id while borrowed.
 */
struct smartio_lent {
	struct list_head list;
	u16 index;
	struct pci_dev *pdev;
	u32 state;
	u16 borrower;
};

/* Protects the list and every device's state. */
static DEFINE_MUTEX(smartio_lender_lock);
static LIST_HEAD(smartio_lent_devices);
static DEFINE_IDA(smartio_lent_ida);

static int smartio_lender_probe(struct pci_dev *pdev,
				const struct pci_device_id *id)
{
	pci_info(pdev, "held for lending\n");
	return 0;
}

static void smartio_lender_remove_pdev(struct pci_dev *pdev)
{
}

/*
 * Binds only to the functions made available, through driver_override;
 * it manages the function's DMA itself (an IOMMU domain of its own while
 * borrowed), so the DMA API's default domain is not kept for it.
 */
static struct pci_driver smartio_lender_driver = {
	.name = SMARTIO_LENDER_DRIVER,
	.probe = smartio_lender_probe,
	.remove = smartio_lender_remove_pdev,
	.driver_managed_dma = true,
};

static void smartio_lent_fill(const struct smartio_lent *lent, u16 node_id,
			      struct smartio_device_info *info)
{
	struct pci_dev *pdev = lent->pdev;

	info->fdid = smartio_fdid_make(node_id, lent->index);
	info->node_id = node_id;
	strscpy(info->pci_name, pci_name(pdev), sizeof(info->pci_name));
	info->vendor = pdev->vendor;
	info->device = pdev->device;
	info->class = pdev->class;
	info->state = lent->state;
	info->borrower = lent->borrower;
}

/* Called with smartio_lender_lock held. */
static struct smartio_lent *smartio_lent_by_pdev(struct pci_dev *pdev)
{
	struct smartio_lent *lent;

	list_for_each_entry(lent, &smartio_lent_devices, list)
		if (lent->pdev == pdev)
			return lent;
	return NULL;
}

/*
 * The local device @fdid names, or NULL with the reason in @extack.
 * Called with smartio_lender_lock held.
 */
static struct smartio_lent *smartio_lent_find(u32 fdid, int *err,
					      struct netlink_ext_ack *extack)
{
	struct smartio_lent *lent;

	if (smartio_fdid_node(fdid) != smartio_local_node_id()) {
		NL_SET_ERR_MSG(extack, "the device is not this node's: run this on its lender");
		*err = -EXDEV;
		return NULL;
	}
	list_for_each_entry(lent, &smartio_lent_devices, list)
		if (lent->index == smartio_fdid_index(fdid))
			return lent;
	NL_SET_ERR_MSG(extack, "no such device");
	*err = -ENOENT;
	return NULL;
}

int smartio_lender_add(const char *pci_name, struct smartio_device_info *info,
		       struct netlink_ext_ack *extack)
{
	struct smartio_pci_addr addr;
	struct smartio_lent *lent;
	struct pci_dev *pdev;
	u16 node_id;
	int ret;

	if (smartio_pci_addr_parse(pci_name, &addr)) {
		NL_SET_ERR_MSG(extack, "not a PCI address ([DDDD:]BB:DD.F)");
		return -EINVAL;
	}
	node_id = smartio_local_node_id();
	if (!node_id) {
		NL_SET_ERR_MSG(extack, "this node has no NTB adapter, hence no node id to lend under");
		return -ENODEV;
	}
	pdev = pci_get_domain_bus_and_slot(addr.domain, addr.bus,
					   PCI_DEVFN(addr.dev, addr.fn));
	if (!pdev) {
		NL_SET_ERR_MSG(extack, "no such PCI function on this node");
		return -ENODEV;
	}
	if (smartio_pci_dev_is_adapter(pdev)) {
		NL_SET_ERR_MSG(extack, "an NTB adapter of this node cannot be lent");
		ret = -EINVAL;
		goto err_put;
	}
	if (pdev->subordinate || pdev->hdr_type != PCI_HEADER_TYPE_NORMAL) {
		NL_SET_ERR_MSG(extack, "a bridge cannot be lent, only endpoint functions");
		ret = -EINVAL;
		goto err_put;
	}

	lent = kzalloc(sizeof(*lent), GFP_KERNEL);
	if (!lent) {
		ret = -ENOMEM;
		goto err_put;
	}
	mutex_lock(&smartio_lender_lock);
	if (smartio_lent_by_pdev(pdev)) {
		NL_SET_ERR_MSG(extack, "the function is registered for lending already");
		ret = -EEXIST;
		goto err_unlock;
	}
	ret = ida_alloc_max(&smartio_lent_ida, SMARTIO_FDID_INDEX_MASK,
			    GFP_KERNEL);
	if (ret < 0)
		goto err_unlock;
	lent->index = ret;
	lent->pdev = pdev;
	lent->state = SMARTIO_DEVICE_STATE_UNAVAILABLE;
	list_add_tail(&lent->list, &smartio_lent_devices);
	smartio_lent_fill(lent, node_id, info);
	mutex_unlock(&smartio_lender_lock);

	pci_info(pdev, "registered for lending as fdid %x\n", info->fdid);
	return 0;

err_unlock:
	mutex_unlock(&smartio_lender_lock);
	kfree(lent);
err_put:
	pci_dev_put(pdev);
	return ret;
}

/* Unlists and frees @lent; called with smartio_lender_lock held. */
static void smartio_lent_free(struct smartio_lent *lent)
{
	list_del(&lent->list);
	ida_free(&smartio_lent_ida, lent->index);
	pci_dev_put(lent->pdev);
	kfree(lent);
}

int smartio_lender_remove(u32 fdid, struct netlink_ext_ack *extack)
{
	struct smartio_lent *lent;
	int ret = 0;

	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_find(fdid, &ret, extack);
	if (!lent)
		goto unlock;
	if (lent->state != SMARTIO_DEVICE_STATE_UNAVAILABLE) {
		NL_SET_ERR_MSG(extack, "the device is available for lending: make it unavailable first");
		ret = -EBUSY;
		goto unlock;
	}
	pci_info(lent->pdev, "fdid %x unregistered\n", fdid);
	smartio_lent_free(lent);
unlock:
	mutex_unlock(&smartio_lender_lock);
	return ret;
}

/*
 * Is @pdev's host driver in use? The closest generic sign: its module is
 * held (an open block device or character device holds its driver's
 * module). It may be held for another function of the same driver.
 */
static bool smartio_lender_driver_busy(struct pci_dev *pdev)
{
	struct device_driver *drv = pdev->dev.driver;

	return drv && drv->owner && module_refcount(drv->owner) > 0;
}

int smartio_lender_available(u32 fdid, bool force,
			     struct netlink_ext_ack *extack)
{
	struct smartio_lent *lent;
	struct pci_dev *pdev;
	int ret = 0;

	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_find(fdid, &ret, extack);
	if (!lent)
		goto unlock;
	pdev = lent->pdev;
	if (lent->state != SMARTIO_DEVICE_STATE_UNAVAILABLE) {
		NL_SET_ERR_MSG(extack, "the device is available already");
		ret = -EALREADY;
		goto unlock;
	}
	device_lock(&pdev->dev);
	if (!force && smartio_lender_driver_busy(pdev)) {
		NL_SET_ERR_MSG(extack, "the function is in use by its driver (force takes it anyway)");
		device_unlock(&pdev->dev);
		ret = -EBUSY;
		goto unlock;
	}
	device_unlock(&pdev->dev);

	ret = driver_set_override(&pdev->dev, &pdev->driver_override,
				  SMARTIO_LENDER_DRIVER,
				  strlen(SMARTIO_LENDER_DRIVER));
	if (ret)
		goto unlock;
	device_release_driver(&pdev->dev);
	ret = device_driver_attach(&smartio_lender_driver.driver, &pdev->dev);
	if (ret) {
		NL_SET_ERR_MSG(extack, "the lender's stub driver cannot claim the function");
		driver_set_override(&pdev->dev, &pdev->driver_override, "", 0);
		if (device_attach(&pdev->dev) < 0)
			pci_warn(pdev, "no driver took the function back\n");
		goto unlock;
	}
	lent->state = SMARTIO_DEVICE_STATE_AVAILABLE;
	pci_info(pdev, "fdid %x available for lending\n", fdid);
unlock:
	mutex_unlock(&smartio_lender_lock);
	return ret;
}

int smartio_lender_unavailable(u32 fdid, struct netlink_ext_ack *extack)
{
	struct smartio_lent *lent;
	struct pci_dev *pdev;
	int ret = 0;

	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_find(fdid, &ret, extack);
	if (!lent)
		goto unlock;
	pdev = lent->pdev;
	switch (lent->state) {
	case SMARTIO_DEVICE_STATE_UNAVAILABLE:
		NL_SET_ERR_MSG(extack, "the device is not available");
		ret = -EALREADY;
		goto unlock;
	case SMARTIO_DEVICE_STATE_AVAILABLE:
		break;
	default:
		NL_SET_ERR_MSG(extack, "the device is borrowed: reclaim it first");
		ret = -EBUSY;
		goto unlock;
	}

	driver_set_override(&pdev->dev, &pdev->driver_override, "", 0);
	device_release_driver(&pdev->dev);
	/* The host driver, if there is one, binds again. */
	if (device_attach(&pdev->dev) < 0)
		pci_warn(pdev, "no driver took the function back\n");
	lent->state = SMARTIO_DEVICE_STATE_UNAVAILABLE;
	pci_info(pdev, "fdid %x no longer available for lending\n", fdid);
unlock:
	mutex_unlock(&smartio_lender_lock);
	return ret;
}

/**
 * smartio_lender_next() - The local device with the lowest index >= @index.
 * @index: Where to start.
 * @info: Filled in.
 *
 * Return: 0, or -ENOENT when there is none (or no node id yet).
 */
int smartio_lender_next(u16 index, struct smartio_device_info *info)
{
	u16 node_id = smartio_local_node_id();
	struct smartio_lent *lent, *found = NULL;

	if (!node_id)
		return -ENOENT;
	mutex_lock(&smartio_lender_lock);
	list_for_each_entry(lent, &smartio_lent_devices, list)
		if (lent->index >= index &&
		    (!found || lent->index < found->index))
			found = lent;
	if (found)
		smartio_lent_fill(found, node_id, info);
	mutex_unlock(&smartio_lender_lock);
	return found ? 0 : -ENOENT;
}

int smartio_lender_init(void)
{
	return pci_register_driver(&smartio_lender_driver);
}

/* Gives every available function back to its host driver. */
void smartio_lender_exit(void)
{
	struct smartio_lent *lent, *next;
	struct pci_dev *pdev;

	mutex_lock(&smartio_lender_lock);
	list_for_each_entry_safe(lent, next, &smartio_lent_devices, list) {
		pdev = lent->pdev;
		if (lent->state != SMARTIO_DEVICE_STATE_UNAVAILABLE) {
			driver_set_override(&pdev->dev, &pdev->driver_override,
					    "", 0);
			device_release_driver(&pdev->dev);
			if (device_attach(&pdev->dev) < 0)
				pci_warn(pdev, "no driver took the function back\n");
		}
		smartio_lent_free(lent);
	}
	mutex_unlock(&smartio_lender_lock);
	pci_unregister_driver(&smartio_lender_driver);
}
