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
 *
 * A lent function is taken back when its borrower returns it, leaves (in
 * the session it borrowed it in or an earlier one: a quick rejoin keeps
 * what it borrowed since), is lost, or when this node takes it: a
 * reclaim, the stub driver letting go of it (an unbind, a PCI removal),
 * the module's exit. Whatever this node takes, its borrower is told
 * (RECLAIMED), and the windows close once it has let go, or after
 * SMARTIO_RECLAIM_TIMEOUT. A borrower announces a return before its
 * driver lets go (RETURNING): what this node then takes waits for the
 * RETURN, with the function running, so that the driver's last commands
 * complete and none of its accesses finds the function taken back (for
 * at most SMARTIO_RETURN_TIMEOUT from the announcement). Taking back resets the function, which may
 * take long: it is done under the function's device lock, outside
 * smartio_lender_lock, so that other borrowers' traffic does not wait.
 *
 * Locks, in order: smartio_lender_bind_lock (changes of a function's
 * driver), a function's device lock (the driver core's), then
 * smartio_lender_lock (the list, the states).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/idr.h>
#include <linux/iommu.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/wait.h>

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
 * @domain: The function's own IOMMU domain while borrowed, if this host
 *	has an IOMMU: it reaches the borrower's windows and nothing else.
 * @dma_win: Our window onto the borrower's DMA range.
 * @msi_win: Our window onto the borrower's MSI range.
 * @ntb_dev: The NTB the borrower reaches us through.
 * @bar_addr: Each memory BAR's DMA address for @ntb_dev: where the
 *	borrower's windows lead.
 * @bar_size: Each memory BAR's size, 0 for none.
 * @bar_grant: Lets the borrower reach each BAR.
 * @listed: Its requester IDs (its VFs' too) are listed toward @borrower
 *	in the NTB's requester-ID table (smartio_requester_add_with_vfs()).
 * @p2p: Its BARs open to the other functions lent to @borrower (p2p.c).
 * @layout: Its capabilities while borrowed: what its borrower's config
 *	writes are judged by (config.c).
 * @session: The session @borrower borrowed it in (smartio_node_session()).
 * @set_up: Lending set it up: smartio_lent_teardown() has work to do.
 * @tearing: Being taken back (smartio_lent_take_back()), outside
 *	smartio_lender_lock; its taker is the only one to change its state.
 * @reclaiming: A reclaimer waits for the borrower to let go, and takes it
 *	back itself (smartio_lent_reclaim_start()).
 * @let_go: The borrower returned it, or left, while it was reclaimed.
 * @returning: The borrower announced its return (RETURNING): its driver
 *	is letting go, and a reclaim waits for the RETURN without stopping
 *	the function.
 * @return_deadline: Until when (jiffies) a reclaim waits for the
 *	announced return.
 * @batched: Among the functions smartio_lender_reclaim_all() reclaims.
 * @releasing: This module is taking the stub driver off it: the stub's
 *	.remove has nothing to do.
 * @unbound: The stub driver let go of it while someone else took it back:
 *	unavailable once back.
 * @rebind: Unavailable since the stub driver let go of it: its host
 *	driver is to get it back (smartio_lender_rebind_work()).
 * @user_ranges: Device addresses the borrower's kernel user maps memory
 *	at, as its borrow named them: @domain's windows keep clear of them.
 * @user_dma: What the borrower's kernel user mapped at addresses of its
 *	choosing (user_dma.c), in @domain.
 *
 * Every field but @pdev is protected by smartio_lender_lock, but what
 * lending sets up (@domain to @p2p), which only the taker, holding the
 * function's device lock, undoes while @tearing.
 */
struct smartio_lent {
	struct list_head list;
	u16 index;
	struct pci_dev *pdev;
	u32 state;
	u16 borrower;
	struct iommu_domain *domain;
	struct smartio_remote *dma_win;
	struct smartio_remote *msi_win;
	struct device *ntb_dev;
	dma_addr_t bar_addr[PCI_STD_NUM_BARS];
	resource_size_t bar_size[PCI_STD_NUM_BARS];
	struct smartio_grant *bar_grant[PCI_STD_NUM_BARS];
	bool listed;
	struct smartio_p2p_member p2p;
	struct smartio_config_layout layout;
	u32 session;
	bool set_up;
	bool tearing;
	bool reclaiming;
	bool let_go;
	bool returning;
	unsigned long return_deadline;
	bool batched;
	bool releasing;
	bool unbound;
	bool rebind;
	struct smartio_dma_range user_ranges[SMARTIO_BORROW_USER_RANGES];
	struct smartio_user_dma user_dma;
};

/*
 * Where a borrowed function sees the borrower's ranges in its own IOMMU
 * domain when they do not fit below 4 GiB (smartio_lent_layout()): above
 * the 32-bit space and within the 39 bits every VT-d unit translates.
 */
#define SMARTIO_LEND_MSI_IOVA	(1ULL << 32)
#define SMARTIO_LEND_DMA_IOVA	(1ULL << 33)

/*
 * Nothing of the borrower's is mapped below this IOVA: a device's access
 * to address 0 or near it (a driver's unset pointer plus an offset) must
 * fault in our IOMMU, not reach the borrower's memory or interrupts.
 */
#define SMARTIO_LEND_IOVA_FLOOR	SZ_16M

/*
 * Protects the list and every device's state; held across no reset, no
 * driver's binding and no wait for a borrower.
 */
static DEFINE_MUTEX(smartio_lender_lock);
/* Serialises changes of a lendable function's driver. */
static DEFINE_MUTEX(smartio_lender_bind_lock);
/* Woken when a device comes back, or its borrower lets go of it. */
static DECLARE_WAIT_QUEUE_HEAD(smartio_lender_returned);
/* The module is going: nothing is lent any more. */
static bool smartio_lender_closing;

/* How long a reclaim waits for the borrower to let go before forcing it. */
#define SMARTIO_RECLAIM_TIMEOUT	(10 * HZ)

/*
 * How long a reclaim waits for a return its borrower announced: the
 * borrower's driver shuts its device down through the windows, with its
 * DMA running, which takes it far less (a driver waiting that long has
 * lost its device anyway). A lost borrower ends the wait as soon as it
 * is noticed.
 */
#define SMARTIO_RETURN_TIMEOUT	(30 * HZ)

/*
 * How long the functions a lost borrower held get, their Bus Master off,
 * for the requests they issued before to complete, before they reset. An
 * FLR waits for them only where the function reports them pending (the
 * Transactions Pending bit, which not every function, nor QEMU's NVMe,
 * implements); the PCIe spec's alternative is to wait long enough, and a
 * borrower that left may have queued work the function was still doing.
 * (A reclaim waits for its borrower to let go, a return comes once the
 * borrower's driver stopped the function: neither needs it.)
 */
#define SMARTIO_LOST_SETTLE_MS	100

/*
 * Is @lent lent to @node, in @session or an earlier one (any session: 0),
 * and not being taken back already?
 */
static bool smartio_lent_held_by(const struct smartio_lent *lent, u16 node,
				 u32 session)
{
	return (lent->state == SMARTIO_DEVICE_STATE_BORROWED ||
		lent->state == SMARTIO_DEVICE_STATE_RETURNING) &&
	       lent->borrower == node && !lent->tearing &&
	       (!session || lent->session <= session);
}
static LIST_HEAD(smartio_lent_devices);
static DEFINE_IDA(smartio_lent_ida);

static void smartio_lender_rebind_work(struct work_struct *work);
static DECLARE_WORK(smartio_lender_rebind, smartio_lender_rebind_work);

static int smartio_lender_probe(struct pci_dev *pdev,
				const struct pci_device_id *id)
{
	pci_info(pdev, "held for lending\n");
	return 0;
}

static void smartio_lender_remove_pdev(struct pci_dev *pdev);

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
	ret = smartio_lendable(pdev, extack);
	if (ret)
		goto err_put;

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

/*
 * Takes smartio_lender_bind_lock, then smartio_lender_lock, for a change
 * of @fdid's driver, and finds its device (smartio_lent_find()).
 */
static struct smartio_lent *smartio_lent_find_to_bind(u32 fdid, int *err,
						      struct netlink_ext_ack *extack)
{
	mutex_lock(&smartio_lender_bind_lock);
	mutex_lock(&smartio_lender_lock);
	return smartio_lent_find(fdid, err, extack);
}

/*
 * Gives @pdev back to its host driver, if one takes it: the stub's
 * override goes, and the driver core binds the driver that matches.
 * Called with smartio_lender_bind_lock held, not smartio_lender_lock.
 */
static void smartio_lender_host_driver(struct pci_dev *pdev)
{
	driver_set_override(&pdev->dev, &pdev->driver_override, "", 0);
	device_release_driver(&pdev->dev);
	if (device_attach(&pdev->dev) < 0)
		pci_warn(pdev, "no driver took the function back\n");
}

int smartio_lender_remove(u32 fdid, struct netlink_ext_ack *extack)
{
	struct pci_dev *rebind = NULL;
	struct smartio_lent *lent;
	int ret = 0;

	lent = smartio_lent_find_to_bind(fdid, &ret, extack);
	if (!lent)
		goto unlock;
	if (lent->state != SMARTIO_DEVICE_STATE_UNAVAILABLE) {
		NL_SET_ERR_MSG(extack, "the device is available for lending: make it unavailable first");
		ret = -EBUSY;
		goto unlock;
	}
	pci_info(lent->pdev, "fdid %x unregistered\n", fdid);
	if (lent->rebind)
		rebind = pci_dev_get(lent->pdev);
	smartio_lent_free(lent);
unlock:
	mutex_unlock(&smartio_lender_lock);
	/* Its stub driver let go of it, and no work will give it back now. */
	if (rebind) {
		smartio_lender_host_driver(rebind);
		pci_dev_put(rebind);
	}
	mutex_unlock(&smartio_lender_bind_lock);
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

/*
 * The stub takes @pdev from its host driver. Called with
 * smartio_lender_bind_lock held, not smartio_lender_lock: the host
 * driver's unbinding may take long.
 */
static int smartio_lender_stub_driver(struct pci_dev *pdev, bool force,
				      struct netlink_ext_ack *extack)
{
	int ret;

	device_lock(&pdev->dev);
	if (!force && smartio_lender_driver_busy(pdev)) {
		NL_SET_ERR_MSG(extack, "the function is in use by its driver (force takes it anyway)");
		device_unlock(&pdev->dev);
		return -EBUSY;
	}
	device_unlock(&pdev->dev);

	ret = driver_set_override(&pdev->dev, &pdev->driver_override,
				  SMARTIO_LENDER_DRIVER,
				  strlen(SMARTIO_LENDER_DRIVER));
	if (ret)
		return ret;
	device_release_driver(&pdev->dev);
	ret = device_driver_attach(&smartio_lender_driver.driver, &pdev->dev);
	if (ret) {
		NL_SET_ERR_MSG(extack, "the lender's stub driver cannot claim the function");
		driver_set_override(&pdev->dev, &pdev->driver_override, "", 0);
		if (device_attach(&pdev->dev) < 0)
			pci_warn(pdev, "no driver took the function back\n");
	}
	return ret;
}

int smartio_lender_available(u32 fdid, bool force,
			     struct netlink_ext_ack *extack)
{
	struct smartio_lent *lent;
	struct pci_dev *pdev;
	int ret = 0;

	lent = smartio_lent_find_to_bind(fdid, &ret, extack);
	if (lent && lent->state != SMARTIO_DEVICE_STATE_UNAVAILABLE) {
		NL_SET_ERR_MSG(extack, "the device is available already");
		ret = -EALREADY;
	}
	if (ret) {
		mutex_unlock(&smartio_lender_lock);
		goto out;
	}
	/* Unavailable, refusing borrows, until the stub holds it. */
	pdev = lent->pdev;
	lent->rebind = false;
	mutex_unlock(&smartio_lender_lock);

	/* The bind lock keeps it registered meanwhile. */
	ret = smartio_lender_stub_driver(pdev, force, extack);
	if (ret)
		goto out;
	mutex_lock(&smartio_lender_lock);
	/* An unbind may have taken it from the stub already. */
	if (lent->rebind) {
		NL_SET_ERR_MSG(extack, "the function left the lender's stub driver at once");
		ret = -ENODEV;
	} else {
		lent->state = SMARTIO_DEVICE_STATE_AVAILABLE;
		pci_info(pdev, "fdid %x available for lending\n", fdid);
		smartio_devices_announce(fdid);
	}
	mutex_unlock(&smartio_lender_lock);
out:
	mutex_unlock(&smartio_lender_bind_lock);
	return ret;
}

int smartio_lender_unavailable(u32 fdid, struct netlink_ext_ack *extack)
{
	struct smartio_lent *lent;
	struct pci_dev *pdev;
	int ret = 0;

	lent = smartio_lent_find_to_bind(fdid, &ret, extack);
	if (!lent)
		goto unlock;
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
	/* No borrow from now; the host driver binds outside the lock. */
	lent->state = SMARTIO_DEVICE_STATE_UNAVAILABLE;
	lent->releasing = true;
	pdev = lent->pdev;
	mutex_unlock(&smartio_lender_lock);

	smartio_lender_host_driver(pdev);

	mutex_lock(&smartio_lender_lock);
	lent->releasing = false;
	pci_info(pdev, "fdid %x no longer available for lending\n", fdid);
unlock:
	mutex_unlock(&smartio_lender_lock);
	mutex_unlock(&smartio_lender_bind_lock);
	return ret;
}

/*
 * Turns off the MSI and MSI-X the borrower turned on, which a function
 * without a reset method keeps: its messages aim at the window onto the
 * borrower, which closes now, and this host's drivers set up interrupts
 * of their own (one driving INTx would otherwise never get one).
 */
static void smartio_lent_msi_off(struct pci_dev *pdev)
{
	u16 ctrl;

	if (pdev->msi_cap) {
		pci_read_config_word(pdev, pdev->msi_cap + PCI_MSI_FLAGS, &ctrl);
		pci_write_config_word(pdev, pdev->msi_cap + PCI_MSI_FLAGS,
				      ctrl & ~PCI_MSI_FLAGS_ENABLE);
	}
	if (pdev->msix_cap) {
		pci_read_config_word(pdev, pdev->msix_cap + PCI_MSIX_FLAGS,
				     &ctrl);
		pci_write_config_word(pdev, pdev->msix_cap + PCI_MSIX_FLAGS,
				      ctrl & ~PCI_MSIX_FLAGS_ENABLE);
	}
}

/*
 * Undoes what lending set up, as far as it got: stops the function's DMA,
 * resets it (so that nothing the borrower left in it runs on), closes
 * every window. Does nothing the second time. Called with the function's
 * device lock held (pci_reset_function_locked()), by its taker or by its
 * stub's .remove, and without smartio_lender_lock: a reset takes long.
 */
static void smartio_lent_teardown(struct smartio_lent *lent)
{
	struct pci_dev *pdev = lent->pdev;
	int i;

	if (!lent->set_up)
		return;
	/* First: no function lent on reaches its BARs, whoever it goes to. */
	smartio_p2p_leave(&lent->p2p);
	/* Never enabled: a borrow refused before it touched the function. */
	if (pci_is_enabled(pdev)) {
		pci_clear_master(pdev);
		if (pci_reset_function_locked(pdev))
			pci_warn(pdev, "could not be reset after lending\n");
		smartio_lent_msi_off(pdev);
		/* Restored by the reset: the INTx lending turned off returns. */
		pci_intx(pdev, 1);
	}
	if (lent->listed)
		smartio_requester_remove_with_vfs(lent->borrower, pdev);
	lent->listed = false;
	if (lent->domain) {
		iommu_detach_device(lent->domain, &pdev->dev);
		iommu_domain_free(lent->domain);
		lent->domain = NULL;
	}
	/* Their mappings went with the domain. */
	smartio_user_dma_clear(&lent->user_dma);
	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		smartio_node_revoke(lent->bar_grant[i]);
		lent->bar_grant[i] = NULL;
		if (lent->bar_size[i])
			dma_unmap_resource(lent->ntb_dev, lent->bar_addr[i],
					   lent->bar_size[i], DMA_BIDIRECTIONAL,
					   0);
		lent->bar_size[i] = 0;
	}
	smartio_remote_unmap(lent->msi_win);
	smartio_remote_unmap(lent->dma_win);
	lent->msi_win = NULL;
	lent->dma_win = NULL;
	if (lent->ntb_dev)
		put_device(lent->ntb_dev);
	lent->ntb_dev = NULL;
	if (pci_is_enabled(pdev))
		pci_disable_device(pdev);
	lent->set_up = false;
}

/*
 * The stub driver let go of @lent (an unbind, a PCI removal): it is
 * unavailable, and its host driver is to have it back, which cannot bind
 * from within the stub's .remove. Called with smartio_lender_lock held.
 */
static void smartio_lent_unbound(struct smartio_lent *lent)
{
	lent->state = SMARTIO_DEVICE_STATE_UNAVAILABLE;
	lent->rebind = true;
	schedule_work(&smartio_lender_rebind);
}

/*
 * Takes @lent back from its borrower: its borrower's config writes are
 * dropped from now (it is RETURNING), then it is torn down outside
 * smartio_lender_lock, and it is available again, or unavailable if its
 * stub driver let go meanwhile. @dev_locked: called from the stub's
 * .remove, with the function's device lock held. Called with
 * smartio_lender_lock held, which is dropped meanwhile, on a function
 * lent and not being taken back.
 */
static void smartio_lent_take_back(struct smartio_lent *lent,
				   bool dev_locked)
{
	struct device *dev = &lent->pdev->dev;

	lent->state = SMARTIO_DEVICE_STATE_RETURNING;
	WRITE_ONCE(lent->tearing, true);
	mutex_unlock(&smartio_lender_lock);
	if (!dev_locked)
		device_lock(dev);
	smartio_lent_teardown(lent);
	if (!dev_locked)
		device_unlock(dev);
	mutex_lock(&smartio_lender_lock);
	WRITE_ONCE(lent->tearing, false);
	lent->borrower = 0;
	lent->session = 0;
	lent->returning = false;
	if (lent->unbound) {
		lent->unbound = false;
		smartio_lent_unbound(lent);
	} else {
		lent->state = SMARTIO_DEVICE_STATE_AVAILABLE;
		smartio_devices_announce(smartio_fdid_make(smartio_local_node_id(),
							   lent->index));
	}
	wake_up_all(&smartio_lender_returned);
}

/*
 * Starts taking @lent back from a live borrower: the function stops (no
 * more DMA), the borrower is told and removes its shadow as a surprise
 * removal, then returns the device (or leaves), which sets @lent->let_go.
 * A borrower that announced its return (@lent->returning) is returning it
 * already, its driver shutting the function down through the windows:
 * the function runs on, nor is it told, and the RETURN ends the wait.
 * The caller finishes with smartio_lent_reclaim_finish(). Called with
 * smartio_lender_lock held, on a borrowed function.
 */
static void smartio_lent_reclaim_start(struct smartio_lent *lent)
{
	u32 fdid = smartio_fdid_make(smartio_local_node_id(), lent->index);
	struct smartio_return_req ev = { .fdid = cpu_to_le32(fdid) };
	int ret;

	lockdep_assert_held(&smartio_lender_lock);
	lent->state = SMARTIO_DEVICE_STATE_RETURNING;
	WRITE_ONCE(lent->reclaiming, true);
	WRITE_ONCE(lent->let_go, false);
	if (lent->returning) {
		pci_info(lent->pdev, "fdid %x: reclaiming from node %u, which is returning it: waiting for its return\n",
			 fdid, lent->borrower);
		return;
	}
	pci_clear_master(lent->pdev);
	ret = smartio_msg_post(lent->borrower, SMARTIO_MSG_OP_RECLAIMED, &ev,
			       sizeof(ev));
	pci_info(lent->pdev, "fdid %x: reclaiming from node %u\n", fdid,
		 lent->borrower);
	if (ret == -EHOSTUNREACH || ret == -ENOTCONN)
		WRITE_ONCE(lent->let_go, true);	/* it left: nothing of it runs */
	else if (ret)
		pci_warn(lent->pdev, "node %u cannot be told: %d\n",
			 lent->borrower, ret);
}

/*
 * Has @lent's borrower let go of it? Read without smartio_lender_lock, as
 * a wait's condition may not sleep; it is written under it, and the
 * writer wakes smartio_lender_returned after.
 */
static bool smartio_lent_let_go(struct smartio_lent *lent)
{
	return READ_ONCE(lent->let_go);
}

/*
 * Waits until @lent's borrower has let go of it, or until @deadline (or
 * the deadline of a return it announced, if later), with
 * smartio_lender_lock dropped. The function cannot go meanwhile: only an
 * unavailable one is removed.
 */
static void smartio_lent_reclaim_wait(struct smartio_lent *lent,
				      unsigned long deadline)
{
	lockdep_assert_held(&smartio_lender_lock);
	if (lent->returning && time_after(lent->return_deadline, deadline))
		deadline = lent->return_deadline;
	mutex_unlock(&smartio_lender_lock);
	wait_event_timeout(smartio_lender_returned, smartio_lent_let_go(lent),
			   time_after(deadline, jiffies) ?
			   deadline - jiffies : 0);
	mutex_lock(&smartio_lender_lock);
}

/*
 * Ends a reclaim that smartio_lent_reclaim_start() started: once the
 * borrower let go, or at @deadline, the function is torn down, so that
 * none of the borrower's accesses in flight meets a closed window. Called
 * with smartio_lender_lock held, which is dropped meanwhile.
 */
static void smartio_lent_reclaim_finish(struct smartio_lent *lent,
					unsigned long deadline,
					bool dev_locked)
{
	smartio_lent_reclaim_wait(lent, deadline);
	if (!lent->let_go)
		pci_warn(lent->pdev, "node %u did not let go of it: taken back\n",
			 lent->borrower);
	WRITE_ONCE(lent->reclaiming, false);
	smartio_lent_take_back(lent, dev_locked);
}

/* Is @lent being taken back by none? Read as smartio_lent_let_go(). */
static bool smartio_lent_settled(struct smartio_lent *lent)
{
	return !READ_ONCE(lent->tearing) && !READ_ONCE(lent->reclaiming);
}

/*
 * The stub driver lets go of a function (an unbind, a PCI removal, the
 * module's exit; not this module's own unbinding): if it is lent, its
 * borrower is told, and it is torn down, here, before the function goes.
 * It is unavailable then, and its host driver gets it back.
 */
static void smartio_lender_remove_pdev(struct pci_dev *pdev)
{
	struct smartio_lent *lent;

	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_by_pdev(pdev);
	if (!lent || lent->releasing)
		goto unlock;
	if (lent->tearing || lent->reclaiming) {
		/*
		 * Its taker waits for the device lock we hold, or for its
		 * borrower: tear it down here, it finds nothing left to do.
		 */
		lent->unbound = true;
		if (lent->reclaiming)
			smartio_lent_reclaim_wait(lent, jiffies +
						  SMARTIO_RECLAIM_TIMEOUT);
		mutex_unlock(&smartio_lender_lock);
		smartio_lent_teardown(lent);
		return;
	}
	switch (lent->state) {
	case SMARTIO_DEVICE_STATE_BORROWED:
		pci_info(pdev, "its driver lets go of it while lent to node %u\n",
			 lent->borrower);
		lent->unbound = true;
		smartio_lent_reclaim_start(lent);
		smartio_lent_reclaim_finish(lent, jiffies +
					    SMARTIO_RECLAIM_TIMEOUT, true);
		break;
	case SMARTIO_DEVICE_STATE_AVAILABLE:
	case SMARTIO_DEVICE_STATE_UNAVAILABLE:	/* being made available */
		pci_info(pdev, "no longer held for lending: unavailable\n");
		smartio_lent_unbound(lent);
		break;
	}
unlock:
	mutex_unlock(&smartio_lender_lock);
}

/*
 * Gives the functions the stub driver let go of (smartio_lent_unbound())
 * back to their host drivers.
 */
static void smartio_lender_rebind_work(struct work_struct *work)
{
	struct smartio_lent *lent;
	struct pci_dev *pdev;

	mutex_lock(&smartio_lender_bind_lock);
	do {
		pdev = NULL;
		mutex_lock(&smartio_lender_lock);
		list_for_each_entry(lent, &smartio_lent_devices, list) {
			if (lent->rebind) {
				lent->rebind = false;
				pdev = pci_dev_get(lent->pdev);
				break;
			}
		}
		mutex_unlock(&smartio_lender_lock);
		if (pdev) {
			smartio_lender_host_driver(pdev);
			pci_dev_put(pdev);
		}
	} while (pdev);
	mutex_unlock(&smartio_lender_bind_lock);
}

/*
 * The lowest IOVA in [@from, @last] aligned to @align where @size bytes lie
 * clear of the @nr_busy ranges at @busy (size 0: none), of every region in
 * @resv and of the BARs under @pdev's host bridge (smartio_p2p_clash());
 * 0 if there is none.
 */
static u64 smartio_lent_fit(struct pci_dev *pdev,
			    const struct list_head *resv,
			    const struct smartio_dma_range *busy,
			    unsigned int nr_busy, u64 size, u64 align,
			    u64 from, u64 last)
{
	const struct iommu_resv_region *r;
	u64 iova = ALIGN(from, align);
	unsigned int i;
	u64 next;

again:
	/* Each retry moves up past what was in the way: it ends. */
	if (iova < from || iova + size - 1 < iova || iova + size - 1 > last)
		return 0;
	for (i = 0; i < nr_busy; i++) {
		if (busy[i].size && iova <= busy[i].start + busy[i].size - 1 &&
		    busy[i].start <= iova + size - 1) {
			iova = ALIGN(busy[i].start + busy[i].size, align);
			goto again;
		}
	}
	if (smartio_p2p_clash(pdev, iova, size, &next)) {
		iova = ALIGN(next, align);
		goto again;
	}
	list_for_each_entry(r, resv, list) {
		if (r->length && iova <= r->start + r->length - 1 &&
		    r->start <= iova + size - 1) {
			iova = ALIGN(r->start + r->length, align);
			goto again;
		}
	}
	return iova;
}

/* A window's alignment: its size's power of two, up to an IOMMU's 1 GiB. */
static u64 smartio_lent_align(u64 size)
{
	return min_t(u64, roundup_pow_of_two(size), SZ_1G);
}

/**
 * smartio_lent_layout() - Where @lent's domain puts the borrower's windows.
 * @lent: The function, attached to its own IOMMU domain.
 * @dma_size: The DMA window's size, page aligned.
 * @msi_size: The interrupt window's size, page aligned.
 * @dma_iova: Set to the DMA window's IOVA.
 * @msi_iova: Set to the interrupt window's IOVA.
 *
 * The one place that decides it. Below 4 GiB wherever they fit: the
 * borrower's driver may give the function a 32-bit DMA mask, streaming
 * or coherent (megaraid_sas's coherent mask is), and a function whose MSI
 * capability has no 64-bit address reaches only the 32-bit space; which
 * a driver will do is not known here before it binds, so every function
 * gets the same layout. The windows are small in the common case (the
 * borrower's IOVA window, 256 MiB, and the 1 MiB interrupt range); a
 * borrower without an IOMMU opens all of its RAM, which may not fit.
 * Each window is aligned to its size (to 1 GiB at most), the DMA window
 * first and as low as it goes (the lower its end, the narrower the masks
 * that reach all of it), then the interrupt window as low as it goes. Not
 * below SMARTIO_LEND_IOVA_FLOOR, and not over the reserved regions of the
 * function's group: the interrupt range 0xfee00000-0xfeefffff (a write
 * there is an interrupt of this host, never translated) and RMRRs (memory
 * firmware still uses), nor over a BAR or bridge window under the
 * function's host bridge: its peers' BARs are mapped at their bus
 * addresses (p2p.c), nor over the device addresses the borrower's kernel
 * user maps memory at (@lent->user_ranges: a guest's RAM). What does not
 * fit below 4 GiB goes where it always went: the interrupt window at
 * 4 GiB, the DMA window at 8 GiB, or above what is in the way there.
 *
 * Return: 0, or -ENOSPC if the domain has no room for a window.
 */
static int smartio_lent_layout(struct smartio_lent *lent, u64 dma_size,
			       u64 msi_size, u64 *dma_iova, u64 *msi_iova)
{
	const struct iommu_domain_geometry *geo = &lent->domain->geometry;
	struct pci_dev *pdev = lent->pdev;
	u64 last = geo->force_aperture ? geo->aperture_end : U64_MAX;
	u64 last32 = min_t(u64, last, SZ_4G - 1);
	u64 floor = max_t(u64, geo->aperture_start, SMARTIO_LEND_IOVA_FLOOR);
	u64 dma_align = smartio_lent_align(dma_size);
	u64 msi_align = smartio_lent_align(msi_size);
	struct smartio_dma_range busy[SMARTIO_BORROW_USER_RANGES + 1];
	unsigned int nr_busy = SMARTIO_BORROW_USER_RANGES;
	struct iommu_group *group;
	LIST_HEAD(resv);
	int ret;

	/* The user's ranges, then (for the interrupt window) the DMA window. */
	memcpy(busy, lent->user_ranges, sizeof(lent->user_ranges));

	group = iommu_group_get(&lent->pdev->dev);
	if (!group)
		return -ENODEV;
	ret = iommu_get_group_resv_regions(group, &resv);
	iommu_group_put(group);
	if (ret)
		goto out;

	*dma_iova = smartio_lent_fit(pdev, &resv, busy, nr_busy, dma_size,
				     dma_align, floor, last32);
	if (!*dma_iova)
		*dma_iova = smartio_lent_fit(pdev, &resv, busy, nr_busy,
					     dma_size, dma_align,
					     max_t(u64, floor,
						   SMARTIO_LEND_DMA_IOVA),
					     last);
	busy[nr_busy++] = (struct smartio_dma_range) { *dma_iova, dma_size };
	*msi_iova = smartio_lent_fit(pdev, &resv, busy, nr_busy, msi_size,
				     msi_align, floor, last32);
	if (!*msi_iova)
		*msi_iova = smartio_lent_fit(pdev, &resv, busy, nr_busy,
					     msi_size, msi_align,
					     max_t(u64, floor,
						   SMARTIO_LEND_MSI_IOVA),
					     last);
	if (!*dma_iova || !*msi_iova) {
		pci_err(lent->pdev, "no room in its IOMMU domain for a %#llx-byte DMA window and a %#llx-byte interrupt window%s\n",
			dma_size, msi_size,
			lent->user_ranges[0].size ?
			" clear of the addresses its borrower's user maps at" :
			"");
		ret = -ENOSPC;
	}
out:
	iommu_put_resv_regions(&lent->pdev->dev, &resv);
	return ret;
}

/* Maps window @win at @iova of @lent's domain; the address the device uses. */
static int smartio_lent_map(struct smartio_lent *lent,
			    struct smartio_remote *win, u64 iova, u64 size,
			    u64 *dev_addr)
{
	phys_addr_t phys = smartio_remote_phys(win);
	int ret;

	if (!lent->domain) {
		*dev_addr = phys;	/* no IOMMU: bus addresses are physical */
		return 0;
	}
	ret = iommu_map(lent->domain, iova, phys, PAGE_ALIGN(size),
			IOMMU_READ | IOMMU_WRITE | IOMMU_MMIO);
	*dev_addr = iova;
	return ret;
}

/*
 * Takes the device addresses the borrower's user maps memory at from
 * @req into @lent: whole pages, none wrapping. Returns whether there are
 * any, or -EINVAL.
 */
static int smartio_lent_user_ranges(struct smartio_lent *lent,
				    const struct smartio_borrow_req *req)
{
	struct smartio_dma_range *r = lent->user_ranges;
	bool any = false;
	int i;

	for (i = 0; i < SMARTIO_BORROW_USER_RANGES; i++) {
		r[i].start = le64_to_cpu(req->user_ranges[i].start);
		r[i].size = le64_to_cpu(req->user_ranges[i].size);
		if (!r[i].size) {
			r[i].start = 0;
			continue;
		}
		if (!smartio_user_dma_range_ok(r[i].start, r[i].size))
			return -EINVAL;
		any = true;
	}
	return any;
}

/*
 * Lends @lent to @node: the function gets its own IOMMU domain holding the
 * windows onto the borrower's DMA and MSI ranges, its BARs are offered to
 * the borrower, and @resp tells where everything is. Called with
 * smartio_lender_lock held.
 */
static int smartio_lent_setup(struct smartio_lent *lent, u16 node,
			      const struct smartio_borrow_req *req,
			      struct smartio_borrow_resp *resp)
{
	u64 dma_addr = le64_to_cpu(req->dma_addr);
	u64 dma_size = le64_to_cpu(req->dma_size);
	u64 msi_addr = le64_to_cpu(req->msi_addr);
	u64 msi_size = le64_to_cpu(req->msi_size);
	struct pci_dev *pdev = lent->pdev;
	u64 dma_iova = 0, msi_iova = 0;
	u64 dma_base, msi_base;
	int i, ret, user_ranges;

	user_ranges = smartio_lent_user_ranges(lent, req);
	if (!dma_size || !msi_size || !PAGE_ALIGNED(dma_addr) ||
	    !PAGE_ALIGNED(msi_addr) || user_ranges < 0)
		return -EINVAL;
	lent->borrower = node;
	lent->state = SMARTIO_DEVICE_STATE_BORROWED;
	lent->set_up = true;
	lent->ntb_dev = smartio_node_dma_device(node);
	if (!lent->ntb_dev)
		return -ENOTCONN;
	get_device(lent->ntb_dev);

	/*
	 * The borrower's windows first: a request whose ranges the node may
	 * not reach is refused before the function is touched, so that its
	 * teardown has no reset to do (smartio_lent_teardown()).
	 */
	lent->dma_win = smartio_remote_map(node, dma_addr, dma_size);
	if (IS_ERR(lent->dma_win)) {
		ret = PTR_ERR(lent->dma_win);
		lent->dma_win = NULL;
		return ret;
	}
	lent->msi_win = smartio_remote_map(node, msi_addr, msi_size);
	if (IS_ERR(lent->msi_win)) {
		ret = PTR_ERR(lent->msi_win);
		lent->msi_win = NULL;
		return ret;
	}

	ret = pci_enable_device(pdev);
	if (ret)
		return ret;
	/* No INTx pin across the fabric (SMARTIO_LENDER_COMMAND). */
	pci_intx(pdev, 0);
	if (device_iommu_mapped(&pdev->dev)) {
		lent->domain = iommu_domain_alloc(pdev->dev.bus);
		if (!lent->domain)
			return -ENOMEM;
		ret = iommu_attach_device(lent->domain, &pdev->dev);
		if (ret) {
			iommu_domain_free(lent->domain);
			lent->domain = NULL;
			pci_err(pdev, "cannot have an IOMMU domain of its own: %d\n",
				ret);
			return ret;
		}
	}
	/* Only an IOMMU puts memory at the addresses a user chooses. */
	if (user_ranges && !lent->domain)
		return -EOPNOTSUPP;

	if (lent->domain) {
		ret = smartio_lent_layout(lent, PAGE_ALIGN(dma_size),
					  PAGE_ALIGN(msi_size), &dma_iova,
					  &msi_iova);
		if (ret)
			return ret;
	}
	ret = smartio_lent_map(lent, lent->dma_win, dma_iova, dma_size,
			       &dma_base);
	if (ret)
		return ret;
	resp->dma_base = cpu_to_le64(dma_base);
	ret = smartio_lent_map(lent, lent->msi_win, msi_iova, msi_size,
			       &msi_base);
	if (ret)
		return ret;
	resp->msi_base = cpu_to_le64(msi_base);
	pci_info(pdev, "for node %u: DMA window at %#llx-%#llx, interrupt window at %#llx-%#llx (%s)\n",
		 node, dma_base, dma_base + dma_size - 1, msi_base,
		 msi_base + msi_size - 1,
		 lent->domain ? "IOVAs of its own domain" :
		 "no IOMMU: our NTB window's bus addresses");

	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		resource_size_t size = pci_resource_len(pdev, i);
		dma_addr_t addr;

		if (!smartio_lent_bar(pdev, i))
			continue;
		addr = dma_map_resource(lent->ntb_dev,
					pci_resource_start(pdev, i), size,
					DMA_BIDIRECTIONAL, 0);
		if (dma_mapping_error(lent->ntb_dev, addr))
			return -ENOMEM;
		lent->bar_addr[i] = addr;
		lent->bar_size[i] = size;
		lent->bar_grant[i] = smartio_node_grant(node, addr, size);
		if (IS_ERR(lent->bar_grant[i])) {
			ret = PTR_ERR(lent->bar_grant[i]);
			lent->bar_grant[i] = NULL;
			return ret;
		}
		resp->bars[i].addr =
			cpu_to_le64(smartio_grant_addr(lent->bar_grant[i]));
		resp->bars[i].size = cpu_to_le64(size);
	}
	/* Its DMA and MSI cross our NTB toward the borrower. */
	ret = smartio_requester_add_with_vfs(node, pdev);
	if (ret)
		return ret;
	lent->listed = true;
	lent->p2p = (struct smartio_p2p_member) {
		.pdev = pdev,
		.domain = lent->domain,
		.node = node,
		.session = lent->session,
		.windows = {
			{ dma_iova, lent->domain ? PAGE_ALIGN(dma_size) : 0 },
			{ msi_iova, lent->domain ? PAGE_ALIGN(msi_size) : 0 },
		},
		.user_addressed = user_ranges > 0,
	};
	ret = smartio_p2p_join(&lent->p2p);
	if (ret)
		return ret;
	resp->p2p_bridge = cpu_to_le32(smartio_p2p_bridge_id(pdev));
	pci_set_master(pdev);
	return smartio_config_lend(pdev, &lent->layout, resp);
}

