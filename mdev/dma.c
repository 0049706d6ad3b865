// SPDX-License-Identifier: GPL-2.0
/*
 * DMA of a mediated device: the VM's driver programs guest-physical
 * addresses (QEMU maps all guest RAM into the container with the IOVA
 * equal to the guest-physical address, before it opens the device), and
 * the device must reach the VM's RAM there, by hardware translation alone.
 *
 * The device's own windows on its lender (DMA and interrupts) share its
 * IOMMU domain with those addresses, so the borrow names the
 * guest-physical space, [0, guest_space_gib GiB), as the user's range,
 * and the lender lays its windows out above it. The VM's RAM itself
 * cannot be known at open: Linux 6.1 registers the device with the
 * container only after open_device returns, and vfio_pin_pages() fails
 * until then. So a VM whose RAM reaches past that space is refused when
 * it turns Bus Master Enable on, the first moment its RAM can be seen.
 *
 * When the VM turns Bus Master Enable on, its RAM is found by pinning
 * (and unpinning) it 2 MiB at a time (vfio_pin_pages() fails for an IOVA
 * the container does not map), then all of it is pinned and mapped at
 * its guest-physical addresses (smartio_borrowed_dma_map(): this node's
 * IOVA window, and the function's IOMMU domain on its lender). When it
 * turns it off, when the device is closed, and when QEMU unmaps a range
 * (vfio's dma_unmap callback, which must leave nothing pinned), what it
 * covers is unmapped and unpinned. Nothing happens per I/O.
 *
 * Memory QEMU maps while Bus Master Enable is on is not seen (vfio tells
 * an emulated IOMMU's device of unmaps only): the device reaches it from
 * the next time the VM turns it on.
 */
#include <linux/iommu.h>
#include <linux/slab.h>
#include <linux/vfio.h>

#include "mdev_priv.h"

/*
 * The guest-physical space a VM's RAM may take, its RAM below and above
 * 4 GiB: the device's own windows on its lender go above it, within the
 * 39 bits (512 GiB) every VT-d unit translates.
 */
static unsigned int guest_space_gib = 256;
module_param(guest_space_gib, uint, 0444);
MODULE_PARM_DESC(guest_space_gib,
		 "the guest-physical space in GiB a VM's RAM may take, below the device's windows on its lender (default 256, at most 511)");

/**
 * smartio_mdev_dma_init() - Checks the module's parameters.
 *
 * Return: 0, or -EINVAL for a guest space of none or of all 512 GiB.
 */
int smartio_mdev_dma_init(void)
{
	if (guest_space_gib && guest_space_gib < 512)
		return 0;
	pr_err("smartio_mdev: guest_space_gib=%u: must be 1 to 511, to leave the device's windows room below 512 GiB\n",
	       guest_space_gib);
	return -EINVAL;
}

static u64 smartio_mdev_guest_space(void)
{
	return (u64)guest_space_gib << 30;
}

/* Pages a vfio_pin_pages() call takes at most, and a probe's step. */
#define SMARTIO_MDEV_CHUNK_PAGES	VFIO_PIN_PAGES_MAX_ENTRIES
#define SMARTIO_MDEV_CHUNK	((u64)SMARTIO_MDEV_CHUNK_PAGES << PAGE_SHIFT)

/**
 * struct smartio_mdev_chunk - Guest RAM pinned and mapped for the device.
 * @list: In smartio_mdev.chunks.
 * @iova: Its guest-physical address.
 * @npages: Its pages, at most SMARTIO_MDEV_CHUNK_PAGES.
 */
struct smartio_mdev_chunk {
	struct list_head list;
	u64 iova;
	int npages;
};

/* Are @npages pages at @iova all mapped in the container? */
static bool smartio_mdev_mapped(struct smartio_mdev *sm, u64 iova, int npages,
				struct page **pages)
{
	int ret;

	ret = vfio_pin_pages(&sm->vdev, iova, npages, IOMMU_READ, pages);
	if (ret != npages) {
		if (ret > 0)
			vfio_unpin_pages(&sm->vdev, iova, ret);
		return false;
	}
	vfio_unpin_pages(&sm->vdev, iova, npages);
	return true;
}

/* Adds [@start, @end) to the RAM found, merged with the run it ends. */
static void smartio_mdev_ram_add(struct smartio_mdev *sm, u64 start, u64 end)
{
	struct smartio_dma_range *r = sm->ram;
	int n = sm->nr_ram;

	if (n && r[n - 1].start + r[n - 1].size == start) {
		r[n - 1].size += end - start;
		return;
	}
	if (n < ARRAY_SIZE(sm->ram)) {
		r[n].start = start;
		r[n].size = end - start;
		sm->nr_ram++;
		return;
	}
	/* No room: the last one grows to cover it (its hull). */
	r[n - 1].size = end - r[n - 1].start;
}

