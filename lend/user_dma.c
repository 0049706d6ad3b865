// SPDX-License-Identifier: GPL-2.0
/*
 * DMA at device addresses a kernel user of the borrower chooses
 * (smartio_borrowed_dma_map(), include/smartio/borrow.h): the mdev driver
 * maps a guest's RAM at its guest-physical addresses, so that the guest's
 * driver programs those into the device unchanged.
 *
 * A shadow's driver gets device addresses from the DMA API (shadow.c): the
 * lender's IOMMU domain for the function holds one window onto the
 * borrower's whole DMA range, and each map picks a free address in it. A
 * user who names the address instead needs one mapping per range on both
 * sides: on the borrower, the pages go into the NTB's IOVA window, at a
 * free place there, as any map; on the lender, the function's domain maps
 * the device address onto that place of its window onto the borrower. One
 * message per range, when the user maps it (all of a guest's RAM, once),
 * nothing per I/O.
 *
 * The lender judges each range: whole pages, inside its window onto the
 * borrower's range, inside the domain's aperture, and clear of what the
 * domain holds already (its windows onto the borrower, the group's
 * reserved regions, the BARs under the function's host bridge, which
 * p2p.c may map at their bus addresses, and the ranges mapped before).
 * Its windows keep clear of the user's ranges that the borrow named
 * (smartio_lent_layout()); a map that meets one of them anyway is refused.
 *
 * Teardown: the lender's ranges go with the function's domain when it is
 * taken back. On the borrower, what the user left mapped goes when the
 * device does, after its DMA stopped: at its return, or before its user
 * is told it was lost, so that the user may free the pages then.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interval_tree_generic.h>
#include <linux/iommu.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "smartio/ntb.h"
#include "lend_priv.h"

/* A peer's ranges cost the lender memory: bound them per function. */
#define SMARTIO_USER_DMA_MAX_RANGES	16384

/**
 * struct smartio_user_dma_range - A range mapped at a user's address.
 * @rb: Its place in the tree of ranges, by device address.
 * @start: Its first device address.
 * @last: Its last device address.
 * @subtree_last: The tree's: the highest @last below this one.
 * @offset: Where it lies in the borrower's DMA range.
 */
struct smartio_user_dma_range {
	struct rb_node rb;
	u64 start;
	u64 last;
	u64 subtree_last;
	u64 offset;
};

/*
 * The tree's code is our own instance of the kernel's generic one, not
 * lib/interval_tree.c: that is built only when something selects
 * CONFIG_INTERVAL_TREE, which a kernel with NTB need not have (the debug
 * kernel had not), and it keeps device addresses as unsigned long.
 */
#define smartio_range_start(r)	((r)->start)
#define smartio_range_last(r)	((r)->last)
INTERVAL_TREE_DEFINE(struct smartio_user_dma_range, rb, u64, subtree_last,
		     smartio_range_start, smartio_range_last, static inline,
		     smartio_range)

/* The first range that meets [@start, @last], if any. */
static struct smartio_user_dma_range *
smartio_user_dma_meets(struct smartio_user_dma *ud, u64 start, u64 last)
{
	return smartio_range_iter_first(&ud->ranges, start, last);
}

/* The range mapped at exactly [@start, @start + @size), if any. */
static struct smartio_user_dma_range *
smartio_user_dma_find(struct smartio_user_dma *ud, u64 start, u64 size)
{
	struct smartio_user_dma_range *r;

	r = smartio_user_dma_meets(ud, start, start);
	if (!r || r->start != start || r->last != start + size - 1)
		return NULL;
	return r;
}

static int smartio_user_dma_add(struct smartio_user_dma *ud, u64 start,
				u64 size, u64 offset)
{
	struct smartio_user_dma_range *r;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->start = start;
	r->last = start + size - 1;
	r->offset = offset;
	smartio_range_insert(r, &ud->ranges);
	ud->count++;
	return 0;
}

static void smartio_user_dma_del(struct smartio_user_dma *ud,
				 struct smartio_user_dma_range *r)
{
	smartio_range_remove(r, &ud->ranges);
	ud->count--;
	kfree(r);
}

/**
 * smartio_user_dma_clear() - Forget every range.
 * @ud: The ranges, of a function whose domain goes, or of a shadow whose
 *	window mappings went.
 */