/* Messaging handler: a node borrows one of our devices. */
static int smartio_lender_borrow_handler(u16 node_id,
					 const struct smartio_msg *req,
					 void *resp, u32 *resp_len)
{
	const struct smartio_borrow_req *r = req->payload;
	struct smartio_device_info info = {};
	struct smartio_lent *lent;
	int ret = 0;

	/* A request: an event has no response to fill. */
	if (!resp || req->len != sizeof(*r) || r->reserved)
		return -EINVAL;
	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_find(le32_to_cpu(r->fdid), &ret, NULL);
	if (!lent)
		goto unlock;
	if (lent->state == SMARTIO_DEVICE_STATE_UNAVAILABLE ||
	    smartio_lender_closing) {
		ret = -EACCES;
		goto unlock;
	}
	if (lent->state != SMARTIO_DEVICE_STATE_AVAILABLE) {
		ret = -EBUSY;
		goto unlock;
	}
	/*
	 * The session it asks in: if it left since, its leaving is handled
	 * after this (it waits for our lock) and takes the device back.
	 */
	lent->session = smartio_node_session(node_id);
	if (!lent->session) {
		ret = -ENOTCONN;
		goto unlock;
	}
	memset(resp, 0, sizeof(struct smartio_borrow_resp));
	ret = smartio_lent_setup(lent, node_id, r, resp);
	if (ret) {
		pci_err(lent->pdev, "cannot be lent to node %u: %d\n", node_id,
			ret);
		smartio_lent_take_back(lent, false);
		goto unlock;
	}
	smartio_lent_fill(lent, smartio_local_node_id(), &info);
	smartio_device_to_wire(&info,
			       &((struct smartio_borrow_resp *)resp)->device);
	*resp_len = sizeof(struct smartio_borrow_resp);
	pci_info(lent->pdev, "lent to node %u\n", node_id);
unlock:
	mutex_unlock(&smartio_lender_lock);
	return ret;
}

