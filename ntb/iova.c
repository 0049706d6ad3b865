// SPDX-License-Identifier: GPL-2.0
/*
 * IOVA windows: where an NTB's inbound accesses are translated by our
 * IOMMU, a range of its inbound addresses kept for mapping local memory
 * page by page, so that a peer's device reaches exactly what a driver
 * here mapped for it, through one small window of the peer's (SmartIO's
 * DMA window with an IOMMU on the borrower).
 *
 * The range lies above every address the DMA API hands out for the NTB:
 * its bus DMA limit is set below the window's base while the window
 * exists, so the NTB's own mappings (segments, rings) and ours never
 * meet. Pages are mapped straight into the NTB's IOMMU domain with IOVAs
 * from an allocator of our own, in any context, with no message to
 * anyone. The window is shared by every device borrowed through the NTB,
 * so it records who mapped each range (a slot per page): what a device's
 * driver leaves mapped is unmapped when the device goes, as a device's
 * own IOMMU domain would go with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/iommu.h>
#include <linux/iova.h>
#include <linux/kref.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "smartio/ntb.h"
#include "smartio_ntb_priv.h"

#define SMARTIO_IOVA_BASE	(1ULL << 32)

static unsigned int iova_window_mb = 256;
module_param(iova_window_mb, uint, 0444);
MODULE_PARM_DESC(iova_window_mb,
		 "Size of an NTB's IOVA window, where local pages are mapped for peers' devices when the NTB is behind a translating IOMMU domain (MiB, default 256)");

/*
 * Who mapped the IOVA range that starts at a page of the window, so that
 * what an owner (a borrowed device's shadow) leaves mapped is unmapped
 * when it goes: the window is the NTB's, shared by every device borrowed
 * through it, and does not go with the device as a device's own IOMMU
 * domain would. Only a range's first page has its slot set; a range
 * mapped with no owner (a grant, whose owner revokes it) has none.
 * Setting and claiming a slot are a store and a cmpxchg(): no lock and
 * no allocation per map.
 */
struct smartio_iova_slot {
	unsigned long owner;		/* 0: none */
	unsigned long pages;		/* the range's, holes included */
};

struct smartio_iova_window {
	struct kref ref;
	struct device *dev;		/* the NTB, referenced */
	struct iommu_domain *domain;
	struct iova_domain iovad;
	u64 base;
	u64 size;
	u64 old_bus_dma_limit;
	atomic_long_t pages;		/* mapped for peers' devices */
	unsigned long held;		/* at the base: a receive area */
	struct smartio_iova_slot *slots;	/* one per page from @base */
	unsigned long nr_slots;
};

/**
 * smartio_iova_window_create() - Give an adapter its IOVA window.
 * @ad: The adapter, being probed.
 *
 * None where the NTB's inbound accesses are not translated (no IOMMU, or
 * an identity domain): there peers' devices reach local memory as is.
 *
 * Return: 0, or a negative errno.
 */
int smartio_iova_window_create(struct smartio_adapter *ad)
{
	struct device *dev = &ad->ntb->pdev->dev;
	struct iommu_domain *domain = iommu_get_domain_for_dev(dev);
	struct smartio_iova_window *w;
	u64 size = (u64)iova_window_mb << 20;
	int ret;

	if (!domain || !iommu_is_dma_domain(domain))
		return 0;
	if (!size || (domain->geometry.force_aperture &&
		      domain->geometry.aperture_end < SMARTIO_IOVA_BASE + size - 1)) {
		dev_warn(dev, "adapter %d: no room for a %u MiB IOVA window in the IOMMU domain: peers' devices cannot reach this node's memory\n",
			 ad->index, iova_window_mb);
		return 0;
	}

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->nr_slots = size >> PAGE_SHIFT;
	w->slots = kvcalloc(w->nr_slots, sizeof(*w->slots), GFP_KERNEL);
	if (!w->slots) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = iova_cache_get();
	if (ret)
		goto err_slots;
	init_iova_domain(&w->iovad, PAGE_SIZE, SMARTIO_IOVA_BASE >> PAGE_SHIFT);
	ret = iova_domain_init_rcaches(&w->iovad);
	if (ret)
		goto err_iovad;
	kref_init(&w->ref);
	w->dev = get_device(dev);
	w->domain = domain;
	w->base = SMARTIO_IOVA_BASE;
	w->size = size;
	w->old_bus_dma_limit = dev->bus_dma_limit;
	if (!dev->bus_dma_limit || dev->bus_dma_limit >= w->base)
		dev->bus_dma_limit = w->base - 1;
	ad->iova = w;
	return 0;

err_iovad:
	put_iova_domain(&w->iovad);
	iova_cache_put();
err_slots:
	kvfree(w->slots);
err_free:
	kfree(w);
	return ret;
}

