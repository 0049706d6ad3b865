// SPDX-License-Identifier: GPL-2.0
/*
 * smartio_lend: lends this node's PCIe functions to other nodes and
 * borrows theirs. The core module's netlink family drives it through
 * struct smartio_lend_ops.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netlink.h>

#include "smartio/version.h"
#include "lend_priv.h"

static int smartio_lend_borrow(u32 fdid, struct smartio_device_info *info,
			       struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack, "borrowing is not implemented yet");
	return -EOPNOTSUPP;
}

static int smartio_lend_give_back(u32 fdid, struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack, "borrowing is not implemented yet");
	return -EOPNOTSUPP;
}

static int smartio_lend_reclaim(u32 fdid, struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack, "borrowing is not implemented yet");
	return -EOPNOTSUPP;
}

static const struct smartio_lend_ops smartio_lend_ops = {
	.add		= smartio_lender_add,
	.remove		= smartio_lender_remove,
	.available	= smartio_lender_available,
	.unavailable	= smartio_lender_unavailable,
	.get		= smartio_devices_get,
	.next		= smartio_devices_next,
	.borrow		= smartio_lend_borrow,
	.give_back	= smartio_lend_give_back,
	.reclaim	= smartio_lend_reclaim,
};

static int __init smartio_lend_init(void)
{
	int ret;

	ret = smartio_lender_init();
	if (ret)
		return ret;
	ret = smartio_devices_init();
	if (ret)
		goto err_lender;
	ret = smartio_lend_register(&smartio_lend_ops);
	if (ret)
		goto err_devices;
	return 0;

err_devices:
	smartio_devices_exit();
err_lender:
	smartio_lender_exit();
	return ret;
}

static void __exit smartio_lend_exit(void)
{
	smartio_lend_unregister();
	smartio_devices_exit();
	smartio_lender_exit();
}

module_init(smartio_lend_init);
module_exit(smartio_lend_exit);

MODULE_DESCRIPTION("smartio device lending: lender and borrower");
MODULE_LICENSE("GPL");
MODULE_VERSION(SMARTIO_VERSION);
