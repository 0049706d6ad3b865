// SPDX-License-Identifier: GPL-2.0
/*
 * smartio core module.
 *
 * Home of the cluster-wide device registry, fabric device ids and the
 * generic netlink family; the NTB layer, lender, borrower and mdev modules
 * all stand on it. It also carries the kernel-agnostic logic in lib/ and
 * exports it, so that logic exists once in the kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "core_priv.h"
#include "smartio/version.h"

static int __init smartio_init(void)
{
	int ret;

	ret = smartio_nl_init();
	if (ret) {
		pr_err("cannot register the generic netlink family: %d\n", ret);
		return ret;
	}

	pr_info("core %s loaded\n", SMARTIO_VERSION);
	return 0;
}

static void __exit smartio_exit(void)
{
	smartio_nl_exit();
	smartio_device_cache_drop();
	pr_info("core unloaded\n");
}

module_init(smartio_init);
module_exit(smartio_exit);

MODULE_DESCRIPTION("smartio core: PCIe device lending over non-transparent bridges");
MODULE_LICENSE("GPL");
MODULE_VERSION(SMARTIO_VERSION);