static void smartio_iova_window_release(struct kref *ref)
{
	struct smartio_iova_window *w =
		container_of(ref, struct smartio_iova_window, ref);

	WARN_ON(atomic_long_read(&w->pages) || w->held);
	w->dev->bus_dma_limit = w->old_bus_dma_limit;
	put_iova_domain(&w->iovad);
	iova_cache_put();
	put_device(w->dev);
	kvfree(w->slots);
	kfree(w);
}

/**
 * smartio_iova_window_destroy() - Undo smartio_iova_window_create().
 * @ad: The adapter, going away. Its window lives on while mapped through.
 */
void smartio_iova_window_destroy(struct smartio_adapter *ad)
{
	if (ad->iova)
		kref_put(&ad->iova->ref, smartio_iova_window_release);
	ad->iova = NULL;
}

/**
 * smartio_iova_window_show() - Print an adapter's IOVA window (debugfs).
 * @s: The file.
 * @ad: The adapter.
 */
void smartio_iova_window_show(struct seq_file *s, struct smartio_adapter *ad)
{
	struct smartio_iova_window *w = ad->iova;

	if (w)
		seq_printf(s, "  iova 0x%llx+0x%llx held %lu pages %ld\n",
			   w->base, w->size, w->held,
			   atomic_long_read(&w->pages));
}

/**
 * smartio_iova_window_ref() - An adapter's IOVA window, referenced.
 * @ad: The adapter.
 *
 * Return: The window until smartio_iova_window_put(), or NULL if the
 * adapter has none.
 */
struct smartio_iova_window *smartio_iova_window_ref(struct smartio_adapter *ad)
{
	if (ad->iova)
		kref_get(&ad->iova->ref);
	return ad->iova;
}

u64 smartio_iova_window_base(struct smartio_iova_window *w)
{
	return w->base;
}

/*
 * Keeps the window within @size bytes from its base: what the inbound
 * window in front of it translates (reach.c). Only ever shrinks it, and
 * only before anything is mapped above the new end. Returns its size.
 */
u64 smartio_iova_window_limit(struct smartio_iova_window *w, u64 size)
{
	size = round_down(size, PAGE_SIZE);
	if (size < w->size && !atomic_long_read(&w->pages) && !w->held)
		w->size = size;
	return w->size;
}

/*
 * Maps [@phys, @phys + @size) at the window's base, where nothing else
 * is ever allocated: the receive area, which a peer finds there (reach.c).
 */
int smartio_iova_window_hold(struct smartio_iova_window *w, phys_addr_t phys,
			     size_t size)
{
	unsigned long first = w->base >> PAGE_SHIFT;
	unsigned long pages = PAGE_ALIGN(size) >> PAGE_SHIFT;
	int ret;

	if (!reserve_iova(&w->iovad, first, first + pages - 1))
		return -ENOMEM;
	ret = iommu_map(w->domain, w->base, phys, pages << PAGE_SHIFT,
			IOMMU_READ | IOMMU_WRITE);
	if (ret) {
		free_iova(&w->iovad, first);
		return ret;
	}
	w->held = pages;
	return 0;
}

