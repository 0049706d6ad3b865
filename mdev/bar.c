// SPDX-License-Identifier: GPL-2.0
/*
 * The BARs of a mediated device: the borrowed function's memory BARs, as
 * this node reaches them through its NTB windows (the shadow's
 * resources). A VM maps them and reaches the function with no trap and no
 * software in between (mmap, faulted in a page at a time, uncached); the
 * region's read and write are for what is not mapped.
 *
 * But the MSI-X table and its PBA: the shadow's MSI-X vectors are this
 * node's interrupts, programmed by this node (intrs, through the PCI
 * API), and a message the VM wrote there could reach any vector the
 * NTB's requester ID may raise here. QEMU emulates both for the VM
 * anyway (hw/vfio/pci.c): they are left out of the sparse mmap areas,
 * and read, written and mapped nowhere else.
 *
 * Losing the device zaps every mapping. A touch then finds a page of all
 * ones, as reads of a PCIe function that is gone complete, and the
 * writes go no further than that page (the mdev's own, no other VM's):
 * a guest's driver sees its device removed, as on hardware, where a
 * SIGBUS would stop a KVM guest whole. Read and write fail with EIO, which
 * QEMU too turns into all ones.
 */
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mdev_priv.h"

/* Is BAR @bar a memory BAR the VM reaches? */
static bool smartio_mdev_bar_valid(struct smartio_mdev *sm, int bar)
{
	return bar >= 0 && bar < PCI_STD_NUM_BARS && sm->bar_map[bar];
}

/*
 * The pages of BAR @bar that hold its MSI-X table and PBA, as
 * [start, end) pairs; none where it holds neither.
 */
static int smartio_mdev_msix_pages(struct smartio_mdev *sm, int bar,
				   u64 start[2], u64 end[2])
{
	struct pci_dev *pdev = sm->pdev;
	u32 table, pba;
	u16 flags;
	int n = 0;

	if (!pdev->msix_cap)
		return 0;
	pci_read_config_word(pdev, pdev->msix_cap + PCI_MSIX_FLAGS, &flags);
	pci_read_config_dword(pdev, pdev->msix_cap + PCI_MSIX_TABLE, &table);
	pci_read_config_dword(pdev, pdev->msix_cap + PCI_MSIX_PBA, &pba);
	if ((table & PCI_MSIX_TABLE_BIR) == bar) {
		start[n] = round_down(table & PCI_MSIX_TABLE_OFFSET, PAGE_SIZE);
		end[n++] = PAGE_ALIGN((table & PCI_MSIX_TABLE_OFFSET) +
				      ((flags & PCI_MSIX_FLAGS_QSIZE) + 1) *
				      PCI_MSIX_ENTRY_SIZE);
	}
	if ((pba & PCI_MSIX_PBA_BIR) == bar) {
		start[n] = round_down(pba & PCI_MSIX_PBA_OFFSET, PAGE_SIZE);
		end[n++] = PAGE_ALIGN((pba & PCI_MSIX_PBA_OFFSET) +
				      DIV_ROUND_UP((flags & PCI_MSIX_FLAGS_QSIZE) +
						   1, 64) * 8);
	}
	if (n == 2 && start[1] < start[0]) {
		swap(start[0], start[1]);
		swap(end[0], end[1]);
	}
	return n;
}

/* Does [@off, @off + @len) of BAR @bar meet its MSI-X table or PBA? */
static bool smartio_mdev_msix_meets(struct smartio_mdev *sm, int bar,
				    u64 off, u64 len)
{
	u64 start[2], end[2];
	int i, n;

	n = smartio_mdev_msix_pages(sm, bar, start, end);
	for (i = 0; i < n; i++)
		if (off < end[i] && start[i] < off + len)
			return true;
	return false;
}

/**
 * smartio_mdev_bars_open() - Reach the BARs of a device just borrowed.
 * @sm: The mdev, its shadow set. Called with @sm->lock held.
 *
 * Return: 0, or -ENOMEM if a BAR cannot be mapped.
 */