/*
 * The function that @node_id's RETURN or RETURNING @req names, lent to
 * it, or NULL with @err set (-EINVAL for a request of the wrong size).
 * Called with smartio_lender_lock held.
 */
static struct smartio_lent *smartio_lent_returned(u16 node_id,
						  const struct smartio_msg *req,
						  int *err)
{
	const struct smartio_return_req *r = req->payload;
	struct smartio_lent *lent;

	lockdep_assert_held(&smartio_lender_lock);
	if (req->len != sizeof(*r)) {
		*err = -EINVAL;
		return NULL;
	}
	*err = 0;
	lent = smartio_lent_find(le32_to_cpu(r->fdid), err, NULL);
	/* Not (or no longer) lent to it: a late or repeated return. */
	if (lent && !smartio_lent_held_by(lent, node_id, 0)) {
		*err = -EPERM;
		return NULL;
	}
	return lent;
}

/* Messaging handler: a borrower gives a device back. */
static int smartio_lender_return_handler(u16 node_id,
					 const struct smartio_msg *req,
					 void *resp, u32 *resp_len)
{
	struct smartio_lent *lent;
	int ret;

	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_returned(node_id, req, &ret);
	if (lent) {
		pci_info(lent->pdev, "returned by node %u\n", node_id);
		if (lent->reclaiming) {
			/* Its reclaimer closes the windows. */
			WRITE_ONCE(lent->let_go, true);
			wake_up_all(&smartio_lender_returned);
		} else {
			smartio_lent_take_back(lent, false);
		}
	}
	mutex_unlock(&smartio_lender_lock);
	return ret;
}

