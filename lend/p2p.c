// SPDX-License-Identifier: GPL-2.0
/*
 * Peer-to-peer between functions one lender lends to one borrower, under
 * one host bridge here: each reaches the others' memory BARs at their bus
 * addresses, straight through this host's switch or root complex, never
 * across the fabric. Under two host bridges, they are no peers (as
 * drivers/pci/p2pdma.c has it, few root complexes route between theirs):
 * the borrower reaches one's BAR from the other across the fabric, by way
 * of its own window onto it.
 *
 * The borrower's driver maps a BAR of another function it borrowed from
 * us with dma_map_resource(); where the two have the same host bridge id
 * (smartio_p2p_bridge_id(), sent with each), the shadow hands it that
 * BAR's bus address on this host, which the borrower reads in the
 * function's config space (shadow.c). Without an IOMMU here, that address
 * reaches the BAR as it is. With one, each lent function has a domain of
 * its own (lender.c), and a BAR is reachable only where mapped: so, while
 * two functions are lent to the same node in the same session, each one's
 * memory BARs are mapped into the other's domain at their bus addresses.
 * That identity map never meets a domain's windows onto the borrower:
 * smartio_lent_layout() leaves every BAR and bridge window under the host
 * bridge out of them. A function that goes back is unmapped from the
 * others' domains before anything else, so that no function lent on
 * reaches it, whoever it is lent to next. The maps are made when a
 * function is lent and undone when it is taken back: nothing per I/O.
 *
 * Not every switch routes peer-to-peer requests between its ports, nor
 * every root complex between its root ports; where this host cannot, the
 * request fails here, as it would between two local functions.
 *
 * A function whose borrower's user chooses its device addresses (the
 * borrow named user ranges: mdev, whose guest programs guest-physical
 * addresses) has no use for its peers' bus addresses here, which only
 * collide with the guest's: its domain gets no identity maps. Instead the
 * user asks for each peer BAR at the address it chose
 * (smartio_p2p_peer_map(), messaging op PEER_MAP: a guest's BAR of the
 * peer), once, when it turns the function's DMA on. Those maps go when
 * either function goes: the peer's leaving unmaps them first, as the
 * identity maps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/iommu.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "lend_priv.h"

/*
 * The functions lent with their BARs open to their peers. A leaf lock:
 * taken under smartio_lender_lock (lending) or a function's device lock
 * (taking back), and nothing is taken under it but the IOMMU's own.
 */
static DEFINE_MUTEX(smartio_p2p_lock);
static LIST_HEAD(smartio_p2p_members);

/* Does [@start, @start + @size) meet one of @m's windows onto its borrower? */
static bool smartio_p2p_in_windows(const struct smartio_p2p_member *m,
				   u64 start, u64 size)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(m->windows); i++)
		if (m->windows[i].size && start < m->windows[i].start +
		    m->windows[i].size && m->windows[i].start < start + size)
			return true;
	return false;
}

/**
 * struct smartio_p2p_peer_map - A peer's BAR in a function's domain, where
 *	its borrower's user asked for it (smartio_p2p_peer_map()).
 * @entry: In the function's peer_maps.
 * @of: The peer.
 * @start: The first device address.
 * @size: Bytes.
 */
struct smartio_p2p_peer_map {
	struct list_head entry;
	struct smartio_p2p_member *of;
	u64 start;
	u64 size;
};

/* Unmaps @of's memory BARs from @in's domain: what smartio_p2p_map() did. */
static void smartio_p2p_unmap(struct smartio_p2p_member *in,
			      struct smartio_p2p_member *of)
{
	int i;

	if (in->user_addressed)
		return;		/* smartio_p2p_map() mapped nothing */

	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		u64 bus = pci_bus_address(of->pdev, i);
		u64 size = PAGE_ALIGN(pci_resource_len(of->pdev, i));

		if (smartio_lent_bar(of->pdev, i) &&
		    !smartio_p2p_in_windows(in, bus, size))
			iommu_unmap(in->domain, bus, size);
	}
}

/*
 * Maps @of's memory BARs into @in's domain at their bus addresses. A BAR
 * where @in's windows onto the borrower are (of a function that came
 * after @in was lent: smartio_lent_layout() left the others out) is not
 * mapped: @in does not reach it.
 */
static int smartio_p2p_map(struct smartio_p2p_member *in,
			   struct smartio_p2p_member *of)
{
	int i, ret;

