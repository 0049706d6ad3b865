// SPDX-License-Identifier: GPL-2.0
/*
 * Peer-to-peer between the devices of one VM: a guest's driver programs
 * into one device the guest-physical address of another's BAR (a GPU
 * reading an NVMe's controller memory buffer), as it would between two
 * devices passed through from one host. Where the two are lent by one
 * lender, under one host bridge there, each one's IOMMU domain on the
 * lender maps the other's BARs at the guest-physical addresses the VM gave
 * them (smartio_borrowed_peer_map(): lend/p2p.c), and the requests go
 * straight from one to the other on the lender, never across the fabric.
 *
 * As the VM's RAM (dma.c), the peers' BARs are mapped when the VM turns a
 * device's Bus Master Enable on, where they are then (a guest places its
 * BARs at boot, before its drivers turn mastering on), and unmapped when
 * it turns it off; a BAR moved or a device added later is reached from
 * the next time. A peer that goes (closed, or lost) is unmapped by the
 * lender as it goes: its records here go with it.
 *
 * The devices of a VM are those opened by one process (QEMU): one list of
 * the open mdevs, under one lock, which an open, a close and each Bus
 * Master Enable take after the mdev's own lock; the maps are messages to
 * the lender, made with it held. That lock serialises peer mapping across
 * VMs, which happens when a driver starts, not per I/O.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "smartio/fdid.h"
#include "mdev_priv.h"

/* The open mdevs (smartio_mdev.p2p_entry), and every peer map record. */
static DEFINE_MUTEX(smartio_mdev_p2p_lock);
static LIST_HEAD(smartio_mdev_p2p_devices);

/**
 * struct smartio_mdev_peer_map - A peer's BAR an mdev's device reaches.
 * @entry: In the mdev's peer_maps.
 * @peer: The peer, open: its close drops this first.
 * @bar: The peer's BAR.
 * @addr: Its guest-physical address, where the device reaches it.
 */
struct smartio_mdev_peer_map {
	struct list_head entry;
	struct smartio_mdev *peer;
	int bar;
	u64 addr;
};

/**
 * smartio_mdev_p2p_open() - An mdev just opened joins its VM's devices.
 * @sm: The mdev, its device borrowed. Called with @sm->lock held, in the
 *	opener's context: its process names the VM.
 */
void smartio_mdev_p2p_open(struct smartio_mdev *sm)
{
	lockdep_assert_held(&sm->lock);
	INIT_LIST_HEAD(&sm->peer_maps);
	sm->mm = current->mm;
	mmgrab(sm->mm);
	mutex_lock(&smartio_mdev_p2p_lock);
	list_add_tail(&sm->p2p_entry, &smartio_mdev_p2p_devices);
	mutex_unlock(&smartio_mdev_p2p_lock);
}

/**
 * smartio_mdev_p2p_close() - An mdev closing leaves its VM's devices.
 * @sm: The mdev, its device's DMA off (smartio_mdev_p2p_off() done), not
 *	given back yet. Called with @sm->lock held.
 *
 * The others' records of its BARs go: the lender unmaps them when the
 * device goes back.
 */
void smartio_mdev_p2p_close(struct smartio_mdev *sm)
{
	struct smartio_mdev_peer_map *pm, *next;
	struct smartio_mdev *other;

	lockdep_assert_held(&sm->lock);
	mutex_lock(&smartio_mdev_p2p_lock);
	list_del(&sm->p2p_entry);
	list_for_each_entry(other, &smartio_mdev_p2p_devices, p2p_entry)
		list_for_each_entry_safe(pm, next, &other->peer_maps, entry)
			if (pm->peer == sm) {
				list_del(&pm->entry);
				kfree(pm);
			}
	mutex_unlock(&smartio_mdev_p2p_lock);
	mmdrop(sm->mm);
	sm->mm = NULL;
}

/*
 * The guest-physical address of @peer's memory BAR @i, 0 for none: an
 * I/O BAR, the upper half of a 64-bit one, or one its VM has not placed.
 * Read without @peer's lock, which its VM's config writes hold (config.c
 * writes the registers with WRITE_ONCE()): the VM places a BAR with its
 * memory decoding off, and is not reached there until it turns it on.
 */
