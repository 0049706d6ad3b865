// SPDX-License-Identifier: GPL-2.0
/*
 * smartio_lend: lends this node's PCIe functions to other nodes and
 * borrows theirs. The core module's netlink family drives it through
 * struct smartio_lend_ops.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "smartio/ntb.h"
#include "smartio/version.h"
#include "lend_priv.h"

/**
 * struct smartio_node_left - A node's leaving, to be handled.
 * @work: Queued on smartio_lend_wq.
 * @node_id: The node.
 * @session: The session it left: what it set up with us in a later one
 *	(it may have joined again before this runs) stays.
 */
struct smartio_node_left {
	struct work_struct work;
	u16 node_id;
	u32 session;
};

/* Ordered: losses are handled one at a time, in the order they happened. */
struct workqueue_struct *smartio_lend_wq;

/* A node left: what it lent us is lost, what it borrowed comes back. */
static void smartio_lend_node_left_work(struct work_struct *work)
{
	struct smartio_node_left *left = container_of(work,
						      struct smartio_node_left,
						      work);

	smartio_borrower_node_left(left->node_id, left->session);
	smartio_lender_node_left(left->node_id, left->session);
	kfree(left);
}

/*
 * A node left: told under an adapter's lock, which the work must not wait
 * for. An adapter goes: what its nodes' leaving queued is done before its
 * NTB and windows go (shadows removed, lent functions taken back). This
 * node leaves a node on purpose: what it lent us is returned, and what it
 * borrowed is reclaimed, first, while it answers (told with no lock held).
 */
static int smartio_lend_node_event(struct notifier_block *nb,
				   unsigned long event, void *data)
{
	const struct smartio_node_event *ev = data;
	struct smartio_node_left *left;

	if (event == SMARTIO_ADAPTER_GONE) {
		flush_workqueue(smartio_lend_wq);
		return NOTIFY_OK;
	}
	if (event == SMARTIO_NODE_LEAVING) {
		smartio_borrower_node_leaving(ev->node_id, ev->session);
		smartio_lender_node_leaving(ev->node_id, ev->session);
		return NOTIFY_OK;
	}
	if (event != SMARTIO_NODE_LEFT)
		return NOTIFY_DONE;
	left = kzalloc(sizeof(*left), GFP_KERNEL);
	if (!left) {
		pr_err("node %u left, but there is no memory to handle it\n",
		       ev->node_id);
		return NOTIFY_DONE;
	}
	left->node_id = ev->node_id;
	left->session = ev->session;
	INIT_WORK(&left->work, smartio_lend_node_left_work);
	queue_work(smartio_lend_wq, &left->work);
	return NOTIFY_OK;
}

static struct notifier_block smartio_lend_node_nb = {
	.notifier_call = smartio_lend_node_event,
};

static const struct smartio_lend_ops smartio_lend_ops = {
	.add		= smartio_lender_add,
	.remove		= smartio_lender_remove,
	.available	= smartio_lender_available,
	.unavailable	= smartio_lender_unavailable,
	.get		= smartio_devices_get,
	.next		= smartio_devices_next,
	.borrow		= smartio_borrower_borrow,
	.give_back	= smartio_borrower_give_back,
	.reclaim	= smartio_lender_reclaim,
};

static int __init smartio_lend_init(void)
{
	int ret;

	smartio_lend_wq = alloc_ordered_workqueue("smartio_lend", 0);
	if (!smartio_lend_wq)
		return -ENOMEM;
	ret = smartio_shadow_init();
	if (ret)
		goto err_wq;
	ret = smartio_lender_init();
	if (ret)
		goto err_shadow;
	ret = smartio_devices_init();
	if (ret)
		goto err_lender;
	ret = smartio_borrower_init();
	if (ret)
		goto err_devices;
	smartio_node_notifier_register(&smartio_lend_node_nb);
	ret = smartio_lend_register(&smartio_lend_ops);
	if (ret)
		goto err_notifier;
	return 0;

err_notifier:
	smartio_node_notifier_unregister(&smartio_lend_node_nb);
	smartio_borrower_exit();
err_devices:
	smartio_devices_exit();
err_lender:
	smartio_lender_exit();
err_shadow:
	smartio_shadow_exit();
err_wq:
	destroy_workqueue(smartio_lend_wq);
	return ret;
}

static void __exit smartio_lend_exit(void)
{
	smartio_lend_unregister();
	smartio_node_notifier_unregister(&smartio_lend_node_nb);
	smartio_borrower_exit();
	destroy_workqueue(smartio_lend_wq);
	smartio_devices_exit();
	smartio_lender_exit();
	smartio_shadow_exit();
}

module_init(smartio_lend_init);
module_exit(smartio_lend_exit);

MODULE_DESCRIPTION("smartio device lending: lender and borrower");
MODULE_LICENSE("GPL");
MODULE_VERSION(SMARTIO_VERSION);