/*
 * Messaging handler: a borrower announces the return of a device, before
 * its driver lets go of it. From now until the RETURN, whatever takes the
 * function back waits for that (smartio_lent_reclaim_start()), with the
 * function running: the driver's shutdown completes, and none of its
 * accesses meets a function stopped or windows closed under it. Answered
 * -ESHUTDOWN when this node is taking the function back already (it
 * stopped it): the borrower then removes its shadow as a surprise
 * removal, and returns it.
 */
static int smartio_lender_returning_handler(u16 node_id,
					    const struct smartio_msg *req,
					    void *resp, u32 *resp_len)
{
	struct smartio_lent *lent;
	int ret;

	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_returned(node_id, req, &ret);
	if (lent && lent->state != SMARTIO_DEVICE_STATE_BORROWED) {
		ret = -ESHUTDOWN;	/* reclaimed: stopped already */
	} else if (lent && !lent->returning) {
		pci_info(lent->pdev, "node %u announces its return\n", node_id);
		lent->returning = true;
		lent->return_deadline = jiffies + SMARTIO_RETURN_TIMEOUT;
	}
	mutex_unlock(&smartio_lender_lock);
	return ret;
}

/* The payload of each config access the borrower sends, by op. */
static u32 smartio_lender_config_len(u16 op)
{
	switch (op) {
	case SMARTIO_MSG_OP_CONFIG_WRITE:
		return sizeof(struct smartio_config_write);
	case SMARTIO_MSG_OP_CONFIG_READ:
		return sizeof(struct smartio_config_read_req);
	default:
		return sizeof(struct smartio_reset_req);
	}
}