void smartio_user_dma_clear(struct smartio_user_dma *ud)
{
	struct smartio_user_dma_range *r;

	while ((r = smartio_user_dma_meets(ud, 0, U64_MAX)))
		smartio_user_dma_del(ud, r);
}

/* --- the lender --- */

/* Does [@start, @last] meet a reserved region of @pdev's group? */
static bool smartio_user_dma_reserved(struct pci_dev *pdev, u64 start,
				      u64 last)
{
	const struct iommu_resv_region *r;
	struct iommu_group *group;
	LIST_HEAD(resv);
	bool meets = true;

	group = iommu_group_get(&pdev->dev);
	if (!group)
		return true;
	if (!iommu_get_group_resv_regions(group, &resv)) {
		meets = false;
		list_for_each_entry(r, &resv, list)
			if (r->length && start <= r->start + r->length - 1 &&
			    r->start <= last)
				meets = true;
	}
	iommu_put_resv_regions(&pdev->dev, &resv);
	iommu_group_put(group);
	return meets;
}

/*
 * Why [@start, @start + @size) may not be mapped in @t's domain: what
 * holds some of it already. NULL where nothing does.
 */
static const char *smartio_user_dma_clash(struct smartio_user_dma *ud,
					  const struct smartio_user_dma_target *t,
					  u64 start, u64 size)
{
	u64 last = start + size - 1;
	u64 next;
	int i;

	for (i = 0; i < ARRAY_SIZE(t->fixed->windows); i++)
		if (t->fixed->windows[i].size &&
		    start < t->fixed->windows[i].start +
			    t->fixed->windows[i].size &&
		    t->fixed->windows[i].start <= last)
			return "they meet its windows onto the borrower";
	/*
	 * Its domain maps its peers' BARs at their bus addresses, unless its
	 * user chooses its addresses (p2p.c): then only what a bridge above
	 * it routes away from the IOMMU is out of reach.
	 */
	if (t->fixed->user_addressed ?
	    smartio_p2p_routed_below(t->pdev, start, size) :
	    smartio_p2p_clash(t->pdev, start, size, &next))
		return t->fixed->user_addressed ?
		       "they meet a memory window of a bridge above it" :
		       "they meet BARs under its host bridge";
	if (smartio_user_dma_reserved(t->pdev, start, last))
		return "they meet a reserved region of its IOMMU group";
	if (smartio_user_dma_meets(ud, start, last))
		return "they meet a range mapped before";
	if (smartio_p2p_peer_meets(t->fixed, start, last))
		return "they meet a peer's BAR mapped before";
	return NULL;
}

/*
 * Is [@start, @start + @size) outside @t's domain's aperture? Logged, one
 * line: a peer may ask as often as it likes.
 */
static bool smartio_user_dma_past_aperture(const struct smartio_user_dma_target *t,
					   u64 start, u64 size)
{
	const struct iommu_domain_geometry *geo = &t->domain->geometry;

	if (!geo->force_aperture || (start >= geo->aperture_start &&
				     start + size - 1 <= geo->aperture_end))
		return false;
	pci_info_ratelimited(t->pdev, "device addresses %#llx-%#llx asked for by node %u: refused, past its IOMMU domain's aperture\n",
			     start, start + size - 1, t->fixed->node);
	return true;
}

/* Does anything hold some of the range? Logged as above. */
static bool smartio_user_dma_held(struct smartio_user_dma *ud,
				  const struct smartio_user_dma_target *t,
				  u64 start, u64 size)
{
	const char *held = smartio_user_dma_clash(ud, t, start, size);

	if (held)
		pci_info_ratelimited(t->pdev, "device addresses %#llx-%#llx asked for by node %u: refused, %s\n",
				     start, start + size - 1, t->fixed->node,
				     held);
	return held;
}

/**
 * smartio_user_dma_range_ok() - Is [@start, @start + @size) a range to map?
 * @start: First device address.
 * @size: Bytes.
 *
 * Return: Whether it is whole pages, not empty, and does not wrap.
 */
bool smartio_user_dma_range_ok(u64 start, u64 size)
{
	return size && PAGE_ALIGNED(start) && PAGE_ALIGNED(size) &&
	       start + size - 1 >= start;
}