	if (in->user_addressed)
		return 0;	/* its user asks where (smartio_p2p_peer_map()) */

	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		u64 bus = pci_bus_address(of->pdev, i);
		u64 size = PAGE_ALIGN(pci_resource_len(of->pdev, i));

		if (!smartio_lent_bar(of->pdev, i))
			continue;
		if (smartio_p2p_in_windows(in, bus, size)) {
			pci_warn(in->pdev, "cannot reach BAR %d of %s, lent to node %u too: it lies where its windows onto node %u are\n",
				 i, pci_name(of->pdev), in->node, in->node);
			continue;
		}
		ret = iommu_map(in->domain, bus,
				pci_resource_start(of->pdev, i), size,
				IOMMU_READ | IOMMU_WRITE | IOMMU_MMIO);
		if (ret) {
			pci_err(in->pdev, "cannot reach BAR %d of %s, lent to node %u too, in its IOMMU domain: %d\n",
				i, pci_name(of->pdev), in->node, ret);
			return ret;
		}
	}
	return 0;
}

/*
 * Unmaps and forgets @pm, in @in's domain. Called with smartio_p2p_lock
 * held.
 */
static void smartio_p2p_peer_drop(struct smartio_p2p_member *in,
				  struct smartio_p2p_peer_map *pm)
{
	lockdep_assert_held(&smartio_p2p_lock);
	iommu_unmap(in->domain, pm->start, pm->size);
	list_del(&pm->entry);
	kfree(pm);
}

/* The map of @in's that meets [@start, @last], if any; under the lock. */
static struct smartio_p2p_peer_map *
smartio_p2p_peer_find(const struct smartio_p2p_member *in, u64 start,
		      u64 last)
{
	struct smartio_p2p_peer_map *pm;

	lockdep_assert_held(&smartio_p2p_lock);
	list_for_each_entry(pm, &in->peer_maps, entry)
		if (pm->start <= last && start <= pm->start + pm->size - 1)
			return pm;
	return NULL;
}

/* Are @a and @b peers: lent to the same borrower, under one host bridge? */
static bool smartio_p2p_peers(const struct smartio_p2p_member *a,
			      const struct smartio_p2p_member *b)
{
	return a != b && a->node == b->node && a->session == b->session &&
	       pci_find_host_bridge(a->pdev->bus) ==
	       pci_find_host_bridge(b->pdev->bus);
}

/**
 * smartio_p2p_bridge_id() - Names a lent function's host bridge.
 * @pdev: The function.
 *
 * For its borrower: two functions it borrowed from us with the same id are
 * peers. The root bus's domain and number name the bridge here.
 *
 * Return: The id, never 0 (which names none).
 */
u32 smartio_p2p_bridge_id(struct pci_dev *pdev)
{
	struct pci_bus *root = pdev->bus;

	while (!pci_is_root_bus(root))
		root = root->parent;
	return ((u32)pci_domain_nr(root) << 8 | root->number) + 1;
}

/**
 * smartio_p2p_join() - Opens a lent function's BARs to its peers.
 * @m: The function's membership, not joined, its fields but @entry and
 *	@joined filled in.
 *
 * Every function lent to @m->node in @m->session under the same host
 * bridge reaches @m->pdev's memory BARs at their bus addresses, and
 * @m->pdev reaches theirs. On failure @m is joined still, with what was
 * mapped: smartio_p2p_leave() undoes it.
 *
 * Return: 0, or an IOMMU's error mapping a BAR.
 */
int smartio_p2p_join(struct smartio_p2p_member *m)
{
	struct smartio_p2p_member *peer;
	int ret = 0;

	INIT_LIST_HEAD(&m->peer_maps);
	mutex_lock(&smartio_p2p_lock);
	list_add_tail(&m->entry, &smartio_p2p_members);
	m->joined = true;
	list_for_each_entry(peer, &smartio_p2p_members, entry) {
		if (!smartio_p2p_peers(m, peer))
			continue;
		if (peer->domain)
			ret = smartio_p2p_map(peer, m);
		if (!ret && m->domain)
			ret = smartio_p2p_map(m, peer);
		if (ret)
			break;
	}
	mutex_unlock(&smartio_p2p_lock);
	return ret;
}

/**
 * smartio_p2p_leave() - Closes a lent function's BARs to its peers.
 * @m: The function's membership; nothing is done if not joined.
 *
 * Once it returns, no function lent here reaches @m's BARs through what
 * smartio_p2p_join() mapped (iommu_unmap() flushes the IOTLB). What @m's
 * own domain holds of its peers' BARs goes with the domain.
 */
