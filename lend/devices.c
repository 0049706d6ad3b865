// SPDX-License-Identifier: GPL-2.0
/*
 * The devices of the cluster: this node's (lender.c) and those of every
 * node joined to it, asked for over messaging one at a time
 * (SMARTIO_MSG_OP_DEVICE_NEXT), in order of fdid. Nothing is cached: a
 * listing shows each lender's state as it is.
 *
 * A lender also announces each device of its that becomes available (made
 * so, or back from a borrower) to every node joined to it
 * (SMARTIO_MSG_OP_AVAILABLE), and each node tells its kernel users
 * (smartio_borrowable_notifier_register()): one that waits for a device
 * to borrow (mdev/: mdevctl creates no mdev while none is available)
 * need not poll the cluster. An announcement is a hint, not state: it
 * says to list again, and a lost one costs a wait, never a wrong answer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "smartio/fdid.h"
#include "smartio/ntb.h"
#include "lend_priv.h"

/**
 * smartio_device_to_wire() - A device as the messages carry it.
 * @info: The device.
 * @w: Filled in; local_name is not sent.
 */
void smartio_device_to_wire(const struct smartio_device_info *info,
			    struct smartio_device_wire *w)
{
	memset(w, 0, sizeof(*w));
	w->fdid = cpu_to_le32(info->fdid);
	w->class = cpu_to_le32(info->class);
	w->state = cpu_to_le32(info->state);
	w->node_id = cpu_to_le16(info->node_id);
	w->vendor = cpu_to_le16(info->vendor);
	w->device = cpu_to_le16(info->device);
	w->borrower = cpu_to_le16(info->borrower);
	strscpy(w->pci_name, info->pci_name, sizeof(w->pci_name));
}

/**
 * smartio_device_from_wire() - A device a message carried.
 * @w: The device on the wire.
 * @info: Filled in, but for local_name.
 */
void smartio_device_from_wire(const struct smartio_device_wire *w,
			      struct smartio_device_info *info)
{
	info->fdid = le32_to_cpu(w->fdid);
	info->class = le32_to_cpu(w->class);
	info->state = le32_to_cpu(w->state);
	info->node_id = le16_to_cpu(w->node_id);
	info->vendor = le16_to_cpu(w->vendor);
	info->device = le16_to_cpu(w->device);
	info->borrower = le16_to_cpu(w->borrower);
	/* strscpy() stops at the end of the buffer if the peer's has no NUL. */
	strscpy(info->pci_name, w->pci_name, sizeof(info->pci_name));
}

/* Messaging handler: a node lists our devices. */
static int smartio_device_next_handler(u16 node_id,
				       const struct smartio_msg *req,
				       void *resp, u32 *resp_len)
{
	const struct smartio_device_next_req *r = req->payload;
	struct smartio_device_info info = {};
	int ret;

	/* A request: an event has no response to fill. */
	if (!resp || req->len != sizeof(*r))
		return -EINVAL;
	ret = smartio_lender_next(le16_to_cpu(r->index), &info);
	if (ret)
		return ret;
	smartio_device_to_wire(&info, resp);
	*resp_len = sizeof(struct smartio_device_wire);
	return 0;
}

/* The device of node @node_id with the lowest index >= @index. */
static int smartio_node_device_next(u16 node_id, u16 index,
				    struct smartio_device_info *info)
{
	struct smartio_device_next_req req = { .index = cpu_to_le16(index) };
	struct smartio_device_wire w;
	int ret;

	if (node_id == smartio_local_node_id())
		return smartio_lender_next(index, info);

	ret = smartio_lend_call(node_id, SMARTIO_MSG_OP_DEVICE_NEXT, &req,
				sizeof(req), &w, sizeof(w), SMARTIO_LEND_TIMEOUT);
	if (ret)
		return ret;
	smartio_device_from_wire(&w, info);
	/*
	 * Through a loopback cable, another adapter of this very node
	 * answers, with this node's devices: they are listed once, above.
	 */
	if (info->node_id != node_id ||
	    smartio_fdid_node(info->fdid) != node_id ||
	    smartio_fdid_index(info->fdid) < index)
		return -ENOENT;
	return 0;
}

/* The lowest node id >= @node that is this node's or a joined one. */
static u16 smartio_devices_node_from(u32 node)
{
	u16 local = smartio_local_node_id();
	u16 remote = smartio_node_next(node - 1);

	if (!node)
		remote = smartio_node_next(0);
	if (local < node)
		local = 0;
	if (!local || (remote && remote < local))
		return remote;
	return local;
}

/**
 * smartio_devices_next() - Walk the devices of the cluster in fdid order.
 * @cursor: The lowest fdid to return; set past the one returned.
 * @info: Filled in.
 *
 * A node that does not answer (it left, or lends nothing) is skipped.
 *
 * Return: 0, or -ENOENT past the last device.
 */
int smartio_devices_next(u32 *cursor, struct smartio_device_info *info)
{
	u32 node = smartio_fdid_node(*cursor);
	u16 index = smartio_fdid_index(*cursor);
	u16 n;
	int ret;

	while (node <= U16_MAX) {
		n = smartio_devices_node_from(node);
		if (!n)
			break;
		if (n != node)
			index = 0;
		ret = smartio_node_device_next(n, index, info);
		if (!ret) {
			smartio_borrower_local_name(info->fdid, info);
			*cursor = info->fdid == U32_MAX ? U32_MAX : info->fdid + 1;
			return 0;
		}
		if (ret != -ENOENT)
			pr_debug("node %u does not list its devices: %d\n", n,
				 ret);
		node = n + 1;
		index = 0;
	}
	return -ENOENT;
}