/**
 * smartio_user_dma_map() - Serve a borrower's SMARTIO_MSG_OP_DMA_MAP.
 * @ud: The function's ranges.
 * @t: The function's domain and windows.
 * @req: The request, unchecked.
 *
 * Called with smartio_lender_lock held, the function lent to the node
 * that asks.
 * Return: 0; -EINVAL for a malformed request, -EOPNOTSUPP where the
 * function has no IOMMU domain, -ERANGE for a range outside the window
 * onto the borrower or past the domain's aperture, -EEXIST where the
 * domain holds some of the range already, -ENOSPC past
 * SMARTIO_USER_DMA_MAX_RANGES, or the IOMMU's error. The aperture and
 * -EEXIST are logged, one line each.
 */
int smartio_user_dma_map(struct smartio_user_dma *ud,
			 const struct smartio_user_dma_target *t,
			 const struct smartio_dma_map_req *req)
{
	u32 flags = le32_to_cpu(req->flags);
	u64 start = le64_to_cpu(req->dev_addr);
	u64 offset = le64_to_cpu(req->offset);
	u64 size = le64_to_cpu(req->size);
	int prot = IOMMU_MMIO;
	int ret;

	if (!flags || flags & ~(SMARTIO_DMA_MAP_READ | SMARTIO_DMA_MAP_WRITE) ||
	    !smartio_user_dma_range_ok(start, size) || !PAGE_ALIGNED(offset))
		return -EINVAL;
	if (!t->domain)
		return -EOPNOTSUPP;
	if (offset > t->window_size || size > t->window_size - offset)
		return -ERANGE;
	if (smartio_user_dma_past_aperture(t, start, size))
		return -ERANGE;
	if (smartio_user_dma_held(ud, t, start, size))
		return -EEXIST;
	if (ud->count >= SMARTIO_USER_DMA_MAX_RANGES)
		return -ENOSPC;
	ret = smartio_user_dma_add(ud, start, size, offset);
	if (ret)
		return ret;
	if (flags & SMARTIO_DMA_MAP_READ)
		prot |= IOMMU_READ;
	if (flags & SMARTIO_DMA_MAP_WRITE)
		prot |= IOMMU_WRITE;
	ret = iommu_map(t->domain, start, t->window + offset, size, prot);
	if (ret)
		smartio_user_dma_del(ud, smartio_user_dma_find(ud, start, size));
	return ret;
}

/**
 * smartio_user_dma_unmap() - Serve a borrower's SMARTIO_MSG_OP_DMA_UNMAP.
 * @ud: The function's ranges.
 * @t: The function's domain and windows.
 * @req: The request, unchecked: the fields of a map, flags 0.
 *
 * Called with smartio_lender_lock held, the function lent to the node
 * that asks. Once it returns, the function reaches the range no more.
 * Return: 0, -EINVAL for a malformed request, -ENOENT if no such range
 * was mapped.
 */
int smartio_user_dma_unmap(struct smartio_user_dma *ud,
			   const struct smartio_user_dma_target *t,
			   const struct smartio_dma_map_req *req)
{
	u64 start = le64_to_cpu(req->dev_addr);
	u64 size = le64_to_cpu(req->size);
	struct smartio_user_dma_range *r;

	if (req->flags || !smartio_user_dma_range_ok(start, size))
		return -EINVAL;
	r = smartio_user_dma_find(ud, start, size);
	if (!r || r->offset != le64_to_cpu(req->offset))
		return -ENOENT;
	iommu_unmap(t->domain, start, size);
	smartio_user_dma_del(ud, r);
	return 0;
}

/**
 * smartio_user_dma_peer_map() - Serve a borrower's SMARTIO_MSG_OP_PEER_MAP.
 * @ud: The function's ranges.
 * @t: The function's domain and windows.
 * @in: The function's membership (@t->fixed).
 * @of: The peer's: a function lent to the same node.
 * @req: The request, unchecked.
 *
 * The range is judged as a DMA_MAP's, then p2p.c maps it onto the peer's
 * BAR (smartio_p2p_peer_map()). Called with smartio_lender_lock held, the
 * function lent to the node that asks.
 * Return: 0, or as smartio_user_dma_map() and smartio_p2p_peer_map().
 */