void smartio_p2p_leave(struct smartio_p2p_member *m)
{
	struct smartio_p2p_member *peer;
	struct smartio_p2p_peer_map *pm, *next;

	if (!m->joined)
		return;
	mutex_lock(&smartio_p2p_lock);
	list_del(&m->entry);
	m->joined = false;
	list_for_each_entry(peer, &smartio_p2p_members, entry) {
		if (smartio_p2p_peers(m, peer) && peer->domain)
			smartio_p2p_unmap(peer, m);
		list_for_each_entry_safe(pm, next, &peer->peer_maps, entry)
			if (pm->of == m)
				smartio_p2p_peer_drop(peer, pm);
	}
	/* Its own go too: its domain may outlive this (a reset first). */
	list_for_each_entry_safe(pm, next, &m->peer_maps, entry)
		smartio_p2p_peer_drop(m, pm);
	mutex_unlock(&smartio_p2p_lock);
}

/**
 * smartio_p2p_peer_meets() - Does a function's domain map a peer's BAR in
 *	a range, where its user asked for it?
 * @in: The function.
 * @start: First device address.
 * @last: Last device address.
 *
 * Return: Whether a map of smartio_p2p_peer_map() meets [@start, @last].
 */
bool smartio_p2p_peer_meets(const struct smartio_p2p_member *in, u64 start,
			    u64 last)
{
	bool meets;

	mutex_lock(&smartio_p2p_lock);
	meets = smartio_p2p_peer_find(in, start, last);
	mutex_unlock(&smartio_p2p_lock);
	return meets;
}

/**
 * smartio_p2p_peer_map() - Let a function reach a peer's BAR where its
 *	borrower's user asks.
 * @in: The function, user-addressed, its device addresses [@start,
 *	@start + @size) judged free by the caller (user_dma.c) but for what
 *	this maps.
 * @of: The peer: lent to the same borrower, in the same session, under
 *	the same host bridge.
 * @bar: A memory BAR of @of's, lent.
 * @start: The device address of the BAR's first byte, page aligned.
 * @size: Bytes from there, whole pages, at most the BAR's size rounded up
 *	to a page.
 *
 * Until either leaves, or smartio_p2p_peer_unmap(), @in's domain maps the
 * range onto the BAR.
 *
 * Return: 0; -EXDEV if the two are no peers (or either left), -EOPNOTSUPP
 * if @in's addresses are not its user's or it has no domain, -EINVAL for
 * a BAR that is not a lent memory BAR, -ERANGE for a size past it, -EEXIST
 * where a map of this kind meets the range, -ENOMEM, or the IOMMU's error.
 */
int smartio_p2p_peer_map(struct smartio_p2p_member *in,
			 struct smartio_p2p_member *of, int bar, u64 start,
			 u64 size)
{
	struct smartio_p2p_peer_map *pm;
	int ret;

	pm = kzalloc(sizeof(*pm), GFP_KERNEL);
	if (!pm)
		return -ENOMEM;
	mutex_lock(&smartio_p2p_lock);
	if (!in->joined || !of->joined || !smartio_p2p_peers(in, of)) {
		ret = -EXDEV;
		goto err;
	}
	if (!in->user_addressed || !in->domain) {
		ret = -EOPNOTSUPP;
		goto err;
	}
	if (bar < 0 || bar >= PCI_STD_NUM_BARS ||
	    !smartio_lent_bar(of->pdev, bar)) {
		ret = -EINVAL;
		goto err;
	}
	if (size > PAGE_ALIGN(pci_resource_len(of->pdev, bar))) {
		ret = -ERANGE;
		goto err;
	}
	if (smartio_p2p_peer_find(in, start, start + size - 1)) {
		ret = -EEXIST;
		goto err;
	}
	ret = iommu_map(in->domain, start, pci_resource_start(of->pdev, bar),
			size, IOMMU_READ | IOMMU_WRITE | IOMMU_MMIO);
	if (ret)
		goto err;
	pm->of = of;
	pm->start = start;
	pm->size = size;
	list_add_tail(&pm->entry, &in->peer_maps);
	mutex_unlock(&smartio_p2p_lock);
	pci_info(in->pdev, "reaches BAR %d of %s, lent to node %u too, at device addresses %#llx-%#llx\n",
		 bar, pci_name(of->pdev), in->node, start, start + size - 1);
	return 0;
err:
	mutex_unlock(&smartio_p2p_lock);
	kfree(pm);
	return ret;
}

