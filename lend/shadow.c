// SPDX-License-Identifier: GPL-2.0
/*
 * The borrower's shadow device: a borrowed function on a virtual PCI root
 * bus of its own, which the stock driver of the function binds to.
 *
 * Modelled on drivers/pci/controller/vmd.c:
 *
 *  - Config space: served from a copy of the lender's, less what the
 *    borrower must not use, its writes judged by the lender (config.c).
 *    BARs read the lender's bus addresses and are sized here; the bus's
 *    window for each BAR translates its bus address to our window onto
 *    the real BAR (an offset per window, as VMD's), so that a 32-bit BAR
 *    works with a window above 4 GiB.
 *  - MMIO: the BARs are our windows onto the real ones; no software in
 *    between.
 *  - Interrupts: an MSI domain of the bus's own, stacked on the NTB's
 *    parent (the interrupt remapping domain when there is one), rewrites
 *    every message address where Linux writes it (MSI capability or MSI-X
 *    table) into the lender-side window onto our interrupt address range.
 *    The bus's sysdata names the NTB as the device that DMAs for it (the
 *    VMD mechanism, pci_real_dma_dev()), so remapped interrupts carry the
 *    source id of the NTB, which is where they enter this host.
 *  - DMA: dma_map_ops of our own hand the driver lender-side addresses in
 *    the window the lender opened onto our memory (our NTB's IOVA window
 *    where our IOMMU translates, else all of RAM); no message per map.
 *    A DMA mask is supported when it reaches all of that window (a 32-bit
 *    one does where the lender's IOMMU put it below 4 GiB), and every
 *    address handed out is checked against the mask it is for: the
 *    coherent one in alloc, the streaming one in the maps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-map-ops.h>
#include <linux/iommu.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/log2.h>
#include <linux/msi.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <asm/irq_remapping.h>
#include <asm/unaligned.h>

#include "smartio/ntb.h"
#include "lend_priv.h"

static struct smartio_shadow *smartio_shadow_of(struct device *dev)
{
	return smartio_shadow_of_bus(to_pci_dev(dev)->bus);
}

/* Is BAR @i in @cfg a 64-bit memory BAR (with room for its upper half)? */
static bool smartio_shadow_bar_is64(const u8 *cfg, int i)
{
	u32 bar = get_unaligned_le32(&cfg[PCI_BASE_ADDRESS_0 + 4 * i]);

	return !(bar & PCI_BASE_ADDRESS_SPACE_IO) &&
	       (bar & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
	       PCI_BASE_ADDRESS_MEM_TYPE_64 && i + 1 < PCI_STD_NUM_BARS;
}

/* The bus address of memory BAR @i in @cfg: the lender's. */
static u64 smartio_shadow_bar_bus(const u8 *cfg, int i)
{
	int reg = PCI_BASE_ADDRESS_0 + 4 * i;
	u64 addr = get_unaligned_le32(&cfg[reg]) & PCI_BASE_ADDRESS_MEM_MASK;

	if (smartio_shadow_bar_is64(cfg, i))
		addr |= (u64)get_unaligned_le32(&cfg[reg + 4]) << 32;
	return addr;
}

/*
 * The BARs of the copy of config space the driver sees (config.c): sized
 * by ours (bar_mask: the writable bits), and 0 where the lender sent none.
 */
static void smartio_shadow_config_bars(struct smartio_shadow *sh)
{
	u8 *cfg = sh->config;
	int i;

	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		int reg = PCI_BASE_ADDRESS_0 + 4 * i;
		u64 size = sh->bar_size[i];

		if (!size) {
			put_unaligned_le32(0, &cfg[reg]);
			sh->bar_mask[i] = 0;
			continue;
		}
		sh->bar_mask[i] = lower_32_bits(~(size - 1)) &
				  PCI_BASE_ADDRESS_MEM_MASK;
		if (smartio_shadow_bar_is64(cfg, i)) {
			i++;
			sh->bar_mask[i] = upper_32_bits(~(size - 1));
		}
	}
}

/* --- interrupts --- */

/*
 * Is the shadow of @d's function lost with its lender? Then the function's
 * MSI-X table, in one of its BARs, is gone too: the vectors' masking and
 * clearing as its driver lets go (the IRQ core does not check for a
 * disconnected function there) must not write it. Through a LUT window
 * the write would lead nowhere; through a direct window, which stays open
 * onto the lender's IOVA window, it would meet the lender's IOMMU (a
 * fault there). The function sends nothing we take any more.
 */
static bool smartio_shadow_msi_lost(struct irq_data *d)
{
	struct pci_dev *pdev = msi_desc_to_pci_dev(irq_data_get_msi_desc(d));

	return READ_ONCE(smartio_shadow_of_bus(pdev->bus)->lost);
}

static void smartio_shadow_msi_mask(struct irq_data *d)
{
	if (!smartio_shadow_msi_lost(d))
		pci_msi_mask_irq(d);
}

