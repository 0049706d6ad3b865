// SPDX-License-Identifier: GPL-2.0
/*
 * The borrower: borrowing another node's function (the lender sets up
 * its side and answers with the function's config space, BARs and
 * windows, see lender.c), putting it on a shadow bus (shadow.c),
 * returning it, and losing it when its lender leaves.
 *
 * DMA goes through the window the lender opens onto our memory: all of
 * it, [0, end of RAM), which inbound accesses reach untranslated. So the
 * NTB must not be behind an IOMMU domain that translates (its group is
 * then of type identity); anything else is refused with that reason.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/iommu.h>
#include <linux/mmzone.h>
#include <linux/netlink.h>
#include <linux/slab.h>

#include "smartio/fdid.h"
#include "smartio/ntb.h"
#include "lend_priv.h"

/* Serialises borrowing, returning and losing; protects the list. */
static DEFINE_MUTEX(smartio_borrower_lock);
static LIST_HEAD(smartio_shadows);

/* Called with smartio_borrower_lock held. */
static struct smartio_shadow *smartio_shadow_find(u32 fdid)
{
	struct smartio_shadow *sh;

	list_for_each_entry(sh, &smartio_shadows, list)
		if (sh->fdid == fdid)
			return sh;
	return NULL;
}

/* End of the physical address space our RAM occupies. */
static u64 smartio_ram_end(void)
{
	u64 end = 0;
	int nid;

	for_each_online_node(nid)
		end = max_t(u64, end, PFN_PHYS(pgdat_end_pfn(NODE_DATA(nid))));
	return end;
}

/* The message a failed borrow request gets, by its status. */
static void smartio_borrow_error(int ret, struct netlink_ext_ack *extack)
{
	switch (ret) {
	case -ENOENT:
		NL_SET_ERR_MSG(extack, "no such device");
		break;
	case -EACCES:
		NL_SET_ERR_MSG(extack, "the device is not available for lending");
		break;
	case -EBUSY:
		NL_SET_ERR_MSG(extack, "the device is borrowed already");
		break;
	case -EHOSTUNREACH:
	case -ENOTCONN:
	case -ETIMEDOUT:
		NL_SET_ERR_MSG(extack, "the device's lender is not reachable");
		break;
	default:
		NL_SET_ERR_MSG(extack, "the lender could not lend the device");
		break;
	}
}

static void smartio_borrower_send_return(u16 lender, u32 fdid)
{
	struct smartio_return_req req = { .fdid = cpu_to_le32(fdid) };
	u32 len;

	smartio_msg_call(lender, SMARTIO_MSG_OP_RETURN, &req, sizeof(req),
			 NULL, 0, &len, SMARTIO_LEND_TIMEOUT);
}

/* Asks the lender for the device; sets @sh up from its answer. */
static int smartio_borrower_request(struct smartio_shadow *sh,
				    struct smartio_borrow_resp *resp,
				    struct netlink_ext_ack *extack)
{
	struct smartio_borrow_req req = {
		.fdid = cpu_to_le32(sh->fdid),
		.dma_addr = cpu_to_le64(sh->dma_addr),
		.dma_size = cpu_to_le64(sh->dma_size),
		.msi_addr = cpu_to_le64(SMARTIO_MSI_ADDR),
		.msi_size = cpu_to_le64(SMARTIO_MSI_SIZE),
	};
	u32 len = 0;
	int ret;

	ret = smartio_msg_call(sh->lender, SMARTIO_MSG_OP_BORROW, &req,
			       sizeof(req), resp, sizeof(*resp), &len,
			       SMARTIO_LEND_TIMEOUT);
	if (!ret && len != sizeof(*resp))
		ret = -EBADMSG;
	if (ret)
		smartio_borrow_error(ret, extack);
	return ret;
}

int smartio_borrower_borrow(u32 fdid, struct smartio_device_info *info,
			    struct netlink_ext_ack *extack)
{
	struct smartio_borrow_resp *resp;
	struct iommu_domain *domain;
	struct smartio_shadow *sh;
	struct device *ntb;
	int ret;

	resp = kzalloc(sizeof(*resp), GFP_KERNEL);
	sh = kzalloc(sizeof(*sh), GFP_KERNEL);
	if (!resp || !sh) {
		ret = -ENOMEM;
		goto out_free;
	}
	sh->fdid = fdid;
	sh->lender = smartio_fdid_node(fdid);
	sh->dma_size = smartio_ram_end();