/*
 * Finds the RAM in [@from, @to), a chunk at a time, a page at a time in
 * a chunk that is mapped in part; with @until_hole, stops at the first
 * chunk that is not.
 */
static void smartio_mdev_ram_scan(struct smartio_mdev *sm, u64 from, u64 to,
				  bool until_hole, struct page **pages)
{
	u64 iova, page;

	for (iova = from; iova < to; iova += SMARTIO_MDEV_CHUNK) {
		if (smartio_mdev_mapped(sm, iova, SMARTIO_MDEV_CHUNK_PAGES,
					pages)) {
			smartio_mdev_ram_add(sm, iova, iova + SMARTIO_MDEV_CHUNK);
			continue;
		}
		if (!smartio_mdev_mapped(sm, iova, 1, pages) &&
		    !smartio_mdev_mapped(sm, iova + SMARTIO_MDEV_CHUNK - PAGE_SIZE,
					 1, pages)) {
			if (until_hole)
				return;
			continue;
		}
		for (page = iova; page < iova + SMARTIO_MDEV_CHUNK;
		     page += PAGE_SIZE)
			if (smartio_mdev_mapped(sm, page, 1, pages))
				smartio_mdev_ram_add(sm, page, page + PAGE_SIZE);
	}
}

/*
 * Finds the VM's RAM in the container. Called with @sm->lock held.
 *
 * Below 4 GiB all of it is scanned; above, from 4 GiB (where QEMU puts
 * the rest of a VM's RAM) until the first hole. A chunk whose first and
 * last pages are unmapped counts as a hole.
 *
 * Return: 0, or -ENOMEM.
 */
