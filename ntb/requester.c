// SPDX-License-Identifier: GPL-2.0
/*
 * Requester-ID tables: which local devices may have their requests cross
 * an NTB.
 *
 * A request crossing an NTB is routed by its address, but its completion
 * comes back by requester ID. So IDT, Switchtec and Broadcom/PLX NTBs
 * forward only requests from requesters listed in a small table of the
 * sending port, and drop the others (a read completes as all-ones). The
 * NTB API's requester-ID operations (ntb_req_id_add() and co., our patch
 * in ntb/patches/) fill it; hardware that forwards every requester (Intel,
 * AMD) has none, and everything here then succeeds doing nothing. The
 * hardware driver lists what every client needs itself: the root complex
 * (CPU accesses through windows) and its own function.
 *
 * Here each adapter keeps, per peer, the entries this layer's users asked
 * for, with their number of users: a lender lists each function it lends
 * toward its borrower, a node each local device it has DMA into a peer.
 * The entry goes from the table when its last user removes it, or when
 * its peer leaves (then the users' removes find nothing to do).
 *
 * <debugfs>/smartio/requesters shows the entries. Built with the test
 * hooks (CONFIG_SMARTIO_TEST_HOOKS, test_hooks.c) it takes "add NODE BDF"
 * (one more user of the entry) and "remove NODE BDF" (the entry goes
 * whatever its users, as if the hardware had lost it) too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "smartio/ntb.h"
#include "smartio/pci_addr.h"
#include "smartio_ntb_priv.h"

#ifndef SMARTIO_NTB_REQ_ID
/*
 * KDIR's own NTB core, without our patches (see Kbuild): its hardware
 * drivers have no requester-ID operations, so every NTB is one without a
 * table.
 */
static int ntb_req_id_count(struct ntb_dev *ntb, int pidx)
{
	return -EOPNOTSUPP;
}

static int ntb_req_id_add(struct ntb_dev *ntb, int pidx, u16 req_id)
{
	return -EOPNOTSUPP;
}

static int ntb_req_id_remove(struct ntb_dev *ntb, int pidx, u16 req_id)
{
	return -EOPNOTSUPP;
}
#endif

/**
 * struct smartio_requester - An entry of an adapter's table we asked for.
 * @list: Entry in the adapter's requesters.
 * @pidx: The peer the requests go to.
 * @req_id: The requester: bus << 8 | devfn in the NTB's PCI domain.
 * @users: How many times it was added and not removed; never 0.
 */
struct smartio_requester {
	struct list_head list;
	int pidx;
	u16 req_id;
	unsigned int users;
};

/* A requester's name in messages: its PCI address in the NTB's domain. */
static void smartio_requester_name(struct smartio_adapter *ad, u16 req_id,
				   char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%02x:%02x.%d",
		 pci_domain_nr(ad->ntb->pdev->bus), PCI_BUS_NUM(req_id),
		 PCI_SLOT(req_id & 0xff), PCI_FUNC(req_id & 0xff));
}

/* Called with ad->requesters_lock held. */
static struct smartio_requester *
smartio_requester_find(struct smartio_adapter *ad, int pidx, u16 req_id)
{
	struct smartio_requester *r;

	list_for_each_entry(r, &ad->requesters, list)
		if (r->pidx == pidx && r->req_id == req_id)
			return r;
	return NULL;
}

/* Unlists @r from the table and frees it. Called with the lock held. */
static void smartio_requester_drop(struct smartio_adapter *ad,
				   struct smartio_requester *r)
{
	char name[SMARTIO_PCI_ADDR_STR_MAX];
	int ret;

	ret = ntb_req_id_remove(ad->ntb, r->pidx, r->req_id);
	if (ret) {
		smartio_requester_name(ad, r->req_id, name, sizeof(name));
		dev_warn(&ad->ntb->dev, "adapter %d: cannot unlist requester %s: %d\n",
			 ad->index, name, ret);
	}
	list_del(&r->list);
	kfree(r);
}

/*
 * One more user of @req_id toward @peer, whose session was @session when
 * it was found. Called under srcu_read_lock(&smartio_adapters_srcu).
 */