/*
 * Looks up the function @fdid for a config access of @node's: NULL with
 * *@err 0 if the access is to be dropped (the function is being taken
 * back from @node), NULL with an error if @node may not access it.
 * Called with smartio_lender_lock held.
 */
static struct smartio_lent *smartio_lent_config_find(u32 fdid, u16 node,
						     int *err)
{
	struct smartio_lent *lent;

	*err = 0;
	lent = smartio_lent_find(fdid, err, NULL);
	/*
	 * Being taken back, its accesses are dropped, but those of a driver
	 * letting go in a return its borrower announced: that reclaim waits
	 * for the RETURN with the function running.
	 */
	if (!lent || (lent->state == SMARTIO_DEVICE_STATE_RETURNING &&
		      lent->borrower == node &&
		      (!lent->returning || lent->tearing)))
		return NULL;
	if ((lent->state != SMARTIO_DEVICE_STATE_BORROWED &&
	     lent->state != SMARTIO_DEVICE_STATE_RETURNING) ||
	    lent->borrower != node || lent->tearing) {
		*err = -EPERM;
		return NULL;
	}
	return lent;
}

/*
 * A borrower's reset of the function @fdid. The function's device lock is
 * taken before smartio_lender_lock, in the order its takers take them
 * (smartio_lent_take_back()), and held across the reset, so that no
 * take-back tears the function down meanwhile; smartio_lender_lock is
 * not, as a reset takes long and every other peer's traffic would wait.
 */