int smartio_mdev_bars_open(struct smartio_mdev *sm)
{
	int i;

	lockdep_assert_held(&sm->lock);
	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		if (!(pci_resource_flags(sm->pdev, i) & IORESOURCE_MEM) ||
		    !pci_resource_len(sm->pdev, i))
			continue;
		sm->bar_map[i] = pci_iomap(sm->pdev, i, 0);
		if (!sm->bar_map[i]) {
			smartio_mdev_bars_close(sm);
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * smartio_mdev_bars_close() - Undo smartio_mdev_bars_open().
 * @sm: The mdev, no mapping of it left (its file is closed). Called with
 *	@sm->lock held.
 */
void smartio_mdev_bars_close(struct smartio_mdev *sm)
{
	int i;

	lockdep_assert_held(&sm->lock);
	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		if (sm->bar_map[i])
			pci_iounmap(sm->pdev, sm->bar_map[i]);
		sm->bar_map[i] = NULL;
	}
	if (sm->lost_page)
		__free_page(sm->lost_page);
	sm->lost_page = NULL;
}

/**
 * smartio_mdev_bar_info() - A BAR's region, for VFIO_DEVICE_GET_REGION_INFO.
 * @sm: The mdev, open. Called with @sm->lock held.
 * @info: Its index set; its size and flags are filled in.
 * @caps: Where its sparse mmap areas go: all of it but the MSI-X table
 *	and PBA pages.
 *
 * Return: 0 (a BAR that is not one of memory has size 0), or -ENOMEM.
 */
int smartio_mdev_bar_info(struct smartio_mdev *sm,
			  struct vfio_region_info *info,
			  struct vfio_info_cap *caps)
{
	struct vfio_region_info_cap_sparse_mmap *sparse;
	u64 start[2], end[2], at = 0;
	int bar = info->index, i, n, nr = 0;
	size_t size;
	u64 len;
	int ret;

	if (!smartio_mdev_bar_valid(sm, bar))
		return 0;
	len = pci_resource_len(sm->pdev, bar);
	info->size = len;
	info->flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE |
		      VFIO_REGION_INFO_FLAG_MMAP;
	n = smartio_mdev_msix_pages(sm, bar, start, end);
	size = struct_size(sparse, areas, n + 1);
	sparse = kzalloc(size, GFP_KERNEL);
	if (!sparse)
		return -ENOMEM;
	sparse->header.id = VFIO_REGION_INFO_CAP_SPARSE_MMAP;
	sparse->header.version = 1;
	for (i = 0; i <= n; i++) {
		u64 stop = i < n ? min(start[i], len) : len;

		if (stop > at) {
			sparse->areas[nr].offset = at;
			sparse->areas[nr++].size = stop - at;
		}
		if (i < n)
			at = max(at, end[i]);
	}
	sparse->nr_areas = nr;
	ret = vfio_info_add_capability(caps, &sparse->header,
				       struct_size(sparse, areas, nr));
	kfree(sparse);
	return ret;
}

/**
 * smartio_mdev_bar_rw() - The VM reads or writes a BAR through its region.
 * @sm: The mdev, open. Called with @sm->lock held.
 * @bar: The BAR.
 * @buf: The VM's bytes.
 * @count: How many.
 * @pos: Where in the BAR.
 * @write: A write.
 *
 * In the largest aligned pieces, up to 4 bytes, as vfio-pci.
 * Return: The bytes done, or -errno: -EINVAL outside the BAR, -EPERM in
 * its MSI-X table or PBA, -EIO once the device is lost.
 */
ssize_t smartio_mdev_bar_rw(struct smartio_mdev *sm, int bar,
			    char __user *buf, size_t count, loff_t pos,
			    bool write)
{
	void __iomem *io;
	size_t done = 0;
	int size;
	u32 val;

	lockdep_assert_held(&sm->lock);
	if (!smartio_mdev_bar_valid(sm, bar) ||
	    pos >= pci_resource_len(sm->pdev, bar) ||
	    count > pci_resource_len(sm->pdev, bar) - pos)
		return -EINVAL;
	if (smartio_mdev_msix_meets(sm, bar, pos, count))
		return -EPERM;
	io = sm->bar_map[bar] + pos;
	while (done < count) {
		if (READ_ONCE(sm->lost))
			return -EIO;
		size = (count - done >= 4 && !(pos & 3)) ? 4 :
		       (count - done >= 2 && !(pos & 1)) ? 2 : 1;
		if (write) {
			if (copy_from_user(&val, buf + done, size))
				return -EFAULT;
			if (size == 4)
				iowrite32(val, io + done);
			else if (size == 2)
				iowrite16(val, io + done);
			else
				iowrite8(val, io + done);
		} else {
			val = size == 4 ? ioread32(io + done) :
			      size == 2 ? ioread16(io + done) :
			      ioread8(io + done);
			if (copy_to_user(buf + done, &val, size))
				return -EFAULT;
		}
		done += size;
		pos += size;
	}
	return done;
}

/*
 * The mappings of the BARs, each tracked from its first fault until it is
 * closed or zapped: the device file is an anonymous inode's, whose
 * address space every such file shares, so the mappings are zapped one
 * by one (as vfio-pci does in 6.1). map_lock is taken under a mapping's
 * mmap lock, never the other way round.
 */
struct smartio_mdev_vma {
	struct list_head list;
	struct vm_area_struct *vma;
};

/* Called with map_lock held. */
static struct smartio_mdev_vma *
smartio_mdev_vma_find(struct smartio_mdev *sm, struct vm_area_struct *vma)
{
	struct smartio_mdev_vma *mv;

	lockdep_assert_held(&sm->map_lock);
	list_for_each_entry(mv, &sm->vmas, list)
		if (mv->vma == vma)
			return mv;
	return NULL;
}

/*
 * A page of a BAR mapping, faulted in: uncached, straight onto the NTB
 * window; once the device is lost, its lost_page (SIGBUS if it has none).
 * The loss sets sm->lost under map_lock before it zaps what is tracked,
 * so that no page of the window is inserted after the zap.
 */
static vm_fault_t smartio_mdev_bar_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct smartio_mdev *sm = vma->vm_private_data;
	struct smartio_mdev_vma *mv;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	mutex_lock(&sm->map_lock);
	if (sm->lost) {
		if (sm->lost_page)
			ret = vmf_insert_pfn(vma, vmf->address,
					     page_to_pfn(sm->lost_page));
		goto unlock;
	}
	if (!smartio_mdev_vma_find(sm, vma)) {
		mv = kmalloc(sizeof(*mv), GFP_KERNEL);
		if (!mv) {
			ret = VM_FAULT_OOM;
			goto unlock;
		}
		mv->vma = vma;
		list_add(&mv->list, &sm->vmas);
	}
	ret = vmf_insert_pfn(vma, vmf->address, vma->vm_pgoff +
			     ((vmf->address - vma->vm_start) >> PAGE_SHIFT));
unlock:
	mutex_unlock(&sm->map_lock);
	return ret;
}