int smartio_requester_get(struct smartio_adapter *ad,
			  struct smartio_peer *peer, u32 session, u16 req_id)
{
	char name[SMARTIO_PCI_ADDR_STR_MAX];
	struct smartio_requester *r;
	int size, ret;

	size = ntb_req_id_count(ad->ntb, peer->pidx);
	if (size == -EOPNOTSUPP)
		return 0;	/* every requester is forwarded */
	if (size < 0)
		return size;

	mutex_lock(&ad->requesters_lock);
	/* The peer left since it was found: its entries are gone. */
	if (ad->requesters_left[peer->pidx] == session) {
		ret = -ENOTCONN;
		goto unlock;
	}
	r = smartio_requester_find(ad, peer->pidx, req_id);
	if (r) {
		r->users++;
		ret = 0;
		goto unlock;
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		ret = -ENOMEM;
		goto unlock;
	}
	ret = ntb_req_id_add(ad->ntb, peer->pidx, req_id);
	if (ret) {
		smartio_requester_name(ad, req_id, name, sizeof(name));
		if (ret == -ENOSPC)
			dev_err(&ad->ntb->dev, "adapter %d: requester table full (%d entries): cannot let %s reach node %u\n",
				ad->index, size, name, READ_ONCE(peer->node_id));
		else
			dev_err(&ad->ntb->dev, "adapter %d: cannot list requester %s for node %u: %d\n",
				ad->index, name, READ_ONCE(peer->node_id), ret);
		kfree(r);
		goto unlock;
	}
	r->pidx = peer->pidx;
	r->req_id = req_id;
	r->users = 1;
	list_add_tail(&r->list, &ad->requesters);
unlock:
	mutex_unlock(&ad->requesters_lock);
	return ret;
}

/*
 * One user less of @req_id toward @pidx; @all: every user (the test
 * hooks' knob). Return: 0, or -ENOENT when it is not listed.
 */
int smartio_requester_put(struct smartio_adapter *ad, int pidx, u16 req_id,
			  bool all)
{
	struct smartio_requester *r;

	mutex_lock(&ad->requesters_lock);
	r = smartio_requester_find(ad, pidx, req_id);
	if (r && (all || !--r->users))
		smartio_requester_drop(ad, r);
	mutex_unlock(&ad->requesters_lock);
	return r ? 0 : -ENOENT;
}

/*
 * The peer @node_id is, with its adapter in *@adp and its session in
 * *@session; -EXDEV (logged) when a requester in PCI domain @domain cannot
 * reach it. Called under srcu_read_lock(&smartio_adapters_srcu).
 */
struct smartio_peer *smartio_requester_peer(u16 node_id, int domain,
					     const char *what,
					     struct smartio_adapter **adp,
					     u32 *session)
{
	struct smartio_peer *peer;
	int ntb_domain;

	peer = smartio_node_peer(node_id, adp);
	if (!peer)
		return ERR_PTR(-EHOSTUNREACH);
	*session = READ_ONCE(peer->session);
	ntb_domain = pci_domain_nr((*adp)->ntb->pdev->bus);
	/* A requester ID names a function of the NTB's own domain only. */
	if (domain != ntb_domain) {
		dev_err(&(*adp)->ntb->dev, "adapter %d: %s is in PCI domain %04x, not the NTB's %04x: its requests cannot be let through to node %u\n",
			(*adp)->index, what, domain, ntb_domain, node_id);
		return ERR_PTR(-EXDEV);
	}
	return peer;
}

/*
 * Adds (@add) or removes @pdev's requester ID toward @node_id and, with
 * @vfs, those of its enabled virtual functions (a physical function's).
 */