/**
 * smartio_devices_get() - One device of the cluster.
 * @fdid: The device.
 * @info: Filled in.
 * @extack: Why not.
 *
 * Return: 0, -ENOENT (no such device), -EHOSTUNREACH (its lender is not
 * joined), or the error of asking the lender.
 */
int smartio_devices_get(u32 fdid, struct smartio_device_info *info,
			struct netlink_ext_ack *extack)
{
	int ret;

	ret = smartio_node_device_next(smartio_fdid_node(fdid),
				       smartio_fdid_index(fdid), info);
	if (!ret && info->fdid != fdid)
		ret = -ENOENT;
	if (!ret)
		smartio_borrower_local_name(fdid, info);
	if (ret == -ENOENT)
		NL_SET_ERR_MSG(extack, "no such device");
	else if (ret == -EHOSTUNREACH || ret == -ENOTCONN)
		NL_SET_ERR_MSG(extack, "the device's lender is not reachable");
	else if (ret)
		NL_SET_ERR_MSG(extack, "the device's lender did not answer");
	return ret;
}

/**
 * smartio_borrowable_count() - How many devices of the cluster a node may
 *	borrow now.
 *
 * Asks each joined node for its devices, as a listing does.
 *
 * Context: Process context; sleeps, a message per device.
 * Return: The devices listed available.
 */
unsigned int smartio_borrowable_count(void)
{
	struct smartio_device_info *info;
	unsigned int n = 0;
	u32 cursor = 0;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return 0;
	while (cursor != U32_MAX && !smartio_devices_next(&cursor, info))
		if (info->state == SMARTIO_DEVICE_STATE_AVAILABLE)
			n++;
	kfree(info);
	return n;
}
EXPORT_SYMBOL_GPL(smartio_borrowable_count);

static BLOCKING_NOTIFIER_HEAD(smartio_borrowable_chain);

/**
 * smartio_borrowable_notifier_register() - Be told when a device of the
 *	cluster becomes available to borrow.
 * @nb: Called with SMARTIO_BORROWABLE_AVAILABLE and a pointer to the
 *	device's u32 fdid, in process context, once per announcement its
 *	lender sent (a device of another node) or made (one of this node's).
 *	Announcements come at the rate peers send them, which a hostile
 *	peer may choose: a notifier that does more than note it coalesces.
 *
 * Return: 0.
 */
int smartio_borrowable_notifier_register(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&smartio_borrowable_chain, nb);
}
EXPORT_SYMBOL_GPL(smartio_borrowable_notifier_register);

/**
 * smartio_borrowable_notifier_unregister() - Undo
 *	smartio_borrowable_notifier_register().
 * @nb: The notifier; not called once this returns.
 */
void smartio_borrowable_notifier_unregister(struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&smartio_borrowable_chain, nb);
}
EXPORT_SYMBOL_GPL(smartio_borrowable_notifier_unregister);

static void smartio_borrowable_notify(u32 fdid)
{
	blocking_notifier_call_chain(&smartio_borrowable_chain,
				     SMARTIO_BORROWABLE_AVAILABLE, &fdid);
}

/**
 * smartio_devices_announce() - Tell the cluster a device of this node's
 *	became available.
 * @fdid: The device.
 *
 * Every node joined now is told, and this node's own kernel users. A node
 * the post does not reach (it left, its ring is full) lists the device
 * when it next lists the cluster.
 *
 * Context: Process context; sleeps while this node's users are told.
 */
void smartio_devices_announce(u32 fdid)
{
	struct smartio_return_req ev = { .fdid = cpu_to_le32(fdid) };
	u16 node_id = 0;

	while ((node_id = smartio_node_next(node_id)))
		smartio_msg_post(node_id, SMARTIO_MSG_OP_AVAILABLE, &ev,
				 sizeof(ev));
	smartio_borrowable_notify(fdid);
}

/*
 * Messaging handler (event): a lender announces a device of its own. One
 * that names another node's device, or comes from a node not joined, is
 * refused and told to no one.
 */
static int smartio_device_available_handler(u16 node_id,
					    const struct smartio_msg *req,
					    void *resp, u32 *resp_len)
{
	const struct smartio_return_req *ev = req->payload;
	u32 fdid;

	if (req->len != sizeof(*ev))
		return -EINVAL;
	fdid = le32_to_cpu(ev->fdid);
	if (smartio_fdid_node(fdid) != node_id)
		return -EPERM;
	if (!smartio_node_session(node_id))
		return -ENOTCONN;
	smartio_borrowable_notify(fdid);
	return 0;
}

int smartio_devices_init(void)
{
	int ret;

	ret = smartio_msg_handler_register(SMARTIO_MSG_OP_DEVICE_NEXT,
					   smartio_device_next_handler);
	if (ret)
		return ret;
	ret = smartio_msg_handler_register(SMARTIO_MSG_OP_AVAILABLE,
					   smartio_device_available_handler);
	if (ret)
		smartio_msg_handler_unregister(SMARTIO_MSG_OP_DEVICE_NEXT);
	return ret;
}

void smartio_devices_exit(void)
{
	smartio_msg_handler_unregister(SMARTIO_MSG_OP_AVAILABLE);
	smartio_msg_handler_unregister(SMARTIO_MSG_OP_DEVICE_NEXT);
}