/* Undoes smartio_iova_window_hold(). */
void smartio_iova_window_release_held(struct smartio_iova_window *w,
				      size_t size)
{
	unsigned long pages = PAGE_ALIGN(size) >> PAGE_SHIFT;

	iommu_unmap(w->domain, w->base, pages << PAGE_SHIFT);
	free_iova(&w->iovad, w->base >> PAGE_SHIFT);
	w->held = 0;
}

/*
 * Maps again into the window the pages the NTB's own DMA mappings hold at
 * [@addr, @addr + @size) (DMA memory, or a BAR through
 * dma_map_resource()), so that a peer reaches them in the window: a grant
 * (reach.c). Sleeps. Returns the window address of @addr, or
 * DMA_MAPPING_ERROR (the window is full, or @addr is not mapped).
 */
dma_addr_t smartio_iova_map_again(struct smartio_iova_window *w,
				  dma_addr_t addr, size_t size)
{
	unsigned long off = offset_in_page(addr);
	unsigned long pages = PAGE_ALIGN(off + size) >> PAGE_SHIFT;
	unsigned long pfn, i;
	dma_addr_t iova;
	phys_addr_t phys;
	int prot;

	pfn = alloc_iova_fast(&w->iovad, pages,
			      (w->base + w->size - 1) >> PAGE_SHIFT, true);
	if (!pfn)
		return DMA_MAPPING_ERROR;
	iova = (dma_addr_t)pfn << PAGE_SHIFT;
	for (i = 0; i < pages; i++) {
		phys = iommu_iova_to_phys(w->domain, addr - off + i * PAGE_SIZE);
		prot = IOMMU_READ | IOMMU_WRITE;
		if (!pfn_valid(PHYS_PFN(phys)))
			prot |= IOMMU_MMIO;
		if (!phys || iommu_map(w->domain, iova + i * PAGE_SIZE,
				       phys & PAGE_MASK, PAGE_SIZE, prot))
			break;
	}
	if (i < pages) {
		if (i)
			iommu_unmap(w->domain, iova, i * PAGE_SIZE);
		free_iova_fast(&w->iovad, pfn, pages);
		return DMA_MAPPING_ERROR;
	}
	atomic_long_add(pages, &w->pages);
	return iova + off;
}

/**
 * smartio_iova_window_get() - The IOVA window a node's devices reach us by.
 * @node_id: A joined node.
 * @base: Set to the window's first inbound address.
 * @size: Set to its size.
 *
 * Return: The window, referenced until smartio_iova_window_put(); NULL if
 * inbound accesses from @node_id are not translated (they reach local
 * memory at its physical address); ERR_PTR(-EHOSTUNREACH) if @node_id is
 * not joined, ERR_PTR(-EOPNOTSUPP) if they are translated but there is no
 * window.
 */
struct smartio_iova_window *smartio_iova_window_get(u16 node_id, u64 *base,
						    u64 *size)
{
	struct smartio_iova_window *w = ERR_PTR(-EHOSTUNREACH);
	struct smartio_adapter *ad;
	struct iommu_domain *domain;
	int idx;

	idx = srcu_read_lock(&smartio_adapters_srcu);
	if (smartio_node_peer(node_id, &ad)) {
		domain = iommu_get_domain_for_dev(&ad->ntb->pdev->dev);
		if (ad->iova && ad->iova->domain == domain) {
			w = ad->iova;
			kref_get(&w->ref);
			*base = w->base;
			*size = w->size;
		} else if (!domain || domain->type == IOMMU_DOMAIN_IDENTITY) {
			w = NULL;
		} else {
			w = ERR_PTR(-EOPNOTSUPP);
		}
	}
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	return w;
}
EXPORT_SYMBOL_GPL(smartio_iova_window_get);

/**
 * smartio_iova_window_put() - Drop a reference from smartio_iova_window_get().
 * @w: The window, or NULL.
 */
void smartio_iova_window_put(struct smartio_iova_window *w)
{
	if (w)
		kref_put(&w->ref, smartio_iova_window_release);
}
EXPORT_SYMBOL_GPL(smartio_iova_window_put);