/* A copy of a mapping (fork, a split): it faults its pages in anew. */
static void smartio_mdev_bar_vm_open(struct vm_area_struct *vma)
{
	zap_vma_ptes(vma, vma->vm_start, vma->vm_end - vma->vm_start);
}

static void smartio_mdev_bar_vm_close(struct vm_area_struct *vma)
{
	struct smartio_mdev *sm = vma->vm_private_data;
	struct smartio_mdev_vma *mv;

	mutex_lock(&sm->map_lock);
	mv = smartio_mdev_vma_find(sm, vma);
	if (mv) {
		list_del(&mv->list);
		kfree(mv);
	}
	mutex_unlock(&sm->map_lock);
}

static const struct vm_operations_struct smartio_mdev_bar_vm_ops = {
	.open = smartio_mdev_bar_vm_open,
	.close = smartio_mdev_bar_vm_close,
	.fault = smartio_mdev_bar_fault,
};

/**
 * smartio_mdev_mmap() - Map (part of) a BAR for the VM.
 * @vdev: The mdev's VFIO device, open.
 * @vma: The mapping: its offset names the region, as the region's info
 *	gave it, and a page-aligned place in it.
 *
 * Return: 0; -EINVAL for a region that is no memory BAR or a range past
 * it, -EPERM over its MSI-X table or PBA, -EIO once the device is lost.
 */