static void smartio_shadow_msi_unmask(struct irq_data *d)
{
	if (!smartio_shadow_msi_lost(d))
		pci_msi_unmask_irq(d);
}

static void smartio_shadow_write_msi_msg(struct irq_data *d,
					 struct msi_msg *msg)
{
	struct pci_dev *pdev = msi_desc_to_pci_dev(irq_data_get_msi_desc(d));
	struct smartio_shadow *sh = smartio_shadow_of_bus(pdev->bus);
	u64 addr = ((u64)msg->address_hi << 32) | msg->address_lo;
	struct msi_msg m = *msg;

	if (smartio_shadow_msi_lost(d))
		return;
	/* Where the lender's window onto our interrupt range sees it. */
	addr = sh->msi_base + (addr - SMARTIO_MSI_ADDR);
	m.address_lo = lower_32_bits(addr);
	m.address_hi = upper_32_bits(addr);
	pci_write_msi_msg(d->irq, &m);
}

static struct irq_chip smartio_shadow_msi_chip = {
	.name			= "smartio-MSI",
	.irq_unmask		= smartio_shadow_msi_unmask,
	.irq_mask		= smartio_shadow_msi_mask,
	.irq_ack		= irq_chip_ack_parent,
	.irq_retrigger		= irq_chip_retrigger_hierarchy,
	.irq_write_msi_msg	= smartio_shadow_write_msi_msg,
	.flags			= IRQCHIP_SKIP_SET_WAKE |
				  IRQCHIP_AFFINITY_PRE_STARTUP,
};

/*
 * A function that takes MSI (not MSI-X, whose table always holds 64-bit
 * addresses) through a capability without 64-bit addresses reaches our
 * interrupt range only if the lender's window onto it is below 4 GiB.
 * The lender's IOMMU puts it there (lender.c, smartio_lent_layout()), but
 * without one the window is the lender's NTB window, which may be above:
 * the message's upper half would be dropped and the function's writes
 * would hit the lender's own interrupt range. Refused instead, once said.
 */
static int smartio_shadow_msi_prepare(struct irq_domain *domain,
				      struct device *dev, int nvec,
				      msi_alloc_info_t *arg)
{
	struct smartio_shadow *sh = smartio_shadow_of(dev);
	struct msi_desc *desc = msi_first_desc(dev, MSI_DESC_ALL);
	u64 last = sh->msi_base + SMARTIO_MSI_SIZE - 1;

	if (desc && !desc->pci.msi_attrib.is_msix &&
	    !desc->pci.msi_attrib.is_64 && upper_32_bits(last)) {
		if (!test_and_set_bit(SMARTIO_SHADOW_WARNED_MSI, &sh->warned))
			dev_warn(dev, "fdid %x: its MSI capability has 32-bit addresses only, and the window its lender, node %u, opened onto this node's interrupts is at %#llx-%#llx: no MSI\n",
				 sh->fdid, sh->lender, sh->msi_base, last);
		return -ERANGE;
	}
	return pci_msi_prepare(domain, dev, nvec, arg);
}

static struct msi_domain_ops smartio_shadow_msi_ops = {
	.msi_prepare	= smartio_shadow_msi_prepare,
};

static struct msi_domain_info smartio_shadow_msi_info = {
	.flags		= MSI_FLAG_USE_DEF_DOM_OPS | MSI_FLAG_USE_DEF_CHIP_OPS |
			  MSI_FLAG_MULTI_PCI_MSI | MSI_FLAG_PCI_MSIX,
	.ops		= &smartio_shadow_msi_ops,
	.chip		= &smartio_shadow_msi_chip,
	.handler	= handle_edge_irq,
	.handler_name	= "edge",
};

static int smartio_shadow_msi_init(struct smartio_shadow *sh)
{
	struct irq_domain *ntb_domain = dev_get_msi_domain(&sh->ntb->dev);

	if (!ntb_domain || !ntb_domain->parent)
		return -EOPNOTSUPP;
	sh->fwnode = irq_domain_alloc_named_id_fwnode("smartio-MSI",
						      sh->sysdata.domain);
	if (!sh->fwnode)
		return -ENOMEM;
	sh->msi_domain = pci_msi_create_irq_domain(sh->fwnode,
						   &smartio_shadow_msi_info,
						   ntb_domain->parent);
	if (!sh->msi_domain) {
		irq_domain_free_fwnode(sh->fwnode);
		return -ENOMEM;
	}
	/*
	 * Not a plain PCI/MSI domain: the interrupt remapping code must not
	 * replace it by its own when the device is added (see
	 * pci_dev_has_special_msi_domain()), exactly as for VMD.
	 */
	irq_domain_update_bus_token(sh->msi_domain, DOMAIN_BUS_VMD_MSI);
	return 0;
}

static void smartio_shadow_msi_exit(struct smartio_shadow *sh)
{
	if (!sh->msi_domain)
		return;
	irq_domain_remove(sh->msi_domain);
	irq_domain_free_fwnode(sh->fwnode);
	sh->msi_domain = NULL;
}

/* --- DMA --- */

