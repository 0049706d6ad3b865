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
struct page;
struct pci_dev;
struct smartio_borrowed;

/**
 * struct smartio_borrow_ops - What a kernel user of a borrowed device is told.
 * @lost: The device is gone from under its user: its lender left or took
 *	it back, or this node leaves its lender. Called once, in process
 *	context, before its shadow device is removed, with smartio_lend's
 *	borrower lock held: it must end the user's use of the device (zap
 *	its mappings, free its interrupt vectors) and may call none of the
 *	functions below. What the user mapped with
 *	smartio_borrowed_dma_map() is unmapped already: its pages may go.
 *	Once it returns the shadow is removed; a lost one reads all-ones and
 *	maps nothing, as a function that fell off its bus. The user still
 *	gives the handle back.
 */
struct smartio_borrow_ops {
	void (*lost)(struct smartio_borrowed *b, void *priv);
};

/*
 * smartio_borrow_args.driver for a shadow that no driver binds to: its
 * user drives it through the PCI API itself.
 */
#define SMARTIO_BORROW_NO_DRIVER	""

/* How many ranges smartio_borrow_args.user_ranges holds. */
#define SMARTIO_BORROW_USER_RANGES	4

/**
 * struct smartio_dma_range - Device addresses [@start, @start + @size).
 * @start: First address, page aligned.
 * @size: Bytes, page aligned; 0 for an unused entry.
 */
struct smartio_dma_range {
	u64 start;
	u64 size;
};

/**
 * struct smartio_borrow_args - How a kernel user borrows a device.
 * @driver: The only driver that may bind to the shadow (its
 *	driver_override), SMARTIO_BORROW_NO_DRIVER for none, NULL for
 *	whichever matches (as smartioctl borrow).
 * @ops: What the user is told; may be NULL.
 * @priv: Passed to @ops.
 * @user_ranges: Device addresses the user will map memory at with
 *	smartio_borrowed_dma_map() (a guest's RAM, for mdev): the lender
 *	lays the device's own windows onto this node (DMA and interrupts)
 *	out of them, or refuses the borrow (-ENOSPC) where they leave no
 *	room. All zero where the user maps nothing.
 */
struct smartio_borrow_args {
	const char *driver;
	const struct smartio_borrow_ops *ops;
	void *priv;
	struct smartio_dma_range user_ranges[SMARTIO_BORROW_USER_RANGES];
};

/*
 * Events of smartio_borrowable_notifier_register(); the notifier's data
 * points to the device's u32 fdid.
 */
#define SMARTIO_BORROWABLE_AVAILABLE	1	/* its lender made it available */

struct notifier_block;

unsigned int smartio_borrowable_count(void);
int smartio_borrowable_notifier_register(struct notifier_block *nb);
void smartio_borrowable_notifier_unregister(struct notifier_block *nb);
struct smartio_borrowed *smartio_borrow(u32 fdid,
					const struct smartio_borrow_args *args,
					struct netlink_ext_ack *extack);
void smartio_give_back(struct smartio_borrowed *b);
struct pci_dev *smartio_borrowed_pci_dev(const struct smartio_borrowed *b);
u32 smartio_borrowed_fdid(const struct smartio_borrowed *b);
bool smartio_borrowed_lost(const struct smartio_borrowed *b);
int smartio_borrowed_reset(struct smartio_borrowed *b);
int smartio_borrowed_dma_map(struct smartio_borrowed *b, u64 dev_addr,
			     struct page **pages, unsigned int npages,
			     int prot);
int smartio_borrowed_dma_unmap(struct smartio_borrowed *b, u64 dev_addr,
			       u64 size);
int smartio_borrowed_peer_map(struct smartio_borrowed *b, u64 dev_addr,
			      struct smartio_borrowed *peer, int bar);
int smartio_borrowed_peer_unmap(struct smartio_borrowed *b, u64 dev_addr,
				struct smartio_borrowed *peer, int bar);

#endif /* _SMARTIO_BORROW_H */