	mutex_lock(&smartio_borrower_lock);
	if (smartio_shadow_find(fdid)) {
		NL_SET_ERR_MSG(extack, "this node borrows the device already");
		ret = -EBUSY;
		goto out_unlock;
	}
	ntb = smartio_node_dma_device(sh->lender);
	if (!ntb) {
		NL_SET_ERR_MSG(extack, "the device's lender is not reachable");
		ret = -EHOSTUNREACH;
		goto out_unlock;
	}
	domain = iommu_get_domain_for_dev(ntb);
	if (domain && domain->type != IOMMU_DOMAIN_IDENTITY) {
		NL_SET_ERR_MSG(extack, "the NTB's IOMMU domain translates inbound DMA: make its IOMMU group identity");
		ret = -EOPNOTSUPP;
		goto out_unlock;
	}
	sh->ntb = pci_dev_get(to_pci_dev(ntb));

	ret = smartio_borrower_request(sh, resp, extack);
	if (ret)
		goto out_put;
	ret = smartio_shadow_create(sh, resp);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot create the shadow device");
		smartio_borrower_send_return(sh->lender, fdid);
		goto out_put;
	}
	/* From here on the shadow's bus owns @sh and its NTB reference. */
	list_add_tail(&sh->list, &smartio_shadows);
	mutex_unlock(&smartio_borrower_lock);
	kfree(resp);

	if (smartio_devices_get(fdid, info, NULL))
		info->fdid = fdid;	/* the lender left meanwhile */
	smartio_borrower_local_name(fdid, info);
	return 0;

out_put:
	pci_dev_put(sh->ntb);
out_unlock:
	mutex_unlock(&smartio_borrower_lock);
out_free:
	kfree(sh);
	kfree(resp);
	return ret;
}

/*
 * Removes @sh, which its bus frees once its device is released. Called
 * with smartio_borrower_lock held.
 */
static void smartio_borrower_remove(struct smartio_shadow *sh)
{
	bool lost = READ_ONCE(sh->lost);
	u16 lender = sh->lender;
	u32 fdid = sh->fdid;

	list_del(&sh->list);
	smartio_shadow_destroy(sh);	/* may free @sh */
	if (!lost)
		smartio_borrower_send_return(lender, fdid);
}

int smartio_borrower_give_back(u32 fdid, struct netlink_ext_ack *extack)
{
	struct smartio_shadow *sh;
	int ret = 0;

	mutex_lock(&smartio_borrower_lock);
	sh = smartio_shadow_find(fdid);
	if (sh) {
		pci_info(sh->pdev, "returning fdid %x to node %u\n", fdid,
			 sh->lender);
		smartio_borrower_remove(sh);
	} else {
		NL_SET_ERR_MSG(extack, "this node has not borrowed the device");
		ret = -ENOENT;
	}
	mutex_unlock(&smartio_borrower_lock);
	return ret;
}

/**
 * smartio_borrower_local_name() - Name the shadow of a device we borrow.
 * @fdid: The device.
 * @info: Its local_name is set when this node borrows it.
 */
void smartio_borrower_local_name(u32 fdid, struct smartio_device_info *info)
{
	struct smartio_shadow *sh;

	mutex_lock(&smartio_borrower_lock);
	sh = smartio_shadow_find(fdid);
	if (sh)
		strscpy(info->local_name, pci_name(sh->pdev),
			sizeof(info->local_name));
	mutex_unlock(&smartio_borrower_lock);
}

/**
 * smartio_borrower_node_left() - Lose what a node that left lent us.
 * @node_id: The node.
 *
 * Its windows lead nowhere already; the shadow devices are removed as
 * surprise removals: config space reads all-ones, DMA maps fail, and the
 * drivers fail their outstanding I/O.
 */
void smartio_borrower_node_left(u16 node_id)
{
	struct smartio_shadow *sh, *next;

	mutex_lock(&smartio_borrower_lock);
	list_for_each_entry_safe(sh, next, &smartio_shadows, list) {
		if (sh->lender != node_id)
			continue;
		pci_err(sh->pdev, "fdid %x lost: its lender, node %u, left\n",
			sh->fdid, node_id);
		WRITE_ONCE(sh->lost, true);
		sh->pdev->error_state = pci_channel_io_perm_failure;
		smartio_borrower_remove(sh);
	}
	mutex_unlock(&smartio_borrower_lock);
}

/**
 * smartio_borrower_exit() - Return everything borrowed.
 */
void smartio_borrower_exit(void)
{
	struct smartio_shadow *sh, *next;

	mutex_lock(&smartio_borrower_lock);
	list_for_each_entry_safe(sh, next, &smartio_shadows, list)
		smartio_borrower_remove(sh);
	mutex_unlock(&smartio_borrower_lock);
}