/*
 * Two ways our memory is in the lender's DMA window onto us. Where the
 * NTB's inbound accesses are translated by our IOMMU, the window is the
 * NTB's IOVA window (ntb/iova.c): every map puts the pages into it, so the
 * device reaches only what its driver mapped, and one small window serves
 * all of RAM. Elsewhere the window covers all our RAM, as is: a map is
 * arithmetic.
 */

static int smartio_shadow_prot(enum dma_data_direction dir)
{
	switch (dir) {
	case DMA_TO_DEVICE:
		return IOMMU_READ;
	case DMA_FROM_DEVICE:
		return IOMMU_WRITE;
	default:
		return IOMMU_READ | IOMMU_WRITE;
	}
}

/* The device's address of the last byte of the window onto our memory. */
static u64 smartio_shadow_dma_last(const struct smartio_shadow *sh)
{
	return sh->dma_base + sh->dma_size - 1;
}

/*
 * A DMA mask of the driver's (@which: "", "coherent " or "streaming ")
 * does not reach the window the lender opened onto our memory: without
 * an IOMMU on the lender it is the lender's NTB window, wherever its bus
 * address is; with one, a window onto all of our RAM may be too large
 * for the 32-bit space. Said once per borrowed device.
 */
static void smartio_shadow_mask_warn(struct device *dev,
				     struct smartio_shadow *sh,
				     const char *which, u64 mask)
{
	if (test_and_set_bit(SMARTIO_SHADOW_WARNED_DMA, &sh->warned))
		return;
	dev_warn(dev, "fdid %x: %sDMA mask %#llx does not reach the window its lender, node %u, opened onto this node's memory (device addresses %#llx-%#llx): refused\n",
		 sh->fdid, which, mask, sh->lender, sh->dma_base,
		 smartio_shadow_dma_last(sh));
}

/*
 * The device's address of our range [@phys, @phys + @size), within the
 * driver's coherent DMA mask (@coherent) or its streaming one. The masks
 * dma_supported() accepted reach all of the window, but a driver need not
 * have asked: the PCI core's default masks are 32-bit, and a driver may
 * set only its streaming mask, or write a mask itself.
 */
static dma_addr_t smartio_shadow_map(struct device *dev, phys_addr_t phys,
				     size_t size, int prot, bool coherent)
{
	struct smartio_shadow *sh = smartio_shadow_of(dev);
	u64 mask = coherent ? dev->coherent_dma_mask : dma_get_mask(dev);
	dma_addr_t bus = phys;
	dma_addr_t addr;

	if (READ_ONCE(sh->lost))
		return DMA_MAPPING_ERROR;
	if (sh->iova) {
		bus = smartio_iova_map(sh->iova, sh, phys, size, prot);
		if (bus == DMA_MAPPING_ERROR)
			return DMA_MAPPING_ERROR;
	}
	if (bus < sh->dma_addr || bus + size > sh->dma_addr + sh->dma_size)
		goto err_unmap;
	addr = sh->dma_base + (bus - sh->dma_addr);
	if (size && addr + size - 1 > mask) {
		smartio_shadow_mask_warn(dev, sh, coherent ? "coherent " :
					 "streaming ", mask);
		goto err_unmap;
	}
	return addr;

err_unmap:
	if (sh->iova)
		smartio_iova_unmap(sh->iova, sh, bus, size);
	return DMA_MAPPING_ERROR;
}

/*
 * Unmaps @size bytes at device address @addr, and frees coherent memory
 * @page (NULL: none) once unmapped: behind a flush of what the driver
 * posted to the device (flushq.c), unless the device is lost (stopped by
 * its lender). All of RAM in the window: nothing to unmap.
 */
static void smartio_shadow_unmap(struct device *dev, dma_addr_t addr,
				 size_t size, struct page *page)
{
	struct smartio_shadow *sh = smartio_shadow_of(dev);
	dma_addr_t bus = addr - sh->dma_base + sh->dma_addr;

	if (sh->iova && !READ_ONCE(sh->lost)) {
		smartio_flushq_unmap(sh->fq, bus, size, page);
		return;
	}
	if (sh->iova)
		smartio_iova_unmap(sh->iova, sh, bus, size);
	if (page)
		__free_pages(page, get_order(size));
}

static dma_addr_t smartio_shadow_map_page(struct device *dev,
					  struct page *page,
					  unsigned long offset, size_t size,
					  enum dma_data_direction dir,
					  unsigned long attrs)
{
	return smartio_shadow_map(dev, page_to_phys(page) + offset, size,
				  smartio_shadow_prot(dir), false);
}

static void smartio_shadow_unmap_page(struct device *dev, dma_addr_t addr,
				      size_t size, enum dma_data_direction dir,
				      unsigned long attrs)
{
	smartio_shadow_unmap(dev, addr, size, NULL);
}

/*
 * The window's addresses as the device sees them: where the lender's
 * DMA window onto us puts our range.
 */
static u64 smartio_shadow_dma_offset(const struct smartio_shadow *sh)
{
	return sh->dma_base - sh->dma_addr;
}