static int smartio_mdev_dma_probe(struct smartio_mdev *sm)
{
	struct page **pages;
	int i;

	lockdep_assert_held(&sm->lock);
	pages = kcalloc(SMARTIO_MDEV_CHUNK_PAGES, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	sm->nr_ram = 0;
	smartio_mdev_ram_scan(sm, 0, SZ_4G, false, pages);
	smartio_mdev_ram_scan(sm, SZ_4G, U64_MAX - SMARTIO_MDEV_CHUNK + 1,
			      true, pages);
	kfree(pages);
	for (i = 0; i < sm->nr_ram; i++)
		dev_info(&sm->mdev->dev, "the VM's RAM: %#llx-%#llx\n",
			 sm->ram[i].start,
			 sm->ram[i].start + sm->ram[i].size - 1);
	return 0;
}

/**
 * smartio_mdev_dma_space() - The device addresses the VM's RAM may take.
 * @range: Set to [0, guest_space_gib GiB): the borrow's user range.
 */
void smartio_mdev_dma_space(struct smartio_dma_range *range)
{
	range->start = 0;
	range->size = smartio_mdev_guest_space();
}

/*
 * Does the VM's RAM fit the guest space? Called with @sm->lock held,
 * after smartio_mdev_dma_probe().
 */
static int smartio_mdev_ram_fits(struct smartio_mdev *sm)
{
	u64 end;

	lockdep_assert_held(&sm->lock);
	if (!sm->nr_ram)
		return 0;
	end = sm->ram[sm->nr_ram - 1].start + sm->ram[sm->nr_ram - 1].size;
	if (end <= smartio_mdev_guest_space())
		return 0;
	dev_err(&sm->mdev->dev, "fdid %x: the VM's RAM reaches %#llx, past the %u GiB of guest-physical space its device's windows on the lender leave it (smartio_mdev guest_space_gib): not mapped for the device; give the VM less RAM or load smartio_mdev with more space\n",
		sm->fdid, end - 1, guest_space_gib);
	return -ENOSPC;
}

/* Unmaps and unpins @c, and frees it. Called with @sm->lock held. */
static void smartio_mdev_chunk_put(struct smartio_mdev *sm,
				   struct smartio_mdev_chunk *c)
{
	smartio_borrowed_dma_unmap(sm->borrowed, c->iova,
				   (u64)c->npages << PAGE_SHIFT);
	vfio_unpin_pages(&sm->vdev, c->iova, c->npages);
	list_del(&c->list);
	kfree(c);
}

/*
 * Pins and maps @npages pages at @iova for the device. Called with
 * @sm->lock held.
 */
static int smartio_mdev_chunk_get(struct smartio_mdev *sm, u64 iova,
				  int npages, struct page **pages)
{
	struct smartio_mdev_chunk *c;
	int ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ret = vfio_pin_pages(&sm->vdev, iova, npages,
			     IOMMU_READ | IOMMU_WRITE, pages);
	if (ret != npages) {
		if (ret > 0)
			vfio_unpin_pages(&sm->vdev, iova, ret);
		kfree(c);
		return ret < 0 ? ret : -EFAULT;
	}
	ret = smartio_borrowed_dma_map(sm->borrowed, iova, pages, npages,
				       IOMMU_READ | IOMMU_WRITE);
	if (ret) {
		vfio_unpin_pages(&sm->vdev, iova, npages);
		kfree(c);
		return ret;
	}
	c->iova = iova;
	c->npages = npages;
	list_add_tail(&c->list, &sm->chunks);
	return 0;
}

/* Not mapped writable in the container (a hole, a ROM): not for the device. */
static bool smartio_mdev_not_ram(int ret)
{
	return ret == -EINVAL || ret == -EPERM;
}

/*
 * Maps what is RAM of @npages pages at @iova: all at once, or, where
 * some is not, a page at a time. Called with @sm->lock held.
 */
static int smartio_mdev_dma_map_run(struct smartio_mdev *sm, u64 iova,
				    int npages, struct page **pages)
{
	int i, ret;

	ret = smartio_mdev_chunk_get(sm, iova, npages, pages);
	if (!smartio_mdev_not_ram(ret) || npages == 1)
		return smartio_mdev_not_ram(ret) ? 0 : ret;
	for (i = 0; i < npages; i++) {
		ret = smartio_mdev_chunk_get(sm, iova + ((u64)i << PAGE_SHIFT),
					     1, pages);
		if (ret && !smartio_mdev_not_ram(ret))
			return ret;
	}
	return 0;
}

/**
 * smartio_mdev_dma_off() - The device reaches no guest RAM any more.
 * @sm: The mdev, open. Called with @sm->lock held.
 */
void smartio_mdev_dma_off(struct smartio_mdev *sm)
{
	struct smartio_mdev_chunk *c, *next;

	lockdep_assert_held(&sm->lock);
	smartio_mdev_p2p_off(sm);
	list_for_each_entry_safe(c, next, &sm->chunks, list)
		smartio_mdev_chunk_put(sm, c);
}

/**
 * smartio_mdev_dma_on() - The device reaches all of the VM's RAM.
 * @sm: The mdev, open, its device mapping nothing. Called with @sm->lock
 *	held, as the VM turns Bus Master Enable on.
 *
 * Return: 0, or the first error, with nothing left mapped and one line in
 * the log.
 */
int smartio_mdev_dma_on(struct smartio_mdev *sm)
{
	struct page **pages;
	u64 iova = 0, end;
	int i, ret;

	lockdep_assert_held(&sm->lock);
	ret = smartio_mdev_dma_probe(sm);
	if (!ret)
		ret = smartio_mdev_ram_fits(sm);
	if (ret)
		return ret;
	pages = kcalloc(SMARTIO_MDEV_CHUNK_PAGES, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; !ret && i < sm->nr_ram; i++) {
		end = sm->ram[i].start + sm->ram[i].size;
		for (iova = sm->ram[i].start; !ret && iova < end;
		     iova += SMARTIO_MDEV_CHUNK) {
			int npages = min_t(u64, SMARTIO_MDEV_CHUNK,
					   end - iova) >> PAGE_SHIFT;

			/* A hull may hold holes: what is RAM of it. */
			ret = smartio_mdev_dma_map_run(sm, iova, npages, pages);
		}
	}
	kfree(pages);
	if (ret) {
		dev_err(&sm->mdev->dev, "fdid %x: guest RAM not mapped for the device at %#llx (%pe): it reaches none\n",
			sm->fdid, iova, ERR_PTR(ret));
		smartio_mdev_dma_off(sm);
		return ret;
	}
	dev_info(&sm->mdev->dev, "fdid %x: bus master: the VM's RAM mapped for it, in %zu ranges\n",
		 sm->fdid, list_count_nodes(&sm->chunks));
	smartio_mdev_p2p_on(sm);
	return 0;
}

/**
 * smartio_mdev_dma_unmap() - QEMU unmaps [@iova, @iova + @length).
 * @vdev: The mdev's VFIO device.
 * @iova: Start of the range.
 * @length: Its size.
 *
 * Every chunk it meets is unmapped and unpinned: type1 BUGs on a page
 * left pinned in an unmapped range, so this finishes even when the
 * lender cannot be reached (the unmap is this node's then).
 */
void smartio_mdev_dma_unmap(struct vfio_device *vdev, u64 iova, u64 length)
{
	struct smartio_mdev *sm = container_of(vdev, struct smartio_mdev, vdev);
	struct smartio_mdev_chunk *c, *next;

	mutex_lock(&sm->lock);
	list_for_each_entry_safe(c, next, &sm->chunks, list)
		if (c->iova < iova + length &&
		    iova < c->iova + ((u64)c->npages << PAGE_SHIFT))
			smartio_mdev_chunk_put(sm, c);
	mutex_unlock(&sm->lock);
}