int smartio_user_dma_peer_map(struct smartio_user_dma *ud,
			      const struct smartio_user_dma_target *t,
			      struct smartio_p2p_member *in,
			      struct smartio_p2p_member *of,
			      const struct smartio_peer_map_req *req)
{
	u64 start = le64_to_cpu(req->dev_addr);
	u64 size = le64_to_cpu(req->size);
	u32 bar = le32_to_cpu(req->bar);

	if (req->reserved || bar >= PCI_STD_NUM_BARS ||
	    !smartio_user_dma_range_ok(start, size))
		return -EINVAL;
	if (!t->domain)
		return -EOPNOTSUPP;
	if (smartio_user_dma_past_aperture(t, start, size))
		return -ERANGE;
	if (smartio_user_dma_held(ud, t, start, size))
		return -EEXIST;
	return smartio_p2p_peer_map(in, of, bar, start, size);
}

/**
 * smartio_user_dma_peer_unmap() - Serve a borrower's
 *	SMARTIO_MSG_OP_PEER_UNMAP.
 * @in: The function's membership.
 * @req: The request, unchecked.
 *
 * Called with smartio_lender_lock held, the function lent to the node
 * that asks. Once it returns, the function reaches the peer's BAR there no
 * more.
 * Return: 0, -EINVAL for a malformed request, -ENOENT where nothing is
 * mapped exactly there.
 */
int smartio_user_dma_peer_unmap(struct smartio_p2p_member *in,
				const struct smartio_peer_map_req *req)
{
	u64 start = le64_to_cpu(req->dev_addr);
	u64 size = le64_to_cpu(req->size);

	if (req->reserved || le32_to_cpu(req->bar) >= PCI_STD_NUM_BARS ||
	    !smartio_user_dma_range_ok(start, size))
		return -EINVAL;
	return smartio_p2p_peer_unmap(in, start, size);
}

/* --- the borrower --- */

static void smartio_user_dma_req(struct smartio_dma_map_req *req,
				 const struct smartio_shadow *sh, u32 flags,
				 u64 start, u64 size, u64 offset)
{
	*req = (struct smartio_dma_map_req) {
		.fdid = cpu_to_le32(sh->fdid),
		.flags = cpu_to_le32(flags),
		.dev_addr = cpu_to_le64(start),
		.offset = cpu_to_le64(offset),
		.size = cpu_to_le64(size),
	};
}

/* What the borrower's user is told of a lender's refusal. */
static const char *smartio_user_dma_why(int ret)
{
	switch (ret) {
	case -EEXIST:
		return "its lender cannot map them there (its log says why)";
	case -EOPNOTSUPP:
		return "its lender has no IOMMU to present memory at addresses of ours";
	case -ENOSPC:
		return "its lender maps no more ranges for it";
	case -ERANGE:
		return "its lender's IOMMU does not translate those device addresses (its log says why)";
	default:
		return "its lender did not map it";
	}
}

/**
 * smartio_user_dma_borrower_map() - smartio_borrowed_dma_map() for @sh.
 * @sh: The shadow, not lost.
 * @start: The device address.
 * @pages: The pages, pinned by the caller.
 * @npages: How many.
 * @prot: IOMMU_READ and/or IOMMU_WRITE: the device reads, writes them.
 *
 * Called with smartio_borrower_lock held.
 * Return: 0 or -errno, with one line in the log for a refusal.
 */