static void smartio_shadow_unmap_sg(struct device *dev,
				    struct scatterlist *sgl, int nents,
				    enum dma_data_direction dir,
				    unsigned long attrs)
{
	struct smartio_shadow *sh = smartio_shadow_of(dev);

	/* All of RAM in the window: nothing was mapped. */
	if (sh->iova)
		smartio_iova_unmap_sg(sh->iova, sh, sgl, nents,
				      smartio_shadow_dma_offset(sh));
}

/*
 * Are all of @sgl's entries within the driver's streaming DMA mask? Asked
 * only where the window is not all below it.
 */
static bool smartio_shadow_sg_reachable(struct device *dev,
					struct smartio_shadow *sh,
					struct scatterlist *sgl, int nents)
{
	u64 mask = dma_get_mask(dev);
	struct scatterlist *sg;
	int i;

	for_each_sg(sgl, sg, nents, i) {
		if (sg_dma_len(sg) &&
		    sg_dma_address(sg) + sg_dma_len(sg) - 1 > mask) {
			smartio_shadow_mask_warn(dev, sh, "streaming ", mask);
			return false;
		}
	}
	return true;
}

/*
 * Through the IOVA window, the list takes one range of it and costs one
 * IOTLB flush when unmapped, rather than one per entry; the range lies in
 * our range of the lender's window (the two are the IOVA window). The
 * entries keep their own addresses, never merged.
 */
static int smartio_shadow_map_sg(struct device *dev, struct scatterlist *sgl,
				 int nents, enum dma_data_direction dir,
				 unsigned long attrs)
{
	struct smartio_shadow *sh = smartio_shadow_of(dev);
	int prot = smartio_shadow_prot(dir);
	struct scatterlist *sg;
	int i, ret;

	if (nents <= 0)
		return -EINVAL;
	if (READ_ONCE(sh->lost))
		return -EIO;
	if (sh->iova) {
		ret = smartio_iova_map_sg(sh->iova, sh, sgl, nents, prot,
					  dma_get_seg_boundary(dev),
					  smartio_shadow_dma_offset(sh));
		if (ret)
			return ret;
		if (smartio_shadow_dma_last(sh) > dma_get_mask(dev) &&
		    !smartio_shadow_sg_reachable(dev, sh, sgl, nents)) {
			smartio_iova_unmap_sg(sh->iova, sh, sgl, nents,
					      smartio_shadow_dma_offset(sh));
			return -EIO;
		}
		return nents;
	}
	for_each_sg(sgl, sg, nents, i) {
		sg->dma_address = smartio_shadow_map(dev, sg_phys(sg),
						     sg->length, prot, false);
		if (sg->dma_address == DMA_MAPPING_ERROR)
			return -EIO;
		sg_dma_len(sg) = sg->length;
	}
	return nents;
}

/*
 * Peer-to-peer: another device's BAR, as our physical address. A BAR of
 * another function borrowed from the same lender, under the same host
 * bridge there, the device reaches on its lender at the BAR's bus address
 * there (p2p.c): nothing is mapped here. Any other BAR it reaches through
 * the IOVA window as it reaches our memory: a local device's directly, a
 * BAR we reach through one of our NTB windows (a device borrowed from
 * another lender, or under another host bridge) by way of this node.
 * Without an IOVA window, only RAM is in the window.
 */
static dma_addr_t smartio_shadow_map_resource(struct device *dev,
					      phys_addr_t phys, size_t size,
					      enum dma_data_direction dir,
					      unsigned long attrs)
{
	struct smartio_shadow *sh = smartio_shadow_of(dev);
	dma_addr_t addr;

	if (READ_ONCE(sh->lost))
		return DMA_MAPPING_ERROR;
	if (smartio_borrower_peer_bar(sh, phys, size, &addr)) {
		if (addr + size - 1 > dma_get_mask(dev)) {
			smartio_shadow_mask_warn(dev, sh, "streaming ",
						 dma_get_mask(dev));
			return DMA_MAPPING_ERROR;
		}
		return addr;
	}
	return smartio_shadow_map(dev, phys, size,
				  smartio_shadow_prot(dir) | IOMMU_MMIO, false);
}

/* What lies outside our range of the lender's window is a peer's BAR. */
static void smartio_shadow_unmap_resource(struct device *dev,
					  dma_addr_t addr, size_t size,
					  enum dma_data_direction dir,
					  unsigned long attrs)
{
	struct smartio_shadow *sh = smartio_shadow_of(dev);

	if (addr < sh->dma_base || addr - sh->dma_base >= sh->dma_size)
		return;
	smartio_shadow_unmap(dev, addr, size, NULL);
}

static void *smartio_shadow_alloc(struct device *dev, size_t size,
				  dma_addr_t *addr, gfp_t gfp,
				  unsigned long attrs)
{
	struct page *page;

	page = alloc_pages_node(dev_to_node(dev), gfp | __GFP_ZERO,
				get_order(size));
	if (!page)
		return NULL;
	*addr = smartio_shadow_map(dev, page_to_phys(page), size,
				   IOMMU_READ | IOMMU_WRITE, true);
	if (*addr == DMA_MAPPING_ERROR) {
		__free_pages(page, get_order(size));
		return NULL;
	}
	return page_address(page);
}

