/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of smartio_mdev share: one mediated device per device of
 * the cluster a VM may be given (main.c), its config space as the VM sees
 * it (config.c), its BARs (bar.c), its interrupts (intrs.c), its DMA
 * (dma.c), and its VM's other devices it reaches (p2p.c).
 */
#ifndef _SMARTIO_MDEV_PRIV_H
#define _SMARTIO_MDEV_PRIV_H

#include <linux/irqbypass.h>
#include <linux/mdev.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/vfio.h>

#include "smartio/borrow.h"

/* Region offsets as vfio-pci's: the region index in the top bits. */
#define SMARTIO_MDEV_OFFSET_SHIFT	40
#define SMARTIO_MDEV_OFFSET_INDEX(off)	((off) >> SMARTIO_MDEV_OFFSET_SHIFT)
#define SMARTIO_MDEV_INDEX_OFFSET(idx)	((u64)(idx) << SMARTIO_MDEV_OFFSET_SHIFT)
#define SMARTIO_MDEV_OFFSET_MASK	\
	(SMARTIO_MDEV_INDEX_OFFSET(1) - 1)

/**
 * struct smartio_mdev_vector - An interrupt vector the VM was given.
 * @trigger: Its eventfd, NULL for none.
 * @producer: The vector offered to KVM (irq bypass), whose posted
 *	interrupts may then deliver it to the guest without our handler;
 *	its token is @trigger while registered, NULL otherwise.
 */
struct smartio_mdev_vector {
	struct eventfd_ctx *trigger;
	struct irq_bypass_producer producer;
};

/**
 * struct smartio_mdev - A mediated device: a device of the cluster, by
 *	fdid, borrowed while its VFIO device is open.
 * @vdev: The VFIO device.
 * @mdev: Its mediated device.
 * @lock: Protects what follows.
 * @fdid: The device, written to the mdev's fdid attribute; 0 for none yet.
 * @borrowed: The device while open, NULL otherwise.
 * @pdev: Its shadow while open (smartio_borrowed_pci_dev()).
 * @bar_size: Each BAR's size as the VM sizes it, 0 for none (config.c).
 * @bar: Each BAR register as the VM wrote it (config.c).
 * @bar_map: Each memory BAR, mapped for the region's reads and writes
 *	(bar.c), NULL for none.
 * @map_lock: Protects @vmas, and @lost's setting (bar.c); taken under a
 *	mapping's mmap lock.
 * @vmas: The BAR mappings a fault put pages in (bar.c).
 * @lost: The device was lost while open: its mappings are zapped, its
 *	region fails with EIO.
 * @lost_page: What each page of a BAR mapping shows once @lost: all ones,
 *	as reads of a PCIe function that is gone complete; the VM's writes
 *	land there and go no further. NULL before a loss, and if it could
 *	not be allocated (a touch is SIGBUS then). Set under @map_lock,
 *	freed at the close.
 * @irq_lock: Protects the VM's vectors (intrs.c); not held across a
 *	borrow, so that a loss may take it.
 * @irq_index: VFIO_PCI_MSI_IRQ_INDEX or _MSIX_ while vectors are
 *	allocated, -1 otherwise.
 * @nr_irqs: How many.
 * @vectors: Each one's eventfd and irq bypass producer.
 * @req_trigger: The VM's eventfd of VFIO_PCI_REQ_IRQ_INDEX, NULL for none;
 *	signalled to ask the VM to release the device (intrs.c). Under
 *	@irq_lock.
 * @ram: The VM's RAM, as found in the container when the VM last turned
 *	Bus Master Enable on (dma.c).
 * @nr_ram: How many ranges.
 * @chunks: The guest RAM pinned and mapped for the device while Bus
 *	Master Enable is on (dma.c).
 * @mm: Its opener's address space while open, which names its VM (p2p.c).
 * @p2p_entry: In p2p.c's list of open mdevs while open.
 * @peer_maps: The BARs of its VM's other devices its device reaches while
 *	Bus Master Enable is on (p2p.c), under p2p.c's lock.
 */
struct smartio_mdev {
	struct vfio_device vdev;
	struct mdev_device *mdev;
	struct mutex lock;
	u32 fdid;
	struct smartio_borrowed *borrowed;
	struct pci_dev *pdev;
	u64 bar_size[PCI_STD_NUM_BARS];
	u32 bar[PCI_STD_NUM_BARS];
	void __iomem *bar_map[PCI_STD_NUM_BARS];
	struct mutex map_lock;
	struct list_head vmas;
	bool lost;
	struct page *lost_page;
	struct mutex irq_lock;
	int irq_index;
	int nr_irqs;
	struct smartio_mdev_vector *vectors;
	struct eventfd_ctx *req_trigger;
	struct smartio_dma_range ram[SMARTIO_BORROW_USER_RANGES];
	int nr_ram;
	struct list_head chunks;
	struct mm_struct *mm;
	struct list_head p2p_entry;
	struct list_head peer_maps;
};

/* bar.c */
int smartio_mdev_bars_open(struct smartio_mdev *sm);
void smartio_mdev_bars_close(struct smartio_mdev *sm);
int smartio_mdev_bar_info(struct smartio_mdev *sm,
			  struct vfio_region_info *info,
			  struct vfio_info_cap *caps);
ssize_t smartio_mdev_bar_rw(struct smartio_mdev *sm, int bar,
			    char __user *buf, size_t count, loff_t pos,
			    bool write);
int smartio_mdev_mmap(struct vfio_device *vdev, struct vm_area_struct *vma);
void smartio_mdev_bars_lost(struct smartio_mdev *sm);

/* intrs.c */
int smartio_mdev_irq_info_count(struct smartio_mdev *sm, unsigned int index);
int smartio_mdev_irq_info(struct smartio_mdev *sm, struct vfio_irq_info *info);
int smartio_mdev_set_irqs(struct smartio_mdev *sm, struct vfio_irq_set *hdr,
			  const void *data);
void smartio_mdev_irqs_close(struct smartio_mdev *sm);
bool smartio_mdev_req_signal(struct smartio_mdev *sm);
void smartio_mdev_req_close(struct smartio_mdev *sm);

/* dma.c */
int smartio_mdev_dma_init(void);
void smartio_mdev_dma_space(struct smartio_dma_range *range);
int smartio_mdev_dma_on(struct smartio_mdev *sm);
void smartio_mdev_dma_off(struct smartio_mdev *sm);
void smartio_mdev_dma_unmap(struct vfio_device *vdev, u64 iova, u64 length);

/* p2p.c */
void smartio_mdev_p2p_open(struct smartio_mdev *sm);
void smartio_mdev_p2p_close(struct smartio_mdev *sm);
void smartio_mdev_p2p_on(struct smartio_mdev *sm);
void smartio_mdev_p2p_off(struct smartio_mdev *sm);

/* config.c */
void smartio_mdev_config_open(struct smartio_mdev *sm);
ssize_t smartio_mdev_config_rw(struct smartio_mdev *sm, char __user *buf,
			       size_t count, loff_t pos, bool write);

#endif /* _SMARTIO_MDEV_PRIV_H */