int smartio_user_dma_borrower_map(struct smartio_shadow *sh, u64 start,
				  struct page **pages, unsigned int npages,
				  int prot)
{
	u64 size = (u64)npages << PAGE_SHIFT;
	struct smartio_dma_map_req req;
	struct sg_table sgt;
	dma_addr_t bus;
	u32 flags = 0;
	int ret;

	if (!npages || !smartio_user_dma_range_ok(start, size) ||
	    !(prot & (IOMMU_READ | IOMMU_WRITE)) ||
	    prot & ~(IOMMU_READ | IOMMU_WRITE))
		return -EINVAL;
	if (!sh->iova) {
		pci_err(sh->pdev, "fdid %x: mapping memory at addresses of the user's choosing needs this node's IOMMU to translate its NTB's inbound DMA: refused\n",
			sh->fdid);
		return -EOPNOTSUPP;
	}
	if (smartio_user_dma_meets(&sh->user_dma, start, start + size - 1)) {
		pci_err(sh->pdev, "fdid %x: device addresses %#llx-%#llx not mapped: they meet a range its user mapped before\n",
			sh->fdid, start, start + size - 1);
		return -EEXIST;
	}
	ret = sg_alloc_table_from_pages(&sgt, pages, npages, 0, size,
					GFP_KERNEL);
	if (ret)
		return ret;
	/* One range in the window, in page order: no boundary to keep. */
	ret = smartio_iova_map_sg(sh->iova, &sh->user_dma, sgt.sgl,
				  sgt.orig_nents, prot, ULONG_MAX, 0);
	bus = sg_dma_address(sgt.sgl);
	sg_free_table(&sgt);
	if (ret) {
		pci_err(sh->pdev, "fdid %x: device addresses %#llx-%#llx not mapped: no room for them in this node's IOVA window, which smartio_ntb's iova_window_mb sizes (%pe)\n",
			sh->fdid, start, start + size - 1, ERR_PTR(ret));
		return ret;
	}
	ret = smartio_user_dma_add(&sh->user_dma, start, size,
				   bus - sh->dma_addr);
	if (ret)
		goto err_unmap;

	if (prot & IOMMU_READ)
		flags |= SMARTIO_DMA_MAP_READ;
	if (prot & IOMMU_WRITE)
		flags |= SMARTIO_DMA_MAP_WRITE;
	smartio_user_dma_req(&req, sh, flags, start, size, bus - sh->dma_addr);
	ret = smartio_lend_call(sh->lender, SMARTIO_MSG_OP_DMA_MAP, &req,
				sizeof(req), NULL, 0, SMARTIO_LEND_TIMEOUT);
	if (!ret)
		return 0;
	pci_err(sh->pdev, "fdid %x: device addresses %#llx-%#llx not mapped: %s (%pe)\n",
		sh->fdid, start, start + size - 1, smartio_user_dma_why(ret),
		ERR_PTR(ret));
	/* It may have mapped it and not answered in time. */
	if (ret == -ETIMEDOUT) {
		req.flags = 0;
		smartio_msg_post(sh->lender, SMARTIO_MSG_OP_DMA_UNMAP, &req,
				 sizeof(req));
	}
	smartio_user_dma_del(&sh->user_dma,
			     smartio_user_dma_find(&sh->user_dma, start, size));
err_unmap:
	smartio_iova_unmap(sh->iova, &sh->user_dma, bus, size);
	return ret;
}

/**
 * smartio_user_dma_borrower_unmap() - smartio_borrowed_dma_unmap() for @sh.
 * @sh: The shadow, not lost.
 * @start: As mapped.
 * @size: As mapped.
 *
 * The lender's mapping goes first, then the window's: the device reaches
 * the pages by neither once this returns. Called with
 * smartio_borrower_lock held.
 * Return: 0, or -ENOENT if no such range was mapped.
 */
int smartio_user_dma_borrower_unmap(struct smartio_shadow *sh, u64 start,
				    u64 size)
{
	struct smartio_user_dma_range *r;
	struct smartio_dma_map_req req;
	int ret;

	r = size ? smartio_user_dma_find(&sh->user_dma, start, size) : NULL;
	if (!r)
		return -ENOENT;
	smartio_user_dma_req(&req, sh, 0, start, size, r->offset);
	ret = smartio_lend_call(sh->lender, SMARTIO_MSG_OP_DMA_UNMAP, &req,
				sizeof(req), NULL, 0, SMARTIO_LEND_TIMEOUT);
	/* Not answered: the device still stops at our IOMMU. */
	if (ret)
		pci_warn(sh->pdev, "fdid %x: its lender did not unmap device addresses %#llx-%#llx (%pe): unmapped here\n",
			 sh->fdid, start, start + size - 1, ERR_PTR(ret));
	smartio_iova_unmap(sh->iova, &sh->user_dma, sh->dma_addr + r->offset,
			   size);
	smartio_user_dma_del(&sh->user_dma, r);
	return 0;
}

/*
 * A PEER_MAP or PEER_UNMAP of @sh's: @peer's BAR @bar at @start. Called
 * with smartio_borrower_lock held, both shadows not lost.
 */