/* The slot of the range starting at window address @iova, or NULL. */
static struct smartio_iova_slot *smartio_iova_slot(struct smartio_iova_window *w,
						   dma_addr_t iova)
{
	u64 idx = (iova - w->base) >> PAGE_SHIFT;

	if (iova < w->base || idx >= w->nr_slots)
		return NULL;
	return &w->slots[idx];
}

/* Records @owner's range of @pages at @iova, just mapped. */
static void smartio_iova_own(struct smartio_iova_window *w, const void *owner,
			     dma_addr_t iova, unsigned long pages)
{
	struct smartio_iova_slot *slot = smartio_iova_slot(w, iova);

	if (!owner || WARN_ON_ONCE(!slot))
		return;
	slot->pages = pages;
	/* Whoever claims the slot (cmpxchg()) finds @pages set. */
	smp_store_release(&slot->owner, (unsigned long)owner);
}

/*
 * Takes @owner's range at @iova out of its record, for the one caller
 * who unmaps it: true, with @pages set to the range's, if it was
 * @owner's; false if it is not, or no longer (unmapped when its owner
 * left: a driver may free its memory after that, nvme's coherent
 * memory when its controller is released).
 */
static bool smartio_iova_disown(struct smartio_iova_window *w,
				const void *owner, dma_addr_t iova,
				unsigned long *pages)
{
	struct smartio_iova_slot *slot = smartio_iova_slot(w, iova);

	if (!slot || cmpxchg(&slot->owner, (unsigned long)owner, 0) !=
		     (unsigned long)owner)
		return false;
	*pages = slot->pages;
	return true;
}

/*
 * Unmaps what is mapped of the range of @pages at @iova, found in the
 * page table (a scatterlist's range has holes, and an IOMMU driver may
 * refuse to unmap what is not mapped), and flushes the IOTLB. Returns
 * the pages it unmapped.
 */
static unsigned long smartio_iova_unmap_range(struct smartio_iova_window *w,
					      dma_addr_t iova,
					      unsigned long pages)
{
	struct iommu_iotlb_gather gather;
	unsigned long i, run = 0, done = 0;

	iommu_iotlb_gather_init(&gather);
	for (i = 0; i <= pages; i++) {
		if (i < pages &&
		    iommu_iova_to_phys(w->domain, iova + i * PAGE_SIZE)) {
			run++;
			continue;
		}
		if (run)
			iommu_unmap_fast(w->domain, iova + (i - run) * PAGE_SIZE,
					 run * PAGE_SIZE, &gather);
		done += run;
		run = 0;
	}
	iommu_iotlb_sync(w->domain, &gather);
	return done;
}

/**
 * smartio_iova_unmap_owner() - Unmap what an owner left mapped in a window.
 * @w: The window.
 * @owner: The owner given to the maps, going away (a borrowed device's
 *	shadow, whose driver let go of it).
 * @ranges: Set to the number of ranges it had left mapped.
 *
 * The window outlives the owner and its mappings would outlive it too:
 * the device could still reach memory its driver freed, which this node
 * may have given to anyone since. Every range @owner mapped and did not
 * unmap is unmapped, the IOTLB flushed and its addresses freed; an unmap
 * of one of them afterwards does nothing. Maps by @owner meanwhile are
 * its caller's to prevent.
 *
 * Context: Any; walks a slot per page of the window.
 * Return: The pages that were still mapped for @owner.
 */
unsigned long smartio_iova_unmap_owner(struct smartio_iova_window *w,
				       const void *owner,
				       unsigned long *ranges)
{
	unsigned long i, pages, unmapped = 0;
	dma_addr_t iova;

	*ranges = 0;
	for (i = 0; i < w->nr_slots; i++) {
		if (READ_ONCE(w->slots[i].owner) != (unsigned long)owner)
			continue;
		iova = w->base + ((dma_addr_t)i << PAGE_SHIFT);
		if (!smartio_iova_disown(w, owner, iova, &pages))
			continue;
		unmapped += smartio_iova_unmap_range(w, iova, pages);
		free_iova_fast(&w->iovad, iova >> PAGE_SHIFT, pages);
		(*ranges)++;
	}
	atomic_long_sub(unmapped, &w->pages);
	return unmapped;
}
EXPORT_SYMBOL_GPL(smartio_iova_unmap_owner);

