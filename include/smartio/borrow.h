/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Borrowing a device of the cluster from inside the kernel: smartio_lend's
 * API for kernel users (the mdev driver; smartio's own netlink family,
 * for smartioctl borrow, takes the same path). A user borrows by fdid and
 * gets an opaque handle; the device is an ordinary PCI function on the
 * borrower, the shadow, reached with the PCI API: its config space, its
 * BARs, its MSI and MSI-X vectors. See lend/README.md, "Borrowing from
 * the kernel".
 */
#ifndef _SMARTIO_BORROW_H
#define _SMARTIO_BORROW_H

#include <linux/types.h>

struct netlink_ext_ack;
struct pci_dev;
struct smartio_borrowed;

/**
 * struct smartio_borrow_ops - What a kernel user of a borrowed device is told.
 * @lost: The device is gone from under its user: its lender left or took
 *	it back, or this node leaves its lender. Called once, in process
 *	context, before its shadow device is removed, with smartio_lend's
 *	borrower lock held: it must end the user's use of the device (zap
 *	its mappings, free its interrupt vectors) and may not call
 *	smartio_borrow(), smartio_give_back() or smartio_borrowed_reset().
 *	Once it returns the shadow is removed; a lost one reads all-ones and
 *	maps nothing, as a function that fell off its bus. The user still
 *	gives the handle back.
 */
struct smartio_borrow_ops {
	void (*lost)(struct smartio_borrowed *b, void *priv);
};

/*
 * smartio_borrow()'s @driver for a shadow that no driver binds to: its
 * user drives it through the PCI API itself.
 */
#define SMARTIO_BORROW_NO_DRIVER	""

struct smartio_borrowed *smartio_borrow(u32 fdid, const char *driver,
					const struct smartio_borrow_ops *ops,
					void *priv,
					struct netlink_ext_ack *extack);
void smartio_give_back(struct smartio_borrowed *b);
struct pci_dev *smartio_borrowed_pci_dev(const struct smartio_borrowed *b);
u32 smartio_borrowed_fdid(const struct smartio_borrowed *b);
bool smartio_borrowed_lost(const struct smartio_borrowed *b);
int smartio_borrowed_reset(struct smartio_borrowed *b);

#endif /* _SMARTIO_BORROW_H */