static int smartio_requester_change(u16 node_id, struct pci_dev *pdev,
				    bool vfs, bool add)
{
	int vf_count = vfs && pdev->is_physfn ? pci_num_vf(pdev) : 0;
	struct pci_dev *vf = NULL;
	struct smartio_adapter *ad;
	struct smartio_peer *peer;
	int idx, n = 0, i, ret = 0;
	u32 session;
	u16 *ids;

	ids = kmalloc_array(1 + vf_count, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return -ENOMEM;
	ids[n++] = pci_dev_id(pdev);
	/* No export names a VF's bus: find the VFs among all functions. */
	while (n < 1 + vf_count &&
	       (vf = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, vf)))
		if (vf->is_virtfn && pci_physfn(vf) == pdev)
			ids[n++] = pci_dev_id(vf);
	pci_dev_put(vf);

	idx = srcu_read_lock(&smartio_adapters_srcu);
	peer = smartio_requester_peer(node_id, pci_domain_nr(pdev->bus),
				      pci_name(pdev), &ad, &session);
	if (IS_ERR(peer)) {
		ret = PTR_ERR(peer);
		goto unlock;
	}
	for (i = 0; i < n; i++) {
		if (!add) {
			smartio_requester_put(ad, peer->pidx, ids[i], false);
			continue;
		}
		ret = smartio_requester_get(ad, peer, session, ids[i]);
		if (ret) {
			/* All or none. */
			while (i--)
				smartio_requester_put(ad, peer->pidx, ids[i],
						      false);
			break;
		}
	}
unlock:
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	kfree(ids);
	return ret;
}

/**
 * smartio_requester_add() - Let a local device's requests reach a node.
 * @node_id: The node, joined.
 * @pdev: The device, which will have DMA through the NTB that @node_id is
 *	reached through (into a remote segment, a window onto a borrower's
 *	memory, another node's BAR).
 *
 * Lists @pdev's requester ID in that NTB's requester-ID table toward the
 * node, or counts one more user of the entry. Where the NTB has no table
 * (it forwards every requester) nothing needs doing.
 *
 * Context: Process context; sleeps.
 * Return: 0; -ENOSPC when the table is full (logged, with its size);
 * -EXDEV when @pdev is in another PCI domain than the NTB (logged: no
 * requester ID of it can be listed); -EHOSTUNREACH when @node_id is not
 * joined; -ENOTCONN when it left meanwhile; -ENOMEM.
 */
int smartio_requester_add(u16 node_id, struct pci_dev *pdev)
{
	return smartio_requester_change(node_id, pdev, false, true);
}
EXPORT_SYMBOL_GPL(smartio_requester_add);

/**
 * smartio_requester_remove() - Undo smartio_requester_add().
 * @node_id: The node.
 * @pdev: The device; its requests may no longer reach the node once its
 *	last user has removed it.
 *
 * Nothing happens if the entry is gone already (the node left).
 *
 * Context: Process context; sleeps.
 */
void smartio_requester_remove(u16 node_id, struct pci_dev *pdev)
{
	smartio_requester_change(node_id, pdev, false, false);
}
EXPORT_SYMBOL_GPL(smartio_requester_remove);

/**
 * smartio_requester_add_with_vfs() - smartio_requester_add() for a lent
 *	function: it and, for an SR-IOV physical function, each of its
 *	enabled virtual functions.
 * @node_id: The node, joined.
 * @pdev: The function.
 *
 * The virtual functions have requester IDs of their own: whoever drives
 * the physical function may have them do DMA. All are listed or none.
 *
 * Context: Process context; sleeps.
 * Return: As smartio_requester_add().
 */
int smartio_requester_add_with_vfs(u16 node_id, struct pci_dev *pdev)
{
	return smartio_requester_change(node_id, pdev, true, true);
}
EXPORT_SYMBOL_GPL(smartio_requester_add_with_vfs);

/**
 * smartio_requester_remove_with_vfs() - Undo smartio_requester_add_with_vfs().
 * @node_id: The node.
 * @pdev: The function; its number of virtual functions is the one it had
 *	when added (the lender's stub driver cannot change it).
 *
 * Context: Process context; sleeps.
 */
void smartio_requester_remove_with_vfs(u16 node_id, struct pci_dev *pdev)
{
	smartio_requester_change(node_id, pdev, true, false);
}
EXPORT_SYMBOL_GPL(smartio_requester_remove_with_vfs);

/**
 * smartio_requesters_init() - Set up an adapter's requester entries.
 * @ad: The adapter, being probed; @peer_count set.
 *
 * Return: 0 or -ENOMEM.
 */