static int smartio_lender_reset(u16 node_id, u32 fdid)
{
	struct smartio_lent *lent;
	struct pci_dev *pdev;
	int ret;

	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_config_find(fdid, node_id, &ret);
	pdev = lent ? pci_dev_get(lent->pdev) : NULL;
	mutex_unlock(&smartio_lender_lock);
	if (!pdev)
		return ret;
	device_lock(&pdev->dev);
	/* Still lent to it? It may have been taken back meanwhile. */
	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_config_find(fdid, node_id, &ret);
	if (lent && lent->pdev != pdev)
		lent = NULL;
	mutex_unlock(&smartio_lender_lock);
	if (lent)
		ret = smartio_config_reset(pdev, node_id);
	device_unlock(&pdev->dev);
	pci_dev_put(pdev);
	return ret;
}

/*
 * Messaging handler of the borrower's config accesses, which config.c
 * serves: writes (events, or requests where the borrower waits for the
 * verdict), reads (requests) and resets (requests, or events from the
 * borrower's atomic context). Each payload starts with the fdid. Those of
 * a device being taken back from the node are dropped.
 */
static int smartio_lender_config_handler(u16 node_id,
					 const struct smartio_msg *req,
					 void *resp, u32 *resp_len)
{
	const struct smartio_return_req *r = req->payload;
	struct smartio_lent *lent;
	int ret;

	if (req->len != smartio_lender_config_len(req->op) ||
	    (req->op == SMARTIO_MSG_OP_CONFIG_READ && !resp))
		return -EINVAL;
	if (req->op == SMARTIO_MSG_OP_RESET)
		return smartio_lender_reset(node_id, le32_to_cpu(r->fdid));
	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_config_find(le32_to_cpu(r->fdid), node_id, &ret);
	if (!lent)
		goto unlock;
	if (req->op == SMARTIO_MSG_OP_CONFIG_WRITE)
		ret = smartio_config_write(lent->pdev, &lent->layout, node_id,
					   req->payload);
	else
		ret = smartio_config_read(lent->pdev, node_id, req->payload,
					  resp, resp_len);
unlock:
	mutex_unlock(&smartio_lender_lock);
	return ret;
}

