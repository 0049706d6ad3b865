// SPDX-License-Identifier: GPL-2.0
/*
 * The borrower: borrowing another node's function (the lender sets up
 * its side and answers with the function's config space, BARs and
 * windows, see lender.c), putting it on a shadow bus (shadow.c),
 * returning it, and losing it when its lender leaves.
 *
 * DMA goes through the window the lender opens onto our memory: where our
 * IOMMU translates the NTB's inbound accesses, the NTB's IOVA window, into
 * which the shadow's DMA ops map what the driver maps; elsewhere all of
 * RAM, [0, end of RAM), which inbound accesses reach as is.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/mmzone.h>
#include <linux/moduleparam.h>
#include <linux/netlink.h>
#include <linux/slab.h>

#include "smartio/fdid.h"
#include "smartio/ntb.h"
#include "lend_priv.h"

/* Serialises borrowing, returning and losing; protects the list. */
static DEFINE_MUTEX(smartio_borrower_lock);
static LIST_HEAD(smartio_shadows);
/*
 * Protects the list too, for smartio_borrower_peer_bar(), which may not
 * sleep: changes take both locks.
 */
static DEFINE_SPINLOCK(smartio_shadows_lock);

/**
 * struct smartio_borrowed - A kernel user's borrowed device (borrow.h).
 * @sh: Its shadow, NULL once lost (or given back): protected by
 *	smartio_borrower_lock.
 * @pdev: The shadow device, referenced until the handle is given back:
 *	after a loss it reads all-ones, as a function gone from its bus.
 * @fdid: The device.
 * @ops: What the user is told, or NULL.
 * @priv: The user's, passed back to @ops.
 * @user_ranges: The device addresses the user maps memory at.
 *
 * Allocated by smartio_borrow(), and the user's until smartio_give_back()
 * frees it; the shadow points back to it (smartio_shadow.user).
 */
struct smartio_borrowed {
	struct smartio_shadow *sh;
	struct pci_dev *pdev;
	u32 fdid;
	const struct smartio_borrow_ops *ops;
	void *priv;
	struct smartio_dma_range user_ranges[SMARTIO_BORROW_USER_RANGES];
};

/* Called with smartio_borrower_lock held. */
static struct smartio_shadow *smartio_shadow_find(u32 fdid)
{
	struct smartio_shadow *sh;

	list_for_each_entry(sh, &smartio_shadows, list)
		if (sh->fdid == fdid)
			return sh;
	return NULL;
}

/**
 * smartio_borrower_peer_bar() - @sh's own way to another borrowed BAR.
 * @sh: A shadow whose driver maps a resource for it.
 * @phys: Start of the resource: our physical address.
 * @size: Its size.
 * @addr: Set to the device's address of it, where it has one.
 *
 * Where [@phys, @phys + @size) lies in a BAR of another function borrowed
 * from @sh's lender in the same session, under the same host bridge there
 * (p2p.c), @sh's function reaches it on the lender, at the bus address
 * the BAR has there: straight through the lender's switch rather than
 * across the fabric and back. May be called in atomic context.
 *
 * Return: Whether it does, with *@addr set.
 */