int smartio_requesters_init(struct smartio_adapter *ad)
{
	mutex_init(&ad->requesters_lock);
	INIT_LIST_HEAD(&ad->requesters);
	ad->requesters_left = kcalloc(ad->peer_count,
				      sizeof(*ad->requesters_left), GFP_KERNEL);
	return ad->requesters_left ? 0 : -ENOMEM;
}

/**
 * smartio_requesters_peer_left() - Unlist every entry toward a peer.
 * @ad: The adapter.
 * @peer: The peer, leaving; its users' removes find nothing afterwards.
 *
 * Context: With ad->lock held.
 */
void smartio_requesters_peer_left(struct smartio_adapter *ad,
				  struct smartio_peer *peer)
{
	struct smartio_requester *r, *next;
	unsigned int dropped = 0;

	mutex_lock(&ad->requesters_lock);
	ad->requesters_left[peer->pidx] = peer->session;
	list_for_each_entry_safe(r, next, &ad->requesters, list) {
		if (r->pidx != peer->pidx)
			continue;
		smartio_requester_drop(ad, r);
		dropped++;
	}
	mutex_unlock(&ad->requesters_lock);
	if (dropped)
		dev_info(&ad->ntb->dev, "adapter %d: node %u left: %u requester%s unlisted\n",
			 ad->index, peer->node_id, dropped,
			 dropped == 1 ? "" : "s");
}

/**
 * smartio_requesters_exit() - Unlist what is left of an adapter's entries.
 * @ad: The adapter, being removed; no peer of it is joined any more.
 */
void smartio_requesters_exit(struct smartio_adapter *ad)
{
	struct smartio_requester *r, *next;

	mutex_lock(&ad->requesters_lock);
	list_for_each_entry_safe(r, next, &ad->requesters, list)
		smartio_requester_drop(ad, r);
	mutex_unlock(&ad->requesters_lock);
	kfree(ad->requesters_left);
	ad->requesters_left = NULL;
	mutex_destroy(&ad->requesters_lock);
}

/*
 * debugfs: per adapter and joined peer, the table's size ("none" without
 * one) and our entries with their users:
 *
 *	adapter 0 peer 0 node 1 table 32
 *	  0000:00:04.0 users 1
 */
static int smartio_requesters_show(struct seq_file *s, void *unused)
{
	char name[SMARTIO_PCI_ADDR_STR_MAX];
	struct smartio_requester *r;
	struct smartio_adapter *ad;
	int idx, pidx, size;
	u16 node;

	idx = srcu_read_lock(&smartio_adapters_srcu);
	list_for_each_entry_srcu(ad, &smartio_adapters, list,
				 srcu_read_lock_held(&smartio_adapters_srcu)) {
		for (pidx = 0; pidx < ad->peer_count; pidx++) {
			node = READ_ONCE(ad->peers[pidx].node_id);
			if (!node)
				continue;
			size = ntb_req_id_count(ad->ntb, pidx);
			seq_printf(s, "adapter %d peer %d node %u table ",
				   ad->index, pidx, node);
			if (size == -EOPNOTSUPP)
				seq_puts(s, "none\n");
			else
				seq_printf(s, "%d\n", size);
			mutex_lock(&ad->requesters_lock);
			list_for_each_entry(r, &ad->requesters, list) {
				if (r->pidx != pidx)
					continue;
				smartio_requester_name(ad, r->req_id, name,
						       sizeof(name));
				seq_printf(s, "  %s users %u\n", name,
					   r->users);
			}
			mutex_unlock(&ad->requesters_lock);
		}
	}
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	return 0;
}

static int smartio_requesters_open(struct inode *inode, struct file *file)
{
	return single_open(file, smartio_requesters_show, NULL);
}

static const struct file_operations smartio_requesters_fops = {
	.owner = THIS_MODULE,
	.open = smartio_requesters_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = smartio_requesters_write,	/* NULL without the test hooks */
};

/**
 * smartio_requesters_debugfs() - Create <debugfs>/smartio/requesters.
 * @dir: The smartio debugfs directory.
 */
void smartio_requesters_debugfs(struct dentry *dir)
{
	umode_t mode = IS_ENABLED(CONFIG_SMARTIO_TEST_HOOKS) ? 0600 : 0400;

	debugfs_create_file("requesters", mode, dir, NULL,
			    &smartio_requesters_fops);
}