/**
 * smartio_iova_map() - Map a local range into an IOVA window.
 * @w: The window.
 * @owner: Who maps it, for smartio_iova_unmap_owner() (a shadow), or
 *	NULL for none.
 * @phys: Start of the range.
 * @size: Bytes.
 * @prot: IOMMU_READ and/or IOMMU_WRITE (peers' reads and writes), and
 *	IOMMU_MMIO for a BAR.
 *
 * Any context. The pages holding the range are mapped; the address keeps
 * @phys's offset in its page.
 *
 * Return: The inbound address of @phys, or DMA_MAPPING_ERROR when the
 * window is full.
 */
dma_addr_t smartio_iova_map(struct smartio_iova_window *w, const void *owner,
			    phys_addr_t phys, size_t size, int prot)
{
	unsigned long off = offset_in_page(phys);
	unsigned long pages = PAGE_ALIGN(off + size) >> PAGE_SHIFT;
	unsigned long pfn;
	dma_addr_t iova;

	pfn = alloc_iova_fast(&w->iovad, pages,
			      (w->base + w->size - 1) >> PAGE_SHIFT, true);
	if (!pfn)
		return DMA_MAPPING_ERROR;
	iova = (dma_addr_t)pfn << PAGE_SHIFT;
	if (iommu_map_atomic(w->domain, iova, phys - off, pages << PAGE_SHIFT,
			     prot)) {
		free_iova_fast(&w->iovad, pfn, pages);
		return DMA_MAPPING_ERROR;
	}
	atomic_long_add(pages, &w->pages);
	smartio_iova_own(w, owner, iova, pages);
	return iova + off;
}
EXPORT_SYMBOL_GPL(smartio_iova_map);

/**
 * smartio_iova_unmap() - Undo smartio_iova_map().
 * @w: The window.
 * @owner: As given to it.
 * @addr: The address it returned.
 * @size: The size it was given.
 *
 * Any context. Peers' accesses to the range fault from now on. Nothing
 * happens if @owner's range was unmapped by smartio_iova_unmap_owner().
 */
void smartio_iova_unmap(struct smartio_iova_window *w, const void *owner,
			dma_addr_t addr, size_t size)
{
	unsigned long off = offset_in_page(addr);
	unsigned long pages = PAGE_ALIGN(off + size) >> PAGE_SHIFT;
	dma_addr_t iova = addr - off;

	if (owner && !smartio_iova_disown(w, owner, iova, &pages))
		return;
	iommu_unmap(w->domain, iova, pages << PAGE_SHIFT);
	free_iova_fast(&w->iovad, iova >> PAGE_SHIFT, pages);
	atomic_long_sub(pages, &w->pages);
}
EXPORT_SYMBOL_GPL(smartio_iova_unmap);

/*
 * Where an entry of @s_len bytes (whole pages) goes in a scatterlist's
 * range, the entries before it taking @len: next, or at the next multiple
 * of @mask + 1 if it would cross one there. The range is aligned to the
 * power of two its size rounds up to (alloc_iova_fast()), so it starts on
 * such a multiple whenever it is larger than one (as iommu-dma lays out
 * its scatterlists).
 */
static unsigned long smartio_iova_sg_place(unsigned long len, size_t s_len,
					   unsigned long mask)
{
	unsigned long pad = (mask - len + 1) & mask;

	return pad && pad < s_len ? len + pad : len;
}

/*
 * Unmaps the first @nents entries of @sgl, at window addresses
 * sg_dma_address() - @offset, with one IOTLB flush for them all: entries
 * adjacent in the window (all of them, but where a segment boundary moved
 * one on) go in one call, never the holes between others. Returns the end
 * of the last one.
 */