static int smartio_user_dma_peer_call(struct smartio_shadow *sh, u16 op,
				      u64 start, struct smartio_shadow *peer,
				      int bar)
{
	u64 size = PAGE_ALIGN(pci_resource_len(peer->pdev, bar));
	struct smartio_peer_map_req req = {
		.fdid = cpu_to_le32(sh->fdid),
		.peer_fdid = cpu_to_le32(peer->fdid),
		.bar = cpu_to_le32(bar),
		.dev_addr = cpu_to_le64(start),
		.size = cpu_to_le64(size),
	};

	return smartio_lend_call(sh->lender, op, &req, sizeof(req), NULL, 0,
				 SMARTIO_LEND_TIMEOUT);
}

/**
 * smartio_user_dma_borrower_peer_map() - smartio_borrowed_peer_map() for
 *	@sh.
 * @sh: The shadow that reaches, not lost.
 * @start: The device address of the BAR's first byte.
 * @peer: The shadow whose BAR it reaches, not lost.
 * @bar: The BAR.
 *
 * Called with smartio_borrower_lock held.
 * Return: 0 or -errno, with one line in the log for a refusal.
 */
int smartio_user_dma_borrower_peer_map(struct smartio_shadow *sh, u64 start,
				       struct smartio_shadow *peer, int bar)
{
	const char *why = NULL;
	int ret = -EXDEV;

	if (sh == peer || bar < 0 || bar >= PCI_STD_NUM_BARS ||
	    !(pci_resource_flags(peer->pdev, bar) & IORESOURCE_MEM) ||
	    !PAGE_ALIGNED(start))
		return -EINVAL;
	/* As the lender would judge it, said here where it is known. */
	if (peer->lender != sh->lender)
		why = "they have different lenders";
	else if (peer->p2p_bridge != sh->p2p_bridge)
		why = "they sit under different host bridges of their lender";
	if (!why) {
		ret = smartio_user_dma_peer_call(sh, SMARTIO_MSG_OP_PEER_MAP,
						 start, peer, bar);
		if (!ret)
			return 0;
		why = ret == -EXDEV ? "its lender does not count them as peers" :
		      smartio_user_dma_why(ret);
	}
	pci_err(sh->pdev, "fdid %x: BAR %d of fdid %x not reached at device addresses from %#llx: %s (%pe)\n",
		sh->fdid, bar, peer->fdid, start, why, ERR_PTR(ret));
	/* It may have mapped it and not answered in time. */
	if (ret == -ETIMEDOUT)
		smartio_user_dma_peer_call(sh, SMARTIO_MSG_OP_PEER_UNMAP, start,
					   peer, bar);
	return ret;
}

/**
 * smartio_user_dma_borrower_peer_unmap() - smartio_borrowed_peer_unmap()
 *	for @sh.
 * @sh: The shadow that reaches, not lost.
 * @start: As mapped.
 * @peer: As mapped, not lost.
 * @bar: As mapped.
 *
 * Called with smartio_borrower_lock held.
 * Return: 0, or the lender's -errno (-ENOENT: nothing mapped there, as
 * after @peer went and back).
 */
int smartio_user_dma_borrower_peer_unmap(struct smartio_shadow *sh, u64 start,
					 struct smartio_shadow *peer, int bar)
{
	if (bar < 0 || bar >= PCI_STD_NUM_BARS)
		return -EINVAL;
	return smartio_user_dma_peer_call(sh, SMARTIO_MSG_OP_PEER_UNMAP, start,
					  peer, bar);
}

/**
 * smartio_user_dma_drop() - Unmap what @sh's user left mapped.
 * @sh: The shadow, its device going (returned, or lost).
 *
 * Its DMA stops on the lender first (a lost one's was stopped there), so
 * that nothing it still does meets the unmapped window; then the window's
 * mappings go. The lender's go with the function's domain. Called with
 * smartio_borrower_lock held.
 */
void smartio_user_dma_drop(struct smartio_shadow *sh)
{
	unsigned long pages, ranges;

	if (!sh->user_dma.count)
		return;
	smartio_shadow_dma_stop(sh);
	pages = smartio_iova_unmap_owner(sh->iova, &sh->user_dma, &ranges);
	pci_info(sh->pdev, "fdid %x: %lu pages its user mapped, in %lu ranges: unmapped\n",
		 sh->fdid, pages, ranges);
	smartio_user_dma_clear(&sh->user_dma);
}