int smartio_mdev_mmap(struct vfio_device *vdev, struct vm_area_struct *vma)
{
	struct smartio_mdev *sm = container_of(vdev, struct smartio_mdev, vdev);
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	int bar = SMARTIO_MDEV_OFFSET_INDEX(off);
	u64 len = vma->vm_end - vma->vm_start;
	int ret = 0;

	off &= SMARTIO_MDEV_OFFSET_MASK;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	/*
	 * Not under sm->lock, which an open holds across a borrow, whose
	 * loss takes the mmap lock we are called with: the device is open
	 * throughout (its file is), and what an open sets stays.
	 */
	if (!smartio_mdev_bar_valid(sm, bar) ||
	    off >= pci_resource_len(sm->pdev, bar) ||
	    len > pci_resource_len(sm->pdev, bar) - off)
		ret = -EINVAL;
	else if (smartio_mdev_msix_meets(sm, bar, off, len))
		ret = -EPERM;
	else if (READ_ONCE(sm->lost))
		ret = -EIO;
	if (!ret) {
		/* From here on the offset is the first page's frame. */
		vma->vm_pgoff = (pci_resource_start(sm->pdev, bar) + off) >>
				PAGE_SHIFT;
		vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
		vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP;
		vma->vm_private_data = sm;
		vma->vm_ops = &smartio_mdev_bar_vm_ops;
	}
	return ret;
}

/**
 * smartio_mdev_bars_lost() - The device is gone: no mapping reaches it.
 * @sm: The mdev. Called from the loss callback, with the borrower's lock
 *	held: not @sm->lock, which its open holds across a borrow.
 *
 * Each tracked mapping is zapped under its mm's mmap lock; one whose mm
 * is exiting goes with it. Their next touch finds the lost page.
 */
void smartio_mdev_bars_lost(struct smartio_mdev *sm)
{
	struct page *lost_page = alloc_page(GFP_KERNEL);
	struct smartio_mdev_vma *mv, *next;
	struct mm_struct *mm;

	if (lost_page)
		memset(page_address(lost_page), 0xff, PAGE_SIZE);
	mutex_lock(&sm->map_lock);
	/* One loss per open: smartio_mdev_bars_close() frees it. */
	if (!sm->lost_page)
		swap(sm->lost_page, lost_page);
	WRITE_ONCE(sm->lost, true);
	while (!list_empty(&sm->vmas)) {
		mm = list_first_entry(&sm->vmas, struct smartio_mdev_vma,
				      list)->vma->vm_mm;
		if (!mmget_not_zero(mm)) {
			list_for_each_entry_safe(mv, next, &sm->vmas, list) {
				if (mv->vma->vm_mm != mm)
					continue;
				list_del(&mv->list);
				kfree(mv);
			}
			continue;
		}
		/* The mmap lock first, as a fault takes them. */
		mutex_unlock(&sm->map_lock);
		mmap_read_lock(mm);
		mutex_lock(&sm->map_lock);
		list_for_each_entry_safe(mv, next, &sm->vmas, list) {
			if (mv->vma->vm_mm != mm)
				continue;
			zap_vma_ptes(mv->vma, mv->vma->vm_start,
				     mv->vma->vm_end - mv->vma->vm_start);
			list_del(&mv->list);
			kfree(mv);
		}
		mutex_unlock(&sm->map_lock);
		mmap_read_unlock(mm);
		mmput(mm);
		mutex_lock(&sm->map_lock);
	}
	mutex_unlock(&sm->map_lock);
	if (lost_page)
		__free_page(lost_page);
}