static void smartio_shadow_free(struct device *dev, size_t size, void *cpu,
				dma_addr_t addr, unsigned long attrs)
{
	smartio_shadow_unmap(dev, addr, size, virt_to_page(cpu));
}

/*
 * Called for the streaming and the coherent mask alike: a mask is
 * supported when it reaches all of the window, so that nothing the
 * driver maps or allocates afterwards fails for its address. A mask that
 * does not (a 32-bit one with the window above 4 GiB) is refused with one
 * message rather than a driver's silent probe failure.
 */
static int smartio_shadow_dma_supported(struct device *dev, u64 mask)
{
	struct smartio_shadow *sh = smartio_shadow_of(dev);

	if (mask >= smartio_shadow_dma_last(sh))
		return 1;
	smartio_shadow_mask_warn(dev, sh, "", mask);
	return 0;
}

static u64 smartio_shadow_required_mask(struct device *dev)
{
	struct smartio_shadow *sh = smartio_shadow_of(dev);

	return DMA_BIT_MASK(fls64(smartio_shadow_dma_last(sh)));
}

static const struct dma_map_ops smartio_shadow_dma_ops = {
	.alloc			= smartio_shadow_alloc,
	.free			= smartio_shadow_free,
	.map_page		= smartio_shadow_map_page,
	.unmap_page		= smartio_shadow_unmap_page,
	.map_sg			= smartio_shadow_map_sg,
	.unmap_sg		= smartio_shadow_unmap_sg,
	.map_resource		= smartio_shadow_map_resource,
	.unmap_resource		= smartio_shadow_unmap_resource,
	.dma_supported		= smartio_shadow_dma_supported,
	.get_required_mask	= smartio_shadow_required_mask,
};

/*
 * Unmaps what is still mapped for @sh's device in the IOVA window, and
 * says so on @dev. A driver may let go of its device with buffers mapped
 * (virtio_scsi its event buffers: vring_del_virtqueue() does not unmap
 * what the device holds), which a device's own IOMMU domain would take
 * with it; the IOVA window is the NTB's and stays, and the device could
 * reach pages this node frees and gives to anyone. Drivers do this
 * legitimately: an info line, not a warning.
 */
static void smartio_shadow_dma_reclaim(struct smartio_shadow *sh,
				       struct device *dev)
{
	unsigned long pages, ranges;

	if (!sh->iova)
		return;
	pages = smartio_iova_unmap_owner(sh->iova, sh, &ranges);
	if (pages)
		dev_info(dev, "fdid %x: its driver left %lu pages mapped for the device, in %lu ranges: unmapped, the device reaches them no more\n",
			 sh->fdid, pages, ranges);
}

/**
 * smartio_shadow_is() - Is @pdev the shadow of a borrowed function?
 * @pdev: A PCI function of this node.
 *
 * Return: True if @pdev sits on a shadow root bus.
 */
bool smartio_shadow_is(const struct pci_dev *pdev)
{
	return pci_find_host_bridge(pdev->bus)->bus->ops ==
	       &smartio_shadow_pci_ops;
}

/*
 * When a driver lets go of a shadow device (unbound, or its probe
 * failed), the function's DMA stops on its lender, confirmed, and then
 * what the driver left mapped for the device is unmapped: before the
 * device goes (returned, its lender lost, reclaimed) or another driver
 * binds (which turns Bus Master on again).
 *
 * The IOMMU code clears a device's DMA ops when it releases it, as the
 * device leaves its bus; the driver may still free coherent memory after
 * that (nvme does, when its controller is released). Our ops must stay:
 * restore them once every other REMOVED_DEVICE handler has run.
 */