static dma_addr_t smartio_iova_unmap_entries(struct smartio_iova_window *w,
					     struct scatterlist *sgl,
					     int nents, u64 offset)
{
	struct iommu_iotlb_gather gather;
	dma_addr_t addr, start = 0;
	unsigned long pages = 0;
	struct scatterlist *sg;
	size_t s_len, len = 0;
	int i;

	iommu_iotlb_gather_init(&gather);
	for_each_sg(sgl, sg, nents, i) {
		addr = sg_dma_address(sg) - offset;
		s_len = PAGE_ALIGN(offset_in_page(addr) + sg_dma_len(sg));
		addr &= PAGE_MASK;
		if (len && addr != start + len) {
			iommu_unmap_fast(w->domain, start, len, &gather);
			len = 0;
		}
		if (!len)
			start = addr;
		len += s_len;
		pages += s_len >> PAGE_SHIFT;
	}
	if (len)
		iommu_unmap_fast(w->domain, start, len, &gather);
	iommu_iotlb_sync(w->domain, &gather);
	atomic_long_sub(pages, &w->pages);
	return start + len;
}

/*
 * Maps @len bytes (whole pages) at @iova to @phys as iommu_map_atomic()
 * would, but leaves the IOTLB sync that follows a map (iotlb_sync_map)
 * to the caller, who makes one for a whole scatterlist, as
 * iommu_map_sg() does: one per run of a list of separate pages doubled
 * the cost of mapping it (intel-iommu walks the domain's IOMMUs for each,
 * even with nothing to flush: bench/dma-map/about.md), and Linux 6.1
 * exports no map of a list that never sleeps (iommu_map_sg() may
 * allocate page tables with GFP_KERNEL). So the run goes to the IOMMU
 * driver's map_pages() as __iommu_map() would give it, in PAGE_SIZE
 * pages; one the IOMMU could map with larger pages goes through
 * iommu_map_atomic(), which chooses them (and syncs it).
 */
static int smartio_iova_map_run(struct iommu_domain *domain,
				unsigned long iova, phys_addr_t phys,
				size_t len, int prot)
{
	const struct iommu_domain_ops *ops = domain->ops;
	unsigned long larger = domain->pgsize_bitmap & ~(2 * PAGE_SIZE - 1);
	size_t mapped, done = 0;
	int ret = 0;

	if (!ops->map_pages || !(domain->pgsize_bitmap & PAGE_SIZE) ||
	    (larger && len >= BIT(__ffs(larger))))
		return iommu_map_atomic(domain, iova, phys, len, prot);
	/* As __iommu_map(): a driver may map less than asked each time. */
	while (!ret && done < len) {
		mapped = 0;
		ret = ops->map_pages(domain, iova + done, phys + done,
				     PAGE_SIZE, (len - done) >> PAGE_SHIFT,
				     prot, GFP_ATOMIC, &mapped);
		if (!ret && !mapped)
			ret = -ENOMEM;
		done += mapped;
	}
	if (ret && done)
		iommu_unmap(domain, iova, done);
	return ret;
}

/**
 * smartio_iova_map_sg() - Map a scatterlist into an IOVA window, in one range.
 * @w: The window.
 * @owner: As for smartio_iova_map().
 * @sgl: The list. Each entry's DMA address is set to the inbound address
 *	of its first byte plus @offset, its DMA length to its length.
 * @nents: Its entries, at least one.
 * @prot: As for smartio_iova_map().
 * @mask: The device's segment boundary mask (dma_get_seg_boundary()): no
 *	entry's pages cross a multiple of @mask + 1 in the window.
 * @offset: What the device adds to a window address (its view of the
 *	window).
 *
 * Any context. One IOVA range holds the entries, one after the other, and
 * only their pages are mapped (entries whose pages follow each other in
 * memory and in the range, in one call, as iommu_map_sg() would), so that
 * the list costs one allocation, one IOTLB sync after mapping and, in
 * smartio_iova_unmap_sg(), one IOTLB flush, rather than one of each per
 * entry, as smartio_iova_map() would.
 *
 * Return: 0, or -ENOMEM when the window is full or a page table cannot be
 * allocated.
 */