static u64 smartio_mdev_p2p_bar_addr(struct smartio_mdev *peer, int i)
{
	u32 lo = READ_ONCE(peer->bar[i]);
	u64 addr;

	if (!peer->bar_size[i] || lo & PCI_BASE_ADDRESS_SPACE_IO)
		return 0;
	if (i && peer->bar_size[i - 1] &&
	    READ_ONCE(peer->bar[i - 1]) & PCI_BASE_ADDRESS_MEM_TYPE_64)
		return 0;		/* an upper half */
	addr = lo & PCI_BASE_ADDRESS_MEM_MASK;
	if (lo & PCI_BASE_ADDRESS_MEM_TYPE_64 && i + 1 < PCI_STD_NUM_BARS)
		addr |= (u64)READ_ONCE(peer->bar[i + 1]) << 32;
	/* A VM sizing it reads its mask, with decoding off. */
	if (addr & (peer->bar_size[i] - 1))
		return 0;
	return addr;
}

/* Maps @peer's placed memory BARs for @sm's device. Under both locks. */
static void smartio_mdev_p2p_map_peer(struct smartio_mdev *sm,
				      struct smartio_mdev *peer)
{
	struct smartio_mdev_peer_map *pm;
	u16 cmd;
	u64 addr;
	int i;

	pci_read_config_word(peer->pdev, PCI_COMMAND, &cmd);
	if (!(cmd & PCI_COMMAND_MEMORY))
		return;
	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		addr = smartio_mdev_p2p_bar_addr(peer, i);
		if (!addr)
			continue;
		pm = kzalloc(sizeof(*pm), GFP_KERNEL);
		if (!pm)
			return;
		/* A refusal is logged by smartio_lend: the BAR is not reached. */
		if (smartio_borrowed_peer_map(sm->borrowed, addr,
					      peer->borrowed, i)) {
			kfree(pm);
			continue;
		}
		pm->peer = peer;
		pm->bar = i;
		pm->addr = addr;
		list_add_tail(&pm->entry, &sm->peer_maps);
	}
}

/**
 * smartio_mdev_p2p_on() - The device reaches its VM's other devices.
 * @sm: The mdev, open, its device's DMA just turned on. Called with
 *	@sm->lock held.
 *
 * Each memory BAR its VM placed and decodes, of each other device of the
 * VM from the same lender, is mapped for the device at its guest-physical
 * address. What the lender refuses is logged and left out: the device's
 * requests there fault on the lender, as where a host does not route
 * peer-to-peer.
 */
void smartio_mdev_p2p_on(struct smartio_mdev *sm)
{
	u16 lender = smartio_fdid_node(sm->fdid);
	struct smartio_mdev_peer_map *pm;
	struct smartio_mdev *peer;
	unsigned int n = 0;

	lockdep_assert_held(&sm->lock);
	mutex_lock(&smartio_mdev_p2p_lock);
	list_for_each_entry(peer, &smartio_mdev_p2p_devices, p2p_entry)
		if (peer != sm && peer->mm == sm->mm &&
		    smartio_fdid_node(peer->fdid) == lender)
			smartio_mdev_p2p_map_peer(sm, peer);
	list_for_each_entry(pm, &sm->peer_maps, entry)
		n++;
	mutex_unlock(&smartio_mdev_p2p_lock);
	if (n)
		dev_info(&sm->mdev->dev, "fdid %x: bus master: reaches %u BARs of its VM's other devices\n",
			 sm->fdid, n);
}

/**
 * smartio_mdev_p2p_off() - The device reaches its VM's other devices no more.
 * @sm: The mdev, open. Called with @sm->lock held.
 */
void smartio_mdev_p2p_off(struct smartio_mdev *sm)
{
	struct smartio_mdev_peer_map *pm, *next;

	lockdep_assert_held(&sm->lock);
	mutex_lock(&smartio_mdev_p2p_lock);
	list_for_each_entry_safe(pm, next, &sm->peer_maps, entry) {
		/* Lost, either: the lender unmapped it already. */
		smartio_borrowed_peer_unmap(sm->borrowed, pm->addr,
					    pm->peer->borrowed, pm->bar);
		list_del(&pm->entry);
		kfree(pm);
	}
	mutex_unlock(&smartio_mdev_p2p_lock);
}