static int smartio_shadow_bus_event(struct notifier_block *nb,
				    unsigned long action, void *data)
{
	struct device *dev = data;
	struct smartio_shadow *sh;
	bool stopped;

	if (to_pci_dev(dev)->bus->ops != &smartio_shadow_pci_ops)
		return NOTIFY_DONE;
	switch (action) {
	case BUS_NOTIFY_UNBOUND_DRIVER:
	case BUS_NOTIFY_DRIVER_NOT_BOUND:
		sh = smartio_shadow_of(dev);
		stopped = !smartio_shadow_dma_stop(sh);
		if (sh->fq)
			smartio_flushq_drain(sh->fq, !stopped);
		smartio_shadow_dma_reclaim(sh, dev);
		break;
	case BUS_NOTIFY_REMOVED_DEVICE:
		set_dma_ops(dev, &smartio_shadow_dma_ops);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block smartio_shadow_bus_nb = {
	.notifier_call = smartio_shadow_bus_event,
	.priority = INT_MIN,
};

int smartio_shadow_init(void)
{
	return bus_register_notifier(&pci_bus_type, &smartio_shadow_bus_nb);
}

void smartio_shadow_exit(void)
{
	bus_unregister_notifier(&pci_bus_type, &smartio_shadow_bus_nb);
}

/* --- the bus --- */

/* PCI domains from 0x10000 up, as VMD's, clear of the firmware's. */
static int smartio_shadow_free_domain(void)
{
	struct pci_bus *bus = NULL;
	int domain = 0xffff;

	while ((bus = pci_find_next_bus(bus)))
		domain = max_t(int, domain, pci_domain_nr(bus));
	return domain + 1;
}

/*
 * Can a driver claim [@start, @start + @size)? The function's driver will,
 * with pci_request_regions(), and a range inside one that another driver
 * holds busy cannot be claimed: Intel's NTB drivers request every BAR of
 * the NTB at probe, windows included. Found here, it is one message and a
 * refused borrow rather than a shadow device whose driver fails to probe.
 */
static bool smartio_shadow_claimable(resource_size_t start, u64 size)
{
	if (!request_mem_region(start, size, "smartio claim test"))
		return false;
	release_mem_region(start, size);
	return true;
}

/*
 * Why the shadow cannot have BAR @i of @resp, which the lender sent with
 * @size (not 0), or NULL if it can. The lender sends memory BARs only,
 * with the sizes their registers give; anything else would make sizing
 * (bar_mask) or the bus address of the window wrong. @upper: BAR @i is
 * the upper half of the 64-bit BAR before it.
 */
static const char *smartio_shadow_bar_invalid(const u8 *cfg, int i, u64 addr,
					      u64 size, bool upper)
{
	u32 bar = get_unaligned_le32(&cfg[PCI_BASE_ADDRESS_0 + 4 * i]);

	if (upper)
		return "it is the upper half of a 64-bit BAR";
	if (bar & PCI_BASE_ADDRESS_SPACE_IO)
		return "its register says I/O space";
	if (!is_power_of_2(size) || size < 16)
		return "its size is not one a BAR can have";
	if (!smartio_shadow_bar_is64(cfg, i) && size > SZ_2G)
		return "it is too large for a 32-bit BAR";
	if (addr + size - 1 < addr)
		return "it wraps around the lender's address space";
	return NULL;
}

/*
 * Maps the lender's memory BARs through our windows. A BAR that cannot be
 * mapped refuses the borrow with one message (its driver would find it
 * missing or wrong); an I/O BAR, which the lender does not send (the
 * fabric carries memory accesses only), is hidden with one.
 */
static int smartio_shadow_map_bars(struct smartio_shadow *sh,
				   const struct smartio_borrow_resp *resp)
{
	bool upper = false;
	int i;

	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		u64 addr = le64_to_cpu(resp->bars[i].addr);
		u64 size = le64_to_cpu(resp->bars[i].size);
		u32 bar = get_unaligned_le32(&resp->config[PCI_BASE_ADDRESS_0 +
							   4 * i]);
		bool this_upper = upper;
		const char *why;

		/* Whether sent or not: its upper half holds no flags. */
		upper = !this_upper && smartio_shadow_bar_is64(resp->config, i);
		if (!size) {
			if (!this_upper && (bar & PCI_BASE_ADDRESS_SPACE_IO) &&
			    (bar & PCI_BASE_ADDRESS_IO_MASK))
				dev_info(&sh->ntb->dev,
					 "fdid %x: BAR %d is I/O space, which does not cross the fabric: hidden from its driver\n",
					 sh->fdid, i);
			continue;
		}
		why = smartio_shadow_bar_invalid(resp->config, i, addr, size,
						 this_upper);
		if (why) {
			dev_err(&sh->ntb->dev,
				"fdid %x: BAR %d (%#llx+%#llx) cannot be mapped: %s\n",
				sh->fdid, i, addr, size, why);
			return -ENXIO;
		}
		sh->bar_win[i] = smartio_remote_map(sh->lender, addr, size);
		if (IS_ERR(sh->bar_win[i])) {
			dev_err(&sh->ntb->dev,
				"fdid %x: BAR %d (%#llx+%#llx) cannot be mapped: no window of ours leads there (%pe)\n",
				sh->fdid, i, addr, size, sh->bar_win[i]);
			sh->bar_win[i] = NULL;
			return -ENXIO;
		}
		sh->bar_phys[i] = smartio_remote_phys(sh->bar_win[i]);
		sh->bar_size[i] = size;
		if (!smartio_shadow_claimable(sh->bar_phys[i], size)) {
			dev_err(&sh->ntb->dev,
				"fdid %x: BAR %d would be at %pa in a window BAR that %s holds busy: its driver could not claim it\n",
				sh->fdid, i, &sh->bar_phys[i],
				dev_driver_string(&sh->ntb->dev));
			return -EADDRINUSE;
		}
	}
	return 0;
}

static void smartio_shadow_unmap_bars(struct smartio_shadow *sh)
{
	int i;

	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		smartio_remote_unmap(sh->bar_win[i]);
		sh->bar_win[i] = NULL;
	}
}