int smartio_iova_map_sg(struct smartio_iova_window *w, const void *owner,
			struct scatterlist *sgl, int nents, int prot,
			unsigned long mask, u64 offset)
{
	unsigned long size = 0, len = 0, pfn, pages = 0;
	phys_addr_t phys, run_phys = 0;
	dma_addr_t iova, run = 0;
	struct scatterlist *sg;
	size_t s_len, run_len = 0;
	int i, run_first = 0;

	for_each_sg(sgl, sg, nents, i) {
		s_len = PAGE_ALIGN(offset_in_page(sg_phys(sg)) + sg->length);
		size = smartio_iova_sg_place(size, s_len, mask) + s_len;
	}
	pfn = alloc_iova_fast(&w->iovad, size >> PAGE_SHIFT,
			      (w->base + w->size - 1) >> PAGE_SHIFT, true);
	if (!pfn)
		return -ENOMEM;
	iova = (dma_addr_t)pfn << PAGE_SHIFT;

	/* A run: entries contiguous in memory and in the range, unmapped. */
	for_each_sg(sgl, sg, nents, i) {
		phys = sg_phys(sg);
		s_len = PAGE_ALIGN(offset_in_page(phys) + sg->length);
		len = smartio_iova_sg_place(len, s_len, mask);
		if (run_len && (iova + len != run + run_len ||
				(phys & PAGE_MASK) != run_phys + run_len)) {
			if (smartio_iova_map_run(w->domain, run, run_phys,
						 run_len, prot))
				goto err;
			pages += run_len >> PAGE_SHIFT;
			run_len = 0;
		}
		if (!run_len) {
			run = iova + len;
			run_phys = phys & PAGE_MASK;
			run_first = i;
		}
		run_len += s_len;
		sg->dma_address = iova + len + offset_in_page(phys) + offset;
		sg_dma_len(sg) = sg->length;
		len += s_len;
	}
	if (smartio_iova_map_run(w->domain, run, run_phys, run_len, prot))
		goto err;
	if (w->domain->ops->iotlb_sync_map)
		w->domain->ops->iotlb_sync_map(w->domain, iova, size);
	atomic_long_add(pages + (run_len >> PAGE_SHIFT), &w->pages);
	smartio_iova_own(w, owner, iova, size >> PAGE_SHIFT);
	return 0;

err:
	/* The runs before this one are mapped. */
	if (run_first) {
		atomic_long_add(pages, &w->pages);
		smartio_iova_unmap_entries(w, sgl, run_first, offset);
	}
	free_iova_fast(&w->iovad, pfn, size >> PAGE_SHIFT);
	return -ENOMEM;
}
EXPORT_SYMBOL_GPL(smartio_iova_map_sg);

/**
 * smartio_iova_unmap_sg() - Undo smartio_iova_map_sg().
 * @w: The window.
 * @owner: As given to it.
 * @sgl: The list it mapped.
 * @nents: As given to it.
 * @offset: As given to it.
 *
 * Any context. Peers' accesses to the list's pages fault once this
 * returns: the IOTLB is flushed before the range is free again. Nothing
 * happens if @owner's range was unmapped by smartio_iova_unmap_owner().
 */
void smartio_iova_unmap_sg(struct smartio_iova_window *w, const void *owner,
			   struct scatterlist *sgl, int nents, u64 offset)
{
	dma_addr_t start = (sg_dma_address(sgl) - offset) & PAGE_MASK;
	unsigned long pages;
	dma_addr_t end;

	if (owner && !smartio_iova_disown(w, owner, start, &pages))
		return;
	end = smartio_iova_unmap_entries(w, sgl, nents, offset);
	if (!owner)
		pages = (end - start) >> PAGE_SHIFT;
	free_iova_fast(&w->iovad, start >> PAGE_SHIFT, pages);
}
EXPORT_SYMBOL_GPL(smartio_iova_unmap_sg);
