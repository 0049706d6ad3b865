/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the core module (kmod/) asks of the lending module (lend/): the
 * netlink family's device commands are the core's, the devices and what
 * is done with them are the lending module's. It registers one struct
 * smartio_lend_ops; until it does, every device command fails with
 * -EOPNOTSUPP. Kernel only.
 */
#ifndef _SMARTIO_LEND_H
#define _SMARTIO_LEND_H

#include <linux/types.h>
#include <linux/smartio.h>

struct netlink_ext_ack;

/* Room for a PCI name, "0000:00:00.0" and longer domains. */
#define SMARTIO_PCI_NAME_MAX	32

/**
 * struct smartio_device_info - A lendable function as userspace sees it.
 * @fdid: Fabric device id.
 * @node_id: The lender.
 * @pci_name: Its PCI name on the lender.
 * @vendor: PCI vendor id.
 * @device: PCI device id.
 * @class: PCI class code.
 * @state: enum smartio_device_state.
 * @borrower: The borrower's node id while borrowed, else 0.
 * @local_name: The shadow device's PCI name while this node borrows it,
 *	else empty.
 */
struct smartio_device_info {
	u32 fdid;
	u16 node_id;
	char pci_name[SMARTIO_PCI_NAME_MAX];
	u16 vendor;
	u16 device;
	u32 class;
	u32 state;
	u16 borrower;
	char local_name[SMARTIO_PCI_NAME_MAX];
};

/**
 * struct smartio_lend_ops - The lending module's side of the device commands.
 * @add: Register local function @pci_name for lending; fill in @info.
 * @remove: Unregister local device @fdid.
 * @available: Claim local device @fdid for lending.
 * @unavailable: Give local device @fdid back to its host driver.
 * @get: Fill in device @fdid, local or on another node.
 * @next: Fill in the device with the lowest fdid >= *@cursor in the
 *	cluster (this node and every joined node) and set *@cursor past it;
 *	-ENOENT past the last.
 * @borrow: Borrow device @fdid; fill in @info.
 * @give_back: Return device @fdid, borrowed by this node.
 * @reclaim: Take local device @fdid back from its borrower.
 *
 * All are called in process context, may sleep for a round trip to
 * another node, and return 0 or -errno with a message in @extack.
 */
struct smartio_lend_ops {
	int (*add)(const char *pci_name, struct smartio_device_info *info,
		   struct netlink_ext_ack *extack);
	int (*remove)(u32 fdid, struct netlink_ext_ack *extack);
	int (*available)(u32 fdid, bool force, struct netlink_ext_ack *extack);
	int (*unavailable)(u32 fdid, struct netlink_ext_ack *extack);
	int (*get)(u32 fdid, struct smartio_device_info *info,
		   struct netlink_ext_ack *extack);
	int (*next)(u32 *cursor, struct smartio_device_info *info);
	int (*borrow)(u32 fdid, struct smartio_device_info *info,
		      struct netlink_ext_ack *extack);
	int (*give_back)(u32 fdid, struct netlink_ext_ack *extack);
	int (*reclaim)(u32 fdid, struct netlink_ext_ack *extack);
};

int smartio_lend_register(const struct smartio_lend_ops *ops);
void smartio_lend_unregister(void);

#endif /* _SMARTIO_LEND_H */