/* @lent's side of user_dma.c: its domain and its window onto the borrower. */
static struct smartio_user_dma_target
smartio_lent_dma_target(struct smartio_lent *lent)
{
	return (struct smartio_user_dma_target) {
		.pdev = lent->pdev,
		.domain = lent->domain,
		.window = smartio_remote_phys(lent->dma_win),
		.window_size = lent->p2p.windows[0].size,
		.fixed = &lent->p2p,
	};
}

/*
 * Messaging handler of a borrower's DMA_MAP and DMA_UNMAP (user_dma.c):
 * requests, and an unmap as an event too (a map the borrower gave up
 * waiting for). Only for a function lent to @node_id and not being taken
 * back: taking it back frees its domain, and its ranges with it.
 */
static int smartio_lender_dma_handler(u16 node_id,
				      const struct smartio_msg *req,
				      void *resp, u32 *resp_len)
{
	const struct smartio_dma_map_req *r = req->payload;
	struct smartio_user_dma_target t;
	struct smartio_lent *lent;
	int ret;

	if (req->len != sizeof(*r) ||
	    (req->op == SMARTIO_MSG_OP_DMA_MAP && !resp))
		return -EINVAL;
	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_config_find(le32_to_cpu(r->fdid), node_id, &ret);
	if (!lent || lent->state != SMARTIO_DEVICE_STATE_BORROWED) {
		ret = ret ?: -ESHUTDOWN;	/* being returned, or taken back */
		goto unlock;
	}
	t = smartio_lent_dma_target(lent);
	if (req->op == SMARTIO_MSG_OP_DMA_MAP)
		ret = smartio_user_dma_map(&lent->user_dma, &t, r);
	else
		ret = smartio_user_dma_unmap(&lent->user_dma, &t, r);
unlock:
	mutex_unlock(&smartio_lender_lock);
	return ret;
}

/*
 * Messaging handler of a borrower's PEER_MAP and PEER_UNMAP requests
 * (user_dma.c, p2p.c): for a function lent to @node_id and not being
 * taken back, and a map onto a peer lent to it too. A peer taken back
 * meanwhile has left p2p.c's list, which refuses the map.
 */
static int smartio_lender_peer_handler(u16 node_id,
				       const struct smartio_msg *req,
				       void *resp, u32 *resp_len)
{
	const struct smartio_peer_map_req *r = req->payload;
	struct smartio_user_dma_target t;
	struct smartio_lent *lent, *peer;
	int ret;

	if (req->len != sizeof(*r) || !resp)
		return -EINVAL;
	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_config_find(le32_to_cpu(r->fdid), node_id, &ret);
	if (!lent || lent->state != SMARTIO_DEVICE_STATE_BORROWED) {
		ret = ret ?: -ESHUTDOWN;
		goto unlock;
	}
	if (req->op == SMARTIO_MSG_OP_PEER_UNMAP) {
		ret = smartio_user_dma_peer_unmap(&lent->p2p, r);
		goto unlock;
	}
	peer = smartio_lent_config_find(le32_to_cpu(r->peer_fdid), node_id,
					&ret);
	if (!peer || peer->state != SMARTIO_DEVICE_STATE_BORROWED) {
		ret = ret ?: -ESHUTDOWN;
		goto unlock;
	}
	t = smartio_lent_dma_target(lent);
	ret = smartio_user_dma_peer_map(&lent->user_dma, &t, &lent->p2p,
					&peer->p2p, r);
unlock:
	mutex_unlock(&smartio_lender_lock);
	return ret;
}

/*
 * Takes a device back from a live borrower: the function stops (no more
 * DMA), the borrower is told and removes its shadow as a surprise removal,
 * then returns the device; the windows close when it has, so that none of
 * its accesses in flight meets a closed window. A borrower that does not
 * answer within SMARTIO_RECLAIM_TIMEOUT has them closed anyway.
 */
int smartio_lender_reclaim(u32 fdid, struct netlink_ext_ack *extack)
{
	struct smartio_lent *lent;
	int ret = 0;

	mutex_lock(&smartio_lender_lock);
	lent = smartio_lent_find(fdid, &ret, extack);
	if (!lent)
		goto unlock;
	if (lent->state != SMARTIO_DEVICE_STATE_BORROWED) {
		NL_SET_ERR_MSG(extack, "the device is not borrowed");
		ret = -EALREADY;
		goto unlock;
	}
	smartio_lent_reclaim_start(lent);
	smartio_lent_reclaim_finish(lent, jiffies + SMARTIO_RECLAIM_TIMEOUT,
				    false);
unlock:
	mutex_unlock(&smartio_lender_lock);
	return ret;
}