bool smartio_borrower_peer_bar(const struct smartio_shadow *sh,
			       phys_addr_t phys, size_t size, dma_addr_t *addr)
{
	const struct smartio_shadow *peer;
	unsigned long flags;
	bool found = false;
	int i;

	if (!sh->p2p_bridge || !size || phys + size - 1 < phys)
		return false;
	spin_lock_irqsave(&smartio_shadows_lock, flags);
	list_for_each_entry(peer, &smartio_shadows, list) {
		if (peer == sh || peer->lender != sh->lender ||
		    peer->session != sh->session ||
		    peer->p2p_bridge != sh->p2p_bridge || READ_ONCE(peer->lost))
			continue;
		for (i = 0; i < peer->nr_windows; i++) {
			const struct resource *win = &peer->windows[i];

			if (phys >= win->start && phys + size - 1 <= win->end) {
				*addr = phys - peer->window_offset[i];
				found = true;
				goto out;
			}
		}
	}
out:
	spin_unlock_irqrestore(&smartio_shadows_lock, flags);
	return found;
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

/*
 * May the lender have said yes to a BORROW that ended in @ret? A timeout
 * or a signal ends our wait, not its request, and an answer lost with a
 * lender that left was maybe a yes; an answer of its handler is a no.
 */
static bool smartio_borrow_maybe_lent(int ret)
{
	return ret == -ETIMEDOUT || ret == -EINTR || ret == -ENOTCONN ||
	       ret == -EBADMSG || ret == -EMSGSIZE;
}

/*
 * A borrow failed (@ret) after the lender may have lent the device: it is
 * given back, so that the lender does not keep it for us. The lender
 * serves our messages in order: it meets this RETURN after the BORROW, if
 * that reached it at all, and refuses it, changing nothing, if it did
 * not lend us the device.
 */
static void smartio_borrower_undo(struct smartio_shadow *sh, int ret)
{
	pr_info("fdid %x: the borrow failed (%d) after node %u may have lent it: giving it back\n",
		sh->fdid, ret, sh->lender);
	smartio_borrower_send_return(sh->lender, sh->fdid);
}

/*
 * Is the device there to borrow? The lender decides again when asked, but
 * a clear reason comes cheaper before anything is set up here.
 */
static int smartio_borrower_check(u32 fdid, struct netlink_ext_ack *extack)
{
	struct smartio_device_info info = {};
	int ret;

	ret = smartio_devices_get(fdid, &info, extack);
	if (ret)
		return ret;
	switch (info.state) {
	case SMARTIO_DEVICE_STATE_AVAILABLE:
		return 0;
	case SMARTIO_DEVICE_STATE_UNAVAILABLE:
		NL_SET_ERR_MSG(extack, "the device is not available for lending");
		return -EACCES;
	default:
		if (info.local_name[0])
			NL_SET_ERR_MSG(extack, "this node borrows the device already");
		else
			NL_SET_ERR_MSG(extack, "the device is borrowed already");
		return -EBUSY;
	}
}

/*
 * Asks the lender for the device, for @user (NULL: the node); sets @sh up
 * from its answer.
 */
static int smartio_borrower_request(struct smartio_shadow *sh,
				    const struct smartio_borrowed *user,
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
	bool user_ranges = false;
	int i, ret;

	for (i = 0; user && i < SMARTIO_BORROW_USER_RANGES; i++) {
		req.user_ranges[i].start = cpu_to_le64(user->user_ranges[i].start);
		req.user_ranges[i].size = cpu_to_le64(user->user_ranges[i].size);
		user_ranges |= !!user->user_ranges[i].size;
	}
	ret = smartio_lend_call(sh->lender, SMARTIO_MSG_OP_BORROW, &req,
				sizeof(req), resp, sizeof(*resp),
				SMARTIO_LEND_TIMEOUT);
	if (ret == -EOPNOTSUPP && user_ranges)
		NL_SET_ERR_MSG(extack, "the lender has no IOMMU to put memory at the device addresses the user chooses");
	else if (ret == -ENOSPC && user_ranges)
		NL_SET_ERR_MSG(extack, "the lender has no room for the device's windows clear of the device addresses the user maps at");
	else if (ret)
		smartio_borrow_error(ret, extack);
	return ret;
}

/*
 * Borrows @fdid: its shadow device is the node's (@user NULL, returned by
 * smartio_borrower_give_back()) or @user's; only @driver may bind to it
 * (NULL: any). @info is set as the lender lists the device.
 */
static int smartio_borrower_create(u32 fdid, const char *driver,
				   struct smartio_borrowed *user,
				   struct smartio_device_info *info,
				   struct netlink_ext_ack *extack)
{
	struct smartio_borrow_resp *resp;
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
	sh->driver = driver;

	/* Without the lock: the listing names what this node borrows. */
	ret = smartio_borrower_check(fdid, extack);
	if (ret)
		goto out_free;

	mutex_lock(&smartio_borrower_lock);
	if (smartio_shadow_find(fdid)) {
		NL_SET_ERR_MSG(extack, "this node borrows the device already");
		ret = -EBUSY;
		goto out_unlock;
	}

	/* What the lender lends now is of this session: its leaving undoes it. */
	sh->session = smartio_node_session(sh->lender);
	ntb = smartio_node_dma_device(sh->lender);
	if (!sh->session || !ntb) {
		NL_SET_ERR_MSG(extack, "the device's lender is not reachable");
		ret = -EHOSTUNREACH;
		goto out_unlock;
	}
	sh->iova = smartio_iova_window_get(sh->lender, &sh->dma_addr,
					   &sh->dma_size);
	if (IS_ERR(sh->iova)) {
		ret = PTR_ERR(sh->iova);
		sh->iova = NULL;
		if (ret == -EOPNOTSUPP)
			NL_SET_ERR_MSG(extack, "the NTB's IOMMU domain translates inbound DMA and has no IOVA window");
		else
			NL_SET_ERR_MSG(extack, "the device's lender is not reachable");
		goto out_unlock;
	}
	if (!sh->iova)
		sh->dma_size = smartio_ram_end();
	sh->ntb = pci_dev_get(to_pci_dev(ntb));

	ret = smartio_borrower_request(sh, user, resp, extack);
	if (ret) {
		if (smartio_borrow_maybe_lent(ret))
			smartio_borrower_undo(sh, ret);
		goto out_put;
	}
	/* It left, and maybe joined again, while it answered. */
	if (smartio_node_session(sh->lender) != sh->session) {
		NL_SET_ERR_MSG(extack, "the device's lender left during the borrow");
		ret = -ENOTCONN;
		smartio_borrower_undo(sh, ret);
		goto out_put;
	}
	ret = smartio_shadow_create(sh, resp);
	if (ret) {
		if (ret == -EADDRINUSE)
			NL_SET_ERR_MSG(extack,
				       "this node's NTB driver holds its window BARs busy: a borrowed device's driver could not claim its BARs");
		else if (ret == -ENXIO)
			NL_SET_ERR_MSG(extack,
				       "a BAR of the device cannot be mapped on this node (the kernel log says which and why)");
		else
			NL_SET_ERR_MSG(extack, "cannot create the shadow device");
		smartio_borrower_undo(sh, ret);
		goto out_put;
	}
	/* From here on the shadow's bus owns @sh and its NTB reference. */
	sh->driver = NULL;
	if (user) {
		sh->user = user;
		user->sh = sh;
		user->pdev = pci_dev_get(sh->pdev);
	}
	spin_lock_irq(&smartio_shadows_lock);
	list_add_tail(&sh->list, &smartio_shadows);
	spin_unlock_irq(&smartio_shadows_lock);
	smartio_device_from_wire(&resp->device, info);
	strscpy(info->local_name, pci_name(sh->pdev), sizeof(info->local_name));
	mutex_unlock(&smartio_borrower_lock);
	kfree(resp);
	return 0;

out_put:
	pci_dev_put(sh->ntb);
	smartio_iova_window_put(sh->iova);
out_unlock:
	mutex_unlock(&smartio_borrower_lock);
out_free:
	kfree(sh);
	kfree(resp);
	return ret;
}

int smartio_borrower_borrow(u32 fdid, struct smartio_device_info *info,
			    struct netlink_ext_ack *extack)
{
	return smartio_borrower_create(fdid, NULL, NULL, info, extack);
}

/*
 * Tells @sh's kernel user, if it has one, that the device is gone, and
 * parts them: the handle stays the user's, to give back. Called with
 * smartio_borrower_lock held, before the shadow is removed.
 */
static void smartio_borrower_tell_user(struct smartio_shadow *sh)
{
	struct smartio_borrowed *b = sh->user;

	lockdep_assert_held(&smartio_borrower_lock);
	if (!b)
		return;
	/* Before the user frees the pages, if it does in its callback. */
	smartio_user_dma_drop(sh);
	if (b->ops && b->ops->lost)
		b->ops->lost(b, b->priv);
	WRITE_ONCE(b->sh, NULL);
	sh->user = NULL;
}

/*
 * Removes @sh, which its bus frees once its device is released; its
 * kernel user is told first. Called with smartio_borrower_lock held.
 */
static void smartio_borrower_remove(struct smartio_shadow *sh,
				    bool tell_lender)
{
	u16 lender = sh->lender;
	u32 fdid = sh->fdid;

	lockdep_assert_held(&smartio_borrower_lock);
	smartio_borrower_tell_user(sh);

	spin_lock_irq(&smartio_shadows_lock);
	list_del(&sh->list);
	spin_unlock_irq(&smartio_shadows_lock);
	smartio_shadow_destroy(sh);	/* may free @sh */
	if (tell_lender)
		smartio_borrower_send_return(lender, fdid);
}

#ifdef CONFIG_SMARTIO_TEST_HOOKS
/*
 * Test hook: while set, a return waits between its announcement and its
 * driver's letting go (for at most SMARTIO_TEST_RETURN_HOLD_MS), so that
 * a test can have a reclaim cross it there (tests/vm/fuzz-netlink, case
 * crossing).
 */
static bool test_return_hold;
module_param(test_return_hold, bool, 0644);
MODULE_PARM_DESC(test_return_hold,
		 "test hook: hold returns between their announcement and unbind");
#define SMARTIO_TEST_RETURN_HOLD_MS	60000
#endif

/*
 * Announces the return of @sh to its lender (RETURNING), before its
 * driver lets go of it: the lender then waits for the RETURN with the
 * function running, even if it reclaims the function meanwhile, so that
 * the driver's shutdown (commands it waits for, reads of its BARs) finds
 * the function as it was. If the lender is taking it back already, which
 * stopped the function, or cannot be asked, the shadow is lost: its
 * driver lets go of it as in a surprise removal, touching nothing it
 * would wait for. Called with smartio_borrower_lock held.
 */
static void smartio_borrower_announce_return(struct smartio_shadow *sh)
{
	struct smartio_return_req req = { .fdid = cpu_to_le32(sh->fdid) };
	u32 len;
	int ret;

	lockdep_assert_held(&smartio_borrower_lock);
	ret = smartio_msg_call(sh->lender, SMARTIO_MSG_OP_RETURNING, &req,
			       sizeof(req), NULL, 0, &len,
			       SMARTIO_LEND_TIMEOUT);
	if (ret) {
		pci_info(sh->pdev, "fdid %x: node %u %s (%pe): its driver lets go of it as of a device gone\n",
			 sh->fdid, sh->lender, ret == -ESHUTDOWN ?
			 "is reclaiming it" : "did not take the return",
			 ERR_PTR(ret));
		WRITE_ONCE(sh->lost, true);
		sh->pdev->error_state = pci_channel_io_perm_failure;
		return;
	}
#ifdef CONFIG_SMARTIO_TEST_HOOKS
	if (READ_ONCE(test_return_hold)) {
		unsigned int ms;

		pci_info(sh->pdev, "fdid %x: test hook: the return holds\n",
			 sh->fdid);
		for (ms = 0; ms < SMARTIO_TEST_RETURN_HOLD_MS &&
		     READ_ONCE(test_return_hold); ms += 100)
			msleep(100);
	}
#endif
}

/*
 * Returns @sh to its lender: announced, its driver lets go of it (shutting
 * it down, as the lender waits), then RETURN. Called with
 * smartio_borrower_lock held.
 */
static void smartio_borrower_return(struct smartio_shadow *sh,
				    const char *why)
{
	pci_info(sh->pdev, "returning fdid %x to node %u%s\n", sh->fdid,
		 sh->lender, why);
	smartio_borrower_announce_return(sh);
	smartio_borrower_remove(sh, true);
}

int smartio_borrower_give_back(u32 fdid, struct netlink_ext_ack *extack)
{
	struct smartio_shadow *sh;
	int ret = 0;

	mutex_lock(&smartio_borrower_lock);
	sh = smartio_shadow_find(fdid);
	if (!sh) {
		NL_SET_ERR_MSG(extack, "this node has not borrowed the device");
		ret = -ENOENT;
	} else if (sh->user) {
		NL_SET_ERR_MSG(extack, "a kernel user of this node holds the device (its user gives it back)");
		ret = -EBUSY;
	} else {
		smartio_borrower_return(sh, "");
	}
	mutex_unlock(&smartio_borrower_lock);
	return ret;
}

/* Whole pages, none wrapping (size 0: unused): what the lender takes. */
static bool smartio_borrow_user_ranges_ok(const struct smartio_dma_range *r)
{
	int i;

	for (i = 0; i < SMARTIO_BORROW_USER_RANGES; i++)
		if (r[i].size && !smartio_user_dma_range_ok(r[i].start,
							    r[i].size))
			return false;
	return true;
}

/**
 * smartio_borrow() - Borrow a device of the cluster for a kernel user.
 * @fdid: The device.
 * @args: Which driver may bind to its shadow device, what the user is
 *	told, and where it maps memory (struct smartio_borrow_args); NULL
 *	for any driver, nothing told and nothing mapped.
 * @extack: Why a borrow failed, in one message.
 *
 * Asks the device's lender for it and puts its shadow device on a bus of
 * its own here, as smartioctl borrow does; the driver, if any, binds
 * before this returns. smartioctl return cannot give it back: only
 * smartio_give_back() does, and a loss ends it (@ops->lost).
 *
 * Context: Process context; sleeps, for up to the fabric's message
 * timeouts.
 * Return: The handle, the caller's until smartio_give_back(), or an
 * ERR_PTR(): -ENOENT (no such device), -EACCES (not available for
 * lending), -EBUSY (borrowed already), -EHOSTUNREACH (its lender is not
 * reachable), -EINVAL (a user range not in whole pages), -EOPNOTSUPP
 * (user ranges, and the lender has no IOMMU), -ENOSPC (no room for the
 * device's windows clear of them), or another -errno the lender or this
 * node gave.
 */
struct smartio_borrowed *smartio_borrow(u32 fdid,
					const struct smartio_borrow_args *args,
					struct netlink_ext_ack *extack)
{
	static const struct smartio_borrow_args any = {};
	struct smartio_device_info *info;
	struct smartio_borrowed *b;
	int ret;

	if (!args)
		args = &any;
	if (!smartio_borrow_user_ranges_ok(args->user_ranges)) {
		NL_SET_ERR_MSG(extack, "a range of device addresses is not in whole pages");
		return ERR_PTR(-EINVAL);
	}
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!b || !info) {
		ret = -ENOMEM;
		goto err;
	}
	b->fdid = fdid;
	b->ops = args->ops;
	b->priv = args->priv;
	memcpy(b->user_ranges, args->user_ranges, sizeof(b->user_ranges));
	ret = smartio_borrower_create(fdid, args->driver, b, info, extack);
	if (ret)
		goto err;
	kfree(info);
	return b;

err:
	kfree(info);
	kfree(b);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(smartio_borrow);

/**
 * smartio_give_back() - Return a device a kernel user borrowed.
 * @b: Its handle, from smartio_borrow(); freed.
 *
 * What the user left mapped with smartio_borrowed_dma_map() is unmapped,
 * the function's DMA stopped first; the shadow's driver, if any, lets go
 * of it while the lender waits with the function running, and the lender
 * takes it back. A device lost meanwhile has nothing left to return: only
 * the handle goes.
 *
 * Context: Process context; sleeps.
 */
void smartio_give_back(struct smartio_borrowed *b)
{
	struct smartio_shadow *sh;

	mutex_lock(&smartio_borrower_lock);
	sh = b->sh;
	if (sh) {
		sh->user = NULL;
		WRITE_ONCE(b->sh, NULL);
		smartio_user_dma_drop(sh);
		smartio_borrower_return(sh, "");
	}
	mutex_unlock(&smartio_borrower_lock);
	pci_dev_put(b->pdev);
	kfree(b);
}
EXPORT_SYMBOL_GPL(smartio_give_back);

/**
 * smartio_borrowed_pci_dev() - The shadow device of a borrowed device.
 * @b: Its handle.
 *
 * Its config space, BARs and interrupt vectors are the device's, through
 * the ordinary PCI API. The pointer stays valid until smartio_give_back();
 * after a loss the function reads all-ones and is no longer on any bus.
 *
 * Return: The shadow device.
 */
struct pci_dev *smartio_borrowed_pci_dev(const struct smartio_borrowed *b)
{
	return b->pdev;
}
EXPORT_SYMBOL_GPL(smartio_borrowed_pci_dev);

/**
 * smartio_borrowed_fdid() - The fdid of a borrowed device.
 * @b: Its handle.
 *
 * Return: The fdid it was borrowed by.
 */
u32 smartio_borrowed_fdid(const struct smartio_borrowed *b)
{
	return b->fdid;
}
EXPORT_SYMBOL_GPL(smartio_borrowed_fdid);

/**
 * smartio_borrowed_lost() - Is a borrowed device lost?
 * @b: Its handle.
 *
 * A hint for a user between calls; its lost callback is what orders the
 * loss with its own use of the device.
 *
 * Return: Whether the device was lost (its lender left or took it back).
 */
bool smartio_borrowed_lost(const struct smartio_borrowed *b)
{
	return !READ_ONCE(b->sh);
}
EXPORT_SYMBOL_GPL(smartio_borrowed_lost);

/**
 * smartio_borrowed_reset() - Reset a borrowed function on its lender.
 * @b: Its handle.
 *
 * A function reset of the shadow device, which its lender carries out
 * (the shadow offers FLR where the lender can reset the function) and
 * whose state it restores, as pci_reset_function() does for a local one.
 *
 * Context: Process context; sleeps, up to the lender's reset timeout.
 * Takes the shadow's device lock: not for the shadow's own driver.
 * Return: 0, -ENODEV if the device is lost, -ENOTTY if its lender cannot
 * reset it, or another -errno of the reset.
 */
int smartio_borrowed_reset(struct smartio_borrowed *b)
{
	if (smartio_borrowed_lost(b))
		return -ENODEV;
	return pci_reset_function(b->pdev);
}
EXPORT_SYMBOL_GPL(smartio_borrowed_reset);

/**
 * smartio_borrowed_dma_map() - Let a borrowed device reach memory at an
 *	address of the caller's choosing.
 * @b: Its handle.
 * @dev_addr: The device address of the first page (a guest-physical one,
 *	for mdev), page aligned.
 * @pages: The memory, pinned by the caller until it is unmapped.
 * @npages: How many pages; they appear in order from @dev_addr.
 * @prot: IOMMU_READ and/or IOMMU_WRITE: the device reads, writes them.
 *
 * The pages go into this node's IOVA window, and the function's IOMMU
 * domain on its lender maps [@dev_addr, @dev_addr + @npages pages) onto
 * them there: one message, nothing per I/O. This node's IOMMU must
 * translate its NTB's inbound DMA (an IOVA window), and the lender must
 * have an IOMMU. The range must stay clear of the device's own windows,
 * which the lender lays out of the user's ranges named at the borrow
 * (smartio_borrow_args.user_ranges), of what else the lender's domain
 * holds, and of the ranges mapped before.
 *
 * Context: Process context; sleeps, up to a message's timeout.
 * Return: 0; -ENODEV if the device is lost, -EINVAL for a range not in
 * whole pages or a wrong @prot, -EEXIST where the range meets one mapped
 * before or what the lender's domain holds, -EOPNOTSUPP where either
 * node lacks its IOMMU, -ENOMEM or -ENOSPC when a window or the lender
 * has no room, or another -errno of the fabric. A refusal logs one line
 * that says why.
 */
int smartio_borrowed_dma_map(struct smartio_borrowed *b, u64 dev_addr,
			     struct page **pages, unsigned int npages,
			     int prot)
{
	int ret = -ENODEV;

	mutex_lock(&smartio_borrower_lock);
	if (b->sh)
		ret = smartio_user_dma_borrower_map(b->sh, dev_addr, pages,
						    npages, prot);
	mutex_unlock(&smartio_borrower_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(smartio_borrowed_dma_map);

/**
 * smartio_borrowed_dma_unmap() - Undo smartio_borrowed_dma_map().
 * @b: Its handle.
 * @dev_addr: As mapped.
 * @size: The bytes mapped: all of one range.
 *
 * Once this returns, the device reaches the range's pages no more, and
 * the caller may unpin them. A device that was lost, or given back, has
 * nothing mapped any more.
 *
 * Context: Process context; sleeps, up to a message's timeout.
 * Return: 0, or -ENOENT if no such range is mapped (and the device was
 * not lost).
 */
int smartio_borrowed_dma_unmap(struct smartio_borrowed *b, u64 dev_addr,
			       u64 size)
{
	int ret = 0;

	mutex_lock(&smartio_borrower_lock);
	if (b->sh)
		ret = smartio_user_dma_borrower_unmap(b->sh, dev_addr, size);
	mutex_unlock(&smartio_borrower_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(smartio_borrowed_dma_unmap);

/**
 * smartio_borrowed_peer_map() - Let a borrowed device reach a BAR of
 *	another one, at device addresses of the caller's choosing.
 * @b: The device that reaches, borrowed with user ranges
 *	(smartio_borrow_args.user_ranges).
 * @dev_addr: Where it reaches the BAR's first byte (a guest-physical BAR
 *	of @peer, for mdev), page aligned.
 * @peer: The device reached: another one borrowed here from the same
 *	lender, under the same host bridge there (peer-to-peer stays on the
 *	lender, never crosses the fabric).
 * @bar: The memory BAR of @peer's.
 *
 * The function's IOMMU domain on the lender maps [@dev_addr, @dev_addr +
 * the BAR's size rounded up to a page) onto the BAR: one message, nothing
 * per I/O. The map goes when either device goes, or with
 * smartio_borrowed_peer_unmap(). The range is judged as
 * smartio_borrowed_dma_map()'s, but that it may meet BARs of the lender's
 * elsewhere than above the function.
 *
 * Context: Process context; sleeps, up to a message's timeout.
 * Return: 0; -ENODEV if either device is lost, -EINVAL for a BAR that is
 * no memory BAR or an address not page aligned, -EXDEV where the two are
 * no peers on their lender, -EEXIST where the range meets what the
 * lender's domain holds, -EOPNOTSUPP where @b was borrowed without user
 * ranges or its lender has no IOMMU, or another -errno of the fabric. A
 * refusal logs one line that says why.
 */
int smartio_borrowed_peer_map(struct smartio_borrowed *b, u64 dev_addr,
			      struct smartio_borrowed *peer, int bar)
{
	int ret = -ENODEV;

	mutex_lock(&smartio_borrower_lock);
	if (b->sh && peer->sh)
		ret = smartio_user_dma_borrower_peer_map(b->sh, dev_addr,
							 peer->sh, bar);
	mutex_unlock(&smartio_borrower_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(smartio_borrowed_peer_map);

/**
 * smartio_borrowed_peer_unmap() - Undo smartio_borrowed_peer_map().
 * @b: As mapped.
 * @dev_addr: As mapped.
 * @peer: As mapped.
 * @bar: As mapped.
 *
 * Once this returns, @b reaches the BAR there no more. Where either
 * device was lost or given back, nothing is mapped any more.
 *
 * Context: Process context; sleeps, up to a message's timeout.
 * Return: 0 (a lost device too), or the lender's -errno: -ENOENT where
 * nothing is mapped there.
 */
int smartio_borrowed_peer_unmap(struct smartio_borrowed *b, u64 dev_addr,
				struct smartio_borrowed *peer, int bar)
{
	int ret = 0;

	mutex_lock(&smartio_borrower_lock);
	if (b->sh && peer->sh)
		ret = smartio_user_dma_borrower_peer_unmap(b->sh, dev_addr,
							   peer->sh, bar);
	mutex_unlock(&smartio_borrower_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(smartio_borrowed_peer_unmap);

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

/*
 * Removes @sh as a surprise removal (@why: its lender took it back, or
 * left), and tells the lender it is gone if it is still there to hear it.
 * Called with smartio_borrower_lock held.
 */
static void smartio_borrower_lose(struct smartio_shadow *sh, const char *why,
				  bool tell_lender)
{
	pci_err(sh->pdev, "fdid %x lost: %s\n", sh->fdid, why);
	WRITE_ONCE(sh->lost, true);
	sh->pdev->error_state = pci_channel_io_perm_failure;
	smartio_borrower_remove(sh, tell_lender);
}

/**
 * smartio_borrower_node_left() - Lose what a node that left lent us.
 * @node_id: The node.
 * @session: The session it left: what it lent us in a later one, after a
 *	quick rejoin, stays.
 *
 * Its windows lead nowhere already; the shadow devices are removed as
 * surprise removals: config space reads all-ones, DMA maps fail, and the
 * drivers fail their outstanding I/O.
 */
void smartio_borrower_node_left(u16 node_id, u32 session)
{
	struct smartio_shadow *sh, *next;
	char why[32];

	snprintf(why, sizeof(why), "its lender, node %u, left", node_id);
	mutex_lock(&smartio_borrower_lock);
	list_for_each_entry_safe(sh, next, &smartio_shadows, list)
		if (sh->lender == node_id && sh->session <= session)
			smartio_borrower_lose(sh, why, false);
	mutex_unlock(&smartio_borrower_lock);
}

/**
 * smartio_borrower_node_leaving() - Return what a node we leave lent us.
 * @node_id: The node, still joined: this node leaves it (the adapter that
 *	reaches it is being removed).
 * @session: The session it is joined in.
 *
 * As an unbind of a bridge removes the devices below it with their
 * drivers' remove: each shadow is returned as smartioctl return does,
 * its driver shutting the function down while the function is reached,
 * not lost when the link goes down with the driver still at work.
 */
void smartio_borrower_node_leaving(u16 node_id, u32 session)
{
	struct smartio_shadow *sh, *next;

	mutex_lock(&smartio_borrower_lock);
	list_for_each_entry_safe(sh, next, &smartio_shadows, list)
		if (sh->lender == node_id && sh->session <= session)
			smartio_borrower_return(sh, ": this node leaves it");
	mutex_unlock(&smartio_borrower_lock);
}

/**
 * struct smartio_reclaimed - A device its lender took back, to be removed.
 * @work: Queued on smartio_lend_wq.
 * @lender: The lender.
 * @session: The session the lender said so in: a shadow of a later one
 *	(the lender left, joined again and lent the device anew before the
 *	work ran) stays.
 * @fdid: The device.
 */
struct smartio_reclaimed {
	struct work_struct work;
	u16 lender;
	u32 session;
	u32 fdid;
};

static void smartio_borrower_reclaimed_work(struct work_struct *work)
{
	struct smartio_reclaimed *r = container_of(work,
						   struct smartio_reclaimed,
						   work);
	struct smartio_shadow *sh;

	mutex_lock(&smartio_borrower_lock);
	sh = smartio_shadow_find(r->fdid);
	if (sh && sh->lender == r->lender && sh->session <= r->session)
		smartio_borrower_lose(sh, "its lender reclaimed it", true);
	mutex_unlock(&smartio_borrower_lock);
	kfree(r);
}

/*
 * Messaging handler (event): a lender took a device back. Removing the
 * shadow unbinds its driver, which may wait for anything: not here.
 */
static int smartio_borrower_reclaimed_handler(u16 node_id,
					      const struct smartio_msg *req,
					      void *resp, u32 *resp_len)
{
	const struct smartio_return_req *ev = req->payload;
	struct smartio_reclaimed *r;
	u32 session;

	if (req->len != sizeof(*ev))
		return -EINVAL;
	/* Served in the session it was sent in, unless the lender left. */
	session = smartio_node_session(node_id);
	if (!session)
		return 0;	/* its leaving removes the shadow */
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	INIT_WORK(&r->work, smartio_borrower_reclaimed_work);
	r->lender = node_id;
	r->session = session;
	r->fdid = le32_to_cpu(ev->fdid);
	queue_work(smartio_lend_wq, &r->work);
	return 0;
}

int smartio_borrower_init(void)
{
	return smartio_msg_handler_register(SMARTIO_MSG_OP_RECLAIMED,
					    smartio_borrower_reclaimed_handler);
}

/**
 * smartio_borrower_exit() - Return everything borrowed.
 *
 * Works already queued find nothing left to remove.
 */
void smartio_borrower_exit(void)
{
	struct smartio_shadow *sh, *next;

	smartio_msg_handler_unregister(SMARTIO_MSG_OP_RECLAIMED);
	mutex_lock(&smartio_borrower_lock);
	list_for_each_entry_safe(sh, next, &smartio_shadows, list) {
		smartio_borrower_announce_return(sh);
		smartio_borrower_remove(sh, true);
	}
	mutex_unlock(&smartio_borrower_lock);
}