/*
 * Merges two windows of @sh where one ends right where the other starts
 * with the same offset; returns whether it did. The PCI core coalesces
 * such windows when it registers the bus (pci_register_host_bridge()):
 * it empties the first and releases it from the resource tree. Two
 * adjacent BARs do that: without an IOMMU the lender grants each at its
 * bus address, and our LUT maps adjacent ranges through one slot. Merged
 * here, the core finds nothing to coalesce and every window it gets is
 * one we inserted and release ourselves.
 */
static bool smartio_shadow_merge_windows(struct smartio_shadow *sh)
{
	int i, j;

	for (i = 0; i < sh->nr_windows; i++) {
		for (j = 0; j < sh->nr_windows; j++) {
			struct resource *a = &sh->windows[i];
			struct resource *b = &sh->windows[j];
			int last = sh->nr_windows - 1;

			if (i == j || a->end + 1 != b->start ||
			    sh->window_offset[i] != sh->window_offset[j])
				continue;
			a->end = b->end;
			sh->windows[j] = sh->windows[last];
			sh->window_offset[j] = sh->window_offset[last];
			sh->nr_windows--;
			return true;
		}
	}
	return false;
}

/*
 * The bus's windows: one per BAR, merged where contiguous, inserted in
 * our resource tree (under the NTB's BAR they lie in), as a host
 * bridge's are: the PCI core and the driver's claims then find them
 * where they are, in /proc/iomem too. Needs @sh's config (bus addresses).
 */
static int smartio_shadow_insert_windows(struct smartio_shadow *sh)
{
	int i, j, ret;

	sh->nr_windows = 0;
	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		struct resource *res = &sh->windows[sh->nr_windows];
		u64 start = sh->bar_phys[i];
		u64 end = start + sh->bar_size[i] - 1;

		if (!sh->bar_size[i])
			continue;
		for (j = 0; j < sh->nr_windows; j++) {
			if (start > sh->windows[j].end || end < sh->windows[j].start)
				continue;
			dev_err(&sh->ntb->dev,
				"fdid %x: BAR %d cannot be mapped: our window onto it, %#llx-%#llx, overlaps another BAR's, %pR\n",
				sh->fdid, i, start, end, &sh->windows[j]);
			sh->nr_windows = 0;
			return -ENXIO;
		}
		*res = (struct resource) {
			.name = "smartio shadow BARs",
			.start = start,
			.end = end,
			.flags = IORESOURCE_MEM,
		};
		sh->window_offset[sh->nr_windows] =
			start - smartio_shadow_bar_bus(sh->config, i);
		sh->nr_windows++;
	}
	while (smartio_shadow_merge_windows(sh))
		;
	for (i = 0; i < sh->nr_windows; i++) {
		ret = insert_resource(&iomem_resource, &sh->windows[i]);
		if (ret) {
			dev_err(&sh->ntb->dev,
				"fdid %x: its BARs cannot be mapped: our window onto them, %pR, conflicts with a resource of this node's\n",
				sh->fdid, &sh->windows[i]);
			goto err_release;
		}
	}
	return 0;

err_release:
	while (i--)
		release_resource(&sh->windows[i]);
	sh->nr_windows = 0;
	return -ENXIO;
}

/* Undoes smartio_shadow_insert_windows(). */
static void smartio_shadow_release_windows(struct smartio_shadow *sh)
{
	int i;

	/* Only windows still in the tree: the core may have let one go. */
	for (i = 0; i < sh->nr_windows; i++)
		if (sh->windows[i].parent)
			release_resource(&sh->windows[i]);
	sh->nr_windows = 0;
}

/*
 * The host bridge is released once the shadow device is (a driver may
 * hold it after its removal): the sysdata, MSI domain and windows go then.
 */
static void smartio_shadow_release(struct pci_host_bridge *bridge)
{
	struct smartio_shadow *sh = bridge->release_data;

	smartio_shadow_msi_exit(sh);
	smartio_shadow_release_windows(sh);
	smartio_shadow_unmap_bars(sh);
	/* Whatever was mapped for it since its driver let go. */
	smartio_flushq_destroy(sh->fq);
	smartio_shadow_dma_reclaim(sh, &sh->ntb->dev);
	smartio_iova_window_put(sh->iova);
	pci_dev_put(sh->ntb);
	kfree(sh);
}

/**
 * smartio_shadow_create() - Put a borrowed function on a bus of its own.
 * @sh: The shadow, with @fdid, @lender, @ntb, @dma_addr and @dma_size set,
 *	and @driver if only that driver (or, "", none) may bind.
 * @resp: The lender's answer to the borrow.
 *
 * Context: Process context; sleeps. The function's driver, if loaded,
 * binds before this returns. From then on @sh belongs to the bus, which
 * frees it (and drops its reference to @ntb) once the shadow device is
 * released after smartio_shadow_destroy().
 * Return: 0 or -errno; on error nothing is left to undo but @sh itself.
 */