/*
 * Reclaims every function lent to @node (to any node: 0) in @session or an
 * earlier one (any session: 0), all at once: each borrower is told, and
 * all are given SMARTIO_RECLAIM_TIMEOUT together to let go. Called with
 * smartio_lender_lock held, which is dropped meanwhile.
 */
static void smartio_lender_reclaim_all(u16 node, u32 session)
{
	struct smartio_lent *lent;
	unsigned long deadline;

	lockdep_assert_held(&smartio_lender_lock);
	list_for_each_entry(lent, &smartio_lent_devices, list) {
		if (lent->state != SMARTIO_DEVICE_STATE_BORROWED ||
		    (node && !smartio_lent_held_by(lent, node, session)))
			continue;
		smartio_lent_reclaim_start(lent);
		lent->batched = true;
	}
	deadline = jiffies + SMARTIO_RECLAIM_TIMEOUT;
again:
	list_for_each_entry(lent, &smartio_lent_devices, list) {
		if (!lent->batched)
			continue;
		lent->batched = false;
		/* Drops the lock: the list may have changed. */
		smartio_lent_reclaim_finish(lent, deadline, false);
		goto again;
	}
}

/**
 * smartio_lender_node_left() - Take back what a node that left borrowed.
 * @node_id: The node.
 * @session: The session it left: what it borrowed in a later one, after
 *	a quick rejoin, stays.
 *
 * Its functions stop mastering the bus at once, and are reset one at a
 * time after SMARTIO_LOST_SETTLE_MS, each outside smartio_lender_lock.
 */
void smartio_lender_node_left(u16 node_id, u32 session)
{
	struct smartio_lent *lent;
	bool settle = false;

	mutex_lock(&smartio_lender_lock);
	list_for_each_entry(lent, &smartio_lent_devices, list) {
		/* A reclaim stopped it, unless it waits for a return. */
		if (smartio_lent_held_by(lent, node_id, session) &&
		    (!lent->reclaiming || lent->returning)) {
			pci_clear_master(lent->pdev);
			settle = true;
		}
	}
	if (settle) {
		mutex_unlock(&smartio_lender_lock);
		msleep(SMARTIO_LOST_SETTLE_MS);
		mutex_lock(&smartio_lender_lock);
	}
again:
	list_for_each_entry(lent, &smartio_lent_devices, list) {
		if (!smartio_lent_held_by(lent, node_id, session))
			continue;
		if (lent->reclaiming) {
			/* Its reclaimer takes it back, at once now. */
			WRITE_ONCE(lent->let_go, true);
			continue;
		}
		pci_info(lent->pdev, "borrower node %u left: taken back\n",
			 node_id);
		/* Drops the lock: the list may have changed. */
		smartio_lent_take_back(lent, false);
		goto again;
	}
	mutex_unlock(&smartio_lender_lock);
	wake_up_all(&smartio_lender_returned);
}

/**
 * smartio_lender_node_leaving() - Take back what a node we leave borrowed.
 * @node_id: The node, still joined: this node leaves it (the adapter that
 *	reaches it is being removed).
 * @session: The session it is joined in.
 *
 * Each function lent to it is reclaimed as smartioctl reclaim does, while
 * the node still answers: the function stops, the node is told, removes
 * its shadow and returns it, and only then do the windows close. So
 * neither side's access meets a closed window or a link down: the
 * driver's last doorbell writes reach the function, whose DMA stopped
 * first. What is not let go of within SMARTIO_RECLAIM_TIMEOUT is taken
 * back anyway, as when a borrower leaves.
 */
void smartio_lender_node_leaving(u16 node_id, u32 session)
{
	mutex_lock(&smartio_lender_lock);
	smartio_lender_reclaim_all(node_id, session);
	mutex_unlock(&smartio_lender_lock);
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

static const struct {
	u16 op;
	smartio_msg_handler_t handler;
} smartio_lender_handlers[] = {
	{ SMARTIO_MSG_OP_BORROW, smartio_lender_borrow_handler },
	{ SMARTIO_MSG_OP_RETURN, smartio_lender_return_handler },
	{ SMARTIO_MSG_OP_RETURNING, smartio_lender_returning_handler },
	{ SMARTIO_MSG_OP_CONFIG_WRITE, smartio_lender_config_handler },
	{ SMARTIO_MSG_OP_CONFIG_READ, smartio_lender_config_handler },
	{ SMARTIO_MSG_OP_RESET, smartio_lender_config_handler },
	{ SMARTIO_MSG_OP_DMA_MAP, smartio_lender_dma_handler },
	{ SMARTIO_MSG_OP_DMA_UNMAP, smartio_lender_dma_handler },
	{ SMARTIO_MSG_OP_PEER_MAP, smartio_lender_peer_handler },
	{ SMARTIO_MSG_OP_PEER_UNMAP, smartio_lender_peer_handler },
};

static void smartio_lender_handlers_unregister(unsigned int n)
{
	while (n--)
		smartio_msg_handler_unregister(smartio_lender_handlers[n].op);
}

int smartio_lender_init(void)
{
	unsigned int i;
	int ret;

	ret = pci_register_driver(&smartio_lender_driver);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(smartio_lender_handlers); i++) {
		ret = smartio_msg_handler_register(smartio_lender_handlers[i].op,
						   smartio_lender_handlers[i].handler);
		if (ret) {
			smartio_lender_handlers_unregister(i);
			pci_unregister_driver(&smartio_lender_driver);
			return ret;
		}
	}
	return 0;
}

/*
 * Takes every lent function back, its borrower told and given
 * SMARTIO_RECLAIM_TIMEOUT to let go (all at once), then gives every
 * function the stub holds, or let go of, back to its host driver.
 */
void smartio_lender_exit(void)
{
	struct smartio_lent *lent, *next;

	mutex_lock(&smartio_lender_bind_lock);
	mutex_lock(&smartio_lender_lock);
	smartio_lender_closing = true;
	smartio_lender_reclaim_all(0, 0);
	mutex_unlock(&smartio_lender_lock);
	/* Waits for the handlers running: none takes a function after. */
	smartio_lender_handlers_unregister(ARRAY_SIZE(smartio_lender_handlers));

	/* The bind lock keeps every entry: the lock may drop here. */
	mutex_lock(&smartio_lender_lock);
	list_for_each_entry_safe(lent, next, &smartio_lent_devices, list) {
		mutex_unlock(&smartio_lender_lock);
		/* A stub's .remove may still take one back. */
		wait_event(smartio_lender_returned, smartio_lent_settled(lent));
		mutex_lock(&smartio_lender_lock);
		if (lent->state != SMARTIO_DEVICE_STATE_UNAVAILABLE ||
		    lent->rebind) {
			lent->releasing = true;
			mutex_unlock(&smartio_lender_lock);
			smartio_lender_host_driver(lent->pdev);
			mutex_lock(&smartio_lender_lock);
		}
		smartio_lent_free(lent);
	}
	mutex_unlock(&smartio_lender_lock);
	pci_unregister_driver(&smartio_lender_driver);
	mutex_unlock(&smartio_lender_bind_lock);
	/* No stub's .remove asks for it any more. */
	cancel_work_sync(&smartio_lender_rebind);
}