/**
 * smartio_p2p_peer_unmap() - Undo smartio_p2p_peer_map().
 * @in: The function.
 * @start: As mapped.
 * @size: As mapped.
 *
 * Return: 0, or -ENOENT where no map is exactly there.
 */
int smartio_p2p_peer_unmap(struct smartio_p2p_member *in, u64 start, u64 size)
{
	struct smartio_p2p_peer_map *pm;
	int ret = -ENOENT;

	mutex_lock(&smartio_p2p_lock);
	pm = smartio_p2p_peer_find(in, start, start + size - 1);
	if (pm && pm->start == start && pm->size == size) {
		smartio_p2p_peer_drop(in, pm);
		ret = 0;
	}
	mutex_unlock(&smartio_p2p_lock);
	return ret;
}

/* Does [@start, @start + @size) overlap @res, as bus addresses under @bridge? */
static bool smartio_p2p_overlaps(struct pci_host_bridge *bridge,
				 struct resource *res, u64 start, u64 size,
				 u64 *next)
{
	struct pci_bus_region region;

	if (resource_type(res) != IORESOURCE_MEM || !res->parent ||
	    !resource_size(res))
		return false;
	pcibios_resource_to_bus(bridge->bus, &region, res);
	if (region.start > start + size - 1 || region.end < start)
		return false;
	*next = region.end + 1;
	return true;
}

/**
 * smartio_p2p_clash() - Whether a lent function's peers' BARs may be there.
 * @pdev: The function.
 * @start: Start of a range of bus addresses.
 * @size: Its size, not 0.
 * @next: Set to the end of what it overlaps, plus 1 (0: it wraps).
 *
 * A lent function's domain maps its peers' BARs at their bus addresses:
 * its windows onto the borrower must lie clear of every memory BAR under
 * its host bridge, and of every bridge window there, which holds the BARs
 * of functions yet to come below it. Not of the host bridge's windows as
 * a whole: on a small host they take most of the 32-bit space (QEMU's
 * q35 with 1 GiB of RAM: 0x40000000-0xfebfffff but for MMCONFIG), which
 * a function with a 32-bit DMA mask needs for the borrower's memory.
 *
 * Return: Whether [@start, @start + @size) overlaps one of them.
 */
bool smartio_p2p_clash(struct pci_dev *pdev, u64 start, u64 size, u64 *next)
{
	struct pci_host_bridge *bridge = pci_find_host_bridge(pdev->bus);
	struct pci_dev *dev = NULL;
	int i;

	for_each_pci_dev(dev) {
		if (pci_find_host_bridge(dev->bus) != bridge)
			continue;
		for (i = 0; i < PCI_NUM_RESOURCES; i++) {
			if (smartio_p2p_overlaps(bridge, &dev->resource[i],
						 start, size, next)) {
				pci_dev_put(dev);
				return true;
			}
		}
	}
	return false;
}

/**
 * smartio_p2p_routed_below() - Would a function's requests to a range be
 *	routed before they reach the IOMMU?
 * @pdev: The function.
 * @start: Start of a range of bus addresses.
 * @size: Its size, not 0.
 *
 * A request goes up through each bridge above the function, and a bridge
 * forwards upstream only what lies outside its memory windows (the PCIe
 * base specification's address routing for type 1 functions): inside
 * them a switch routes it to a port below, never to the root complex and
 * its IOMMU. Those windows are all a user-addressed function's device
 * addresses must avoid; on a root bus, where the function sends every
 * request to the root complex, nothing is. (smartio_p2p_clash() is wider:
 * what a function's domain maps at its peers' bus addresses.)
 *
 * Return: Whether [@start, @start + @size) meets a memory window of a
 * bridge between @pdev and its root bus.
 */
bool smartio_p2p_routed_below(struct pci_dev *pdev, u64 start, u64 size)
{
	struct pci_host_bridge *bridge = pci_find_host_bridge(pdev->bus);
	struct resource *res;
	struct pci_bus *bus;
	u64 next;
	int i;

	for (bus = pdev->bus; !pci_is_root_bus(bus); bus = bus->parent)
		pci_bus_for_each_resource(bus, res, i)
			if (res && smartio_p2p_overlaps(bridge, res, start,
							size, &next))
				return true;
	return false;
}