int smartio_shadow_create(struct smartio_shadow *sh,
			  const struct smartio_borrow_resp *resp)
{
	LIST_HEAD(resources);
	struct pci_host_bridge *bridge;
	int i, ret;

	spin_lock_init(&sh->config_lock);
	if (sh->iova) {
		sh->fq = smartio_flushq_create(sh);
		if (!sh->fq)
			return -ENOMEM;
	}
	sh->dma_base = le64_to_cpu(resp->dma_base);
	sh->msi_base = le64_to_cpu(resp->msi_base);
	sh->p2p_bridge = le32_to_cpu(resp->p2p_bridge);
	ret = smartio_shadow_map_bars(sh, resp);
	if (ret)
		goto err_bars;
	ret = smartio_shadow_config_init(sh, resp);
	if (ret)
		goto err_bars;
	smartio_shadow_config_bars(sh);
	ret = smartio_shadow_insert_windows(sh);
	if (ret)
		goto err_config;

	sh->sysdata.domain = smartio_shadow_free_domain();
	sh->sysdata.node = dev_to_node(&sh->ntb->dev);
	sh->sysdata.vmd_dev = sh->ntb;
	ret = smartio_shadow_msi_init(sh);
	if (ret)
		goto err_windows;

	sh->busn.name = "smartio shadow bus";
	sh->busn.start = 0;
	sh->busn.end = 0;
	sh->busn.flags = IORESOURCE_BUS | IORESOURCE_PCI_FIXED;
	pci_add_resource(&resources, &sh->busn);
	for (i = 0; i < sh->nr_windows; i++)
		pci_add_resource_offset(&resources, &sh->windows[i],
					sh->window_offset[i]);

	sh->bus = pci_create_root_bus(&sh->ntb->dev, 0,
				      &smartio_shadow_pci_ops, &sh->sysdata,
				      &resources);
	if (!sh->bus) {
		pci_free_resource_list(&resources);
		ret = -ENODEV;
		goto err_msi;
	}
	dev_set_msi_domain(&sh->bus->dev, sh->msi_domain);
	/* The shadow outlives its bus while its driver holds the device. */
	pci_set_host_bridge_release(to_pci_host_bridge(sh->bus->bridge),
				    smartio_shadow_release, sh);

	pci_lock_rescan_remove();
	pci_scan_child_bus(sh->bus);
	sh->pdev = pci_get_slot(sh->bus, 0);
	if (!sh->pdev) {
		pci_unlock_rescan_remove();
		ret = -ENODEV;
		goto err_bus;
	}
	/* Freed with the device (pci_release_dev()). */
	if (sh->driver) {
		sh->pdev->driver_override = kstrdup(sh->driver, GFP_KERNEL);
		if (!sh->pdev->driver_override) {
			pci_unlock_rescan_remove();
			ret = -ENOMEM;
			goto err_pdev;
		}
	}
	/* Before a driver binds: every mapping it makes is ours. */
	set_dma_ops(&sh->pdev->dev, &smartio_shadow_dma_ops);
	pci_bus_claim_resources(sh->bus);
	pci_bus_add_devices(sh->bus);
	pci_unlock_rescan_remove();

	pci_info(sh->pdev, "shadow of fdid %x, lent by node %u\n", sh->fdid,
		 sh->lender);
	return 0;

err_pdev:
	pci_dev_put(sh->pdev);
	sh->pdev = NULL;
err_bus:
	/* Keep @sh for the caller: undo what the release would. */
	bridge = to_pci_host_bridge(sh->bus->bridge);
	bridge->release_fn = NULL;
	pci_lock_rescan_remove();
	pci_stop_root_bus(sh->bus);
	pci_remove_root_bus(sh->bus);
	pci_unlock_rescan_remove();
	put_device(&bridge->dev);
err_msi:
	smartio_shadow_msi_exit(sh);
err_windows:
	smartio_shadow_release_windows(sh);
err_config:
	smartio_shadow_config_exit(sh);
err_bars:
	smartio_shadow_unmap_bars(sh);
	smartio_flushq_destroy(sh->fq);
	sh->fq = NULL;
	return ret;
}

/**
 * smartio_shadow_destroy() - Remove a shadow device and its bus.
 * @sh: The shadow; freed once its device is released, maybe at once.
 *
 * Its driver unbinds first (a surprise removal if @sh->lost is set).
 */
void smartio_shadow_destroy(struct smartio_shadow *sh)
{
	struct pci_bus *bus = sh->bus;
	struct pci_host_bridge *bridge = to_pci_host_bridge(bus->bridge);

	smartio_shadow_config_exit(sh);
	pci_dev_put(sh->pdev);
	pci_lock_rescan_remove();
	pci_stop_root_bus(bus);
	pci_remove_root_bus(bus);
	pci_unlock_rescan_remove();
	/*
	 * pci_remove_root_bus() only deletes the host bridge; the reference
	 * pci_create_root_bus() gave us goes here, and @sh with the last one.
	 */
	put_device(&bridge->dev);
}
