// SPDX-License-Identifier: GPL-2.0
/*
 * Segments: memory one node exports and other nodes map (the ABI is
 * include/uapi/linux/smartio_dev.h).
 *
 * A local segment is DMA-coherent memory of one adapter's NTB: its bus
 * address for that NTB is what a peer's window must lead to, and inbound
 * accesses reach it through this host's IOMMU. A peer connects by asking,
 * over messaging (SMARTIO_MSG_OP_SEGMENT_INFO), for the segment's bus
 * address and size, then maps that range of our bus address space through
 * its window manager (window.c). From then on, CPU and device accesses go
 * through the NTB with no software on either side.
 *
 * Lifetimes: a local segment is listed from creation to removal (or to
 * its adapter's removal) and freed when its last user, listing or
 * attached file, puts it. A connection belongs to the file (or kernel
 * user) that made it; when the owner leaves, its windows are cleared at
 * once and it is marked lost.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/smartio_dev.h>

#include "smartio/le.h"
#include "smartio/ntb.h"
#include "smartio_ntb_priv.h"

/* Largest segment: what one adapter's DMA memory may reasonably pin. */
#define SMARTIO_SEGMENT_MAX_SIZE	(1ULL << 32)
#define SMARTIO_SEGMENT_TIMEOUT		(5 * HZ)

/* SMARTIO_MSG_OP_SEGMENT_INFO: request and response payloads. */
struct smartio_segment_info_req {
	__le32 segment_id;
};

struct smartio_segment_info_resp {
	__le64 addr;
	__le64 size;
};

/**
 * struct smartio_segment - A local segment.
 * @list: Entry in smartio_segments while listed.
 * @ref: References: the listing and every attached file.
 * @id: Segment id.
 * @ad: Adapter whose NTB's DMA memory the segment is, referenced.
 * @dev: The NTB's PCI device, held until the memory is freed.
 * @cpu: Kernel address of the memory.
 * @dma: Its bus address for the NTB.
 * @size: Bytes.
 * @export_node: Node allowed to connect, SMARTIO_NODE_ALL, or 0 for none.
 * @grant: Lets @export_node reach the memory.
 * @users: The nodes connected to it (struct smartio_segment_user).
 * @removing: Being removed by force: its users are told, unlocked.
 */
struct smartio_segment {
	struct list_head list;
	struct kref ref;
	u32 id;
	struct smartio_adapter *ad;
	struct device *dev;
	void *cpu;
	dma_addr_t dma;
	u64 size;
	u16 export_node;
	struct smartio_grant grant;
	struct list_head users;
	bool removing;
};

/**
 * struct smartio_segment_user - A node connected to a local segment.
 * @list: Entry in the segment's @users.
 * @node_id: The node.
 * @conns: Its connections: where it was told the segment is
 *	(SMARTIO_MSG_OP_SEGMENT_INFO), less those it said it closed
 *	(SMARTIO_MSG_OP_SEGMENT_DISCONNECT). All go when it leaves.
 */
struct smartio_segment_user {
	struct list_head list;
	u16 node_id;
	u32 conns;
};

/**
 * struct smartio_segment_conn - A connection to a remote segment.
 * @list: Entry in smartio_conns.
 * @node_id: Owner of the segment.
 * @segment_id: The segment.
 * @ad: Adapter through which the owner is reached.
 * @pidx: The owner's peer index.
 * @lost: The owner left: the windows lead nowhere. Set under @fault_lock
 *	too, so that no fault maps a page after the zap that follows.
 * @map: The segment's range of the owner's bus address space, mapped.
 * @fault_lock: Serialises faulting the segment's pages in with @lost.
 * @mapping: The address space of the file the connection belongs to;
 *	NULL for a kernel user's.
 * @pgoff: Where the file's mappings of the segment are in @mapping (page
 *	offset): each file has a range of its own there, so that zapping
 *	them leaves other files' alone (smartio_segment_conn_zap()).
 */
struct smartio_segment_conn {
	struct list_head list;
	u16 node_id;
	u32 segment_id;
	struct smartio_adapter *ad;
	int pidx;
	bool lost;
	struct smartio_window_mapping map;
	struct mutex fault_lock;
	struct address_space *mapping;
	pgoff_t pgoff;
};

/*
 * Page offsets of the files' connections in /dev/smartio's address space:
 * past any local segment's (at 0, SMARTIO_SEGMENT_MAX_SIZE at most), one
 * SMARTIO_SEGMENT_MAX_SIZE range each.
 */
#define SMARTIO_CONN_PGOFF_SHIFT	(32 - PAGE_SHIFT)
static atomic64_t smartio_conn_pgoffs = ATOMIC64_INIT(0);

/* Protects both lists and every segment's @export_node and connection's @lost. */
static DEFINE_MUTEX(smartio_segments_lock);
static LIST_HEAD(smartio_segments);
static LIST_HEAD(smartio_conns);

static void smartio_segment_release(struct kref *ref)
{
	struct smartio_segment *seg = container_of(ref, struct smartio_segment,
						   ref);

	dma_free_coherent(seg->dev, seg->size, seg->cpu, seg->dma);
	put_device(seg->dev);
	smartio_adapter_put(seg->ad);
	kfree(seg);
}

static void smartio_segment_put(struct smartio_segment *seg)
{
	kref_put(&seg->ref, smartio_segment_release);
}

/* Called with smartio_segments_lock held. */
static struct smartio_segment *smartio_segment_find(u32 id)
{
	struct smartio_segment *seg;

	list_for_each_entry(seg, &smartio_segments, list)
		if (seg->id == id)
			return seg;
	return NULL;
}

static struct smartio_adapter *smartio_adapter_by_index(u32 index)
{
	struct smartio_adapter *ad;

	list_for_each_entry_srcu(ad, &smartio_adapters, list,
				 srcu_read_lock_held(&smartio_adapters_srcu))
		if (ad->index == index)
			return ad;
	return NULL;
}

static int smartio_segment_create(const struct smartio_segment_create *req)
{
	struct smartio_adapter *ad;
	struct smartio_segment *seg;
	int idx, ret;

	if (!req->segment_id || !req->size || !PAGE_ALIGNED(req->size) ||
	    req->size > SMARTIO_SEGMENT_MAX_SIZE)
		return -EINVAL;

	seg = kzalloc(sizeof(*seg), GFP_KERNEL);
	if (!seg)
		return -ENOMEM;
	kref_init(&seg->ref);
	INIT_LIST_HEAD(&seg->list);
	INIT_LIST_HEAD(&seg->users);
	seg->id = req->segment_id;
	seg->size = req->size;

	idx = srcu_read_lock(&smartio_adapters_srcu);
	ad = smartio_adapter_by_index(req->adapter);
	if (!ad) {
		ret = -ENODEV;
		goto err_unlock;
	}
	seg->ad = ad;
	smartio_adapter_get(ad);
	seg->dev = get_device(&ad->ntb->pdev->dev);
	/*
	 * A size past what the node can spare fails, ENOMEM: it must not
	 * wake the OOM killer, which would kill processes for it.
	 */
	seg->cpu = dma_alloc_coherent(seg->dev, seg->size, &seg->dma,
				      GFP_KERNEL | __GFP_RETRY_MAYFAIL |
				      __GFP_NOWARN);
	if (!seg->cpu) {
		ret = -ENOMEM;
		goto err_put_dev;
	}

	mutex_lock(&smartio_segments_lock);
	if (smartio_segment_find(seg->id)) {
		mutex_unlock(&smartio_segments_lock);
		ret = -EEXIST;
		goto err_free;
	}
	list_add_tail(&seg->list, &smartio_segments);
	mutex_unlock(&smartio_segments_lock);
	srcu_read_unlock(&smartio_adapters_srcu, idx);

	pr_info("segment %u: %llu bytes on adapter %d\n", seg->id, seg->size,
		ad->index);
	return 0;

err_free:
	dma_free_coherent(seg->dev, seg->size, seg->cpu, seg->dma);
err_put_dev:
	put_device(seg->dev);
	smartio_adapter_put(ad);
err_unlock:
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	kfree(seg);
	return ret;
}

/* The entry of @node among @seg's users, or NULL. */
static struct smartio_segment_user *
smartio_segment_user_find(struct smartio_segment *seg, u16 node)
{
	struct smartio_segment_user *u;

	list_for_each_entry(u, &seg->users, list)
		if (u->node_id == node)
			return u;
	return NULL;
}

/* Forgets @seg's users of @node, or every one (0). */
static void smartio_segment_users_drop(struct smartio_segment *seg, u16 node)
{
	struct smartio_segment_user *u, *next;

	list_for_each_entry_safe(u, next, &seg->users, list) {
		if (node && u->node_id != node)
			continue;
		list_del(&u->list);
		kfree(u);
	}
}

/*
 * Unlists a segment, if listed: its grant goes, peers reach it no more.
 * Called with smartio_segments_lock held.
 */
static void smartio_segment_unlist(struct smartio_segment *seg)
{
	if (list_empty(&seg->list))
		return;
	list_del_init(&seg->list);
	seg->export_node = 0;
	smartio_segment_users_drop(seg, 0);
	smartio_window_revoke(&seg->grant);
	smartio_segment_put(seg);
}

/*
 * Tells every node connected to @seg, being removed by force, that it is
 * taken away, and waits for each to have torn its mappings down and
 * closed its windows onto it (or to have left). One that does not answer
 * may still write into it: the memory is kept, never freed.
 */
static void smartio_segment_revoke_users(struct smartio_segment *seg)
{
	struct smartio_segment_info_req req = {
		.segment_id = cpu_to_le32(seg->id),
	};
	struct smartio_segment_user *u;
	bool kept = false;
	u32 resp_len;
	u16 node;
	int ret;

	for (;;) {
		mutex_lock(&smartio_segments_lock);
		u = list_first_entry_or_null(&seg->users,
					     struct smartio_segment_user, list);
		node = u ? u->node_id : 0;
		if (u)
			smartio_segment_users_drop(seg, node);
		mutex_unlock(&smartio_segments_lock);
		if (!node)
			break;
		ret = smartio_msg_call(node, SMARTIO_MSG_OP_SEGMENT_REVOKE,
				       &req, sizeof(req), NULL, 0, &resp_len,
				       SMARTIO_SEGMENT_TIMEOUT);
		if (!ret || ret == -EHOSTUNREACH || ret == -ENOTCONN)
			continue;
		pr_warn("segment %u: node %u did not let go of it (%d): its memory is kept\n",
			seg->id, node, ret);
		if (!kept)
			kref_get(&seg->ref);
		kept = true;
	}
}

static int smartio_segment_remove(u32 id, u32 flags)
{
	bool force = flags & SMARTIO_SEGMENT_REMOVE_FORCE;
	struct smartio_segment *seg;
	int ret = 0;

	if (flags & ~SMARTIO_SEGMENT_REMOVE_FORCE)
		return -EINVAL;
	mutex_lock(&smartio_segments_lock);
	seg = smartio_segment_find(id);
	if (!seg || seg->removing)
		ret = -ENOENT;
	else if (!force && (kref_read(&seg->ref) > 1 ||
			    !list_empty(&seg->users)))
		ret = -EBUSY;
	if (ret) {
		mutex_unlock(&smartio_segments_lock);
		return ret;
	}
	if (force && !list_empty(&seg->users)) {
		/* No node connects from now; each connected one lets go. */
		seg->removing = true;
		seg->export_node = 0;
		kref_get(&seg->ref);
		mutex_unlock(&smartio_segments_lock);
		smartio_segment_revoke_users(seg);
		mutex_lock(&smartio_segments_lock);
		/* Its adapter may have gone meanwhile, unlisting it. */
		smartio_segment_unlist(seg);
		mutex_unlock(&smartio_segments_lock);
		smartio_segment_put(seg);
	} else {
		smartio_segment_unlist(seg);
		mutex_unlock(&smartio_segments_lock);
	}
	pr_info("segment %u removed%s\n", id, force ? " by force" : "");
	return 0;
}

static int smartio_segment_export(const struct smartio_segment_export *req)
{
	struct smartio_segment *seg;
	int ret = 0;

	if (req->reserved || !req->node_id)
		return -EINVAL;
	mutex_lock(&smartio_segments_lock);
	seg = smartio_segment_find(req->segment_id);
	if (seg && seg->removing) {
		ret = -ENOENT;
	} else if (seg) {
		ret = smartio_window_grant(&seg->grant, seg->ad, req->node_id,
					   seg->dma, seg->size);
		seg->export_node = ret ? 0 : req->node_id;
	} else {
		ret = -ENOENT;
	}
	mutex_unlock(&smartio_segments_lock);
	return ret;
}

/*
 * Counts a connection of @node to @seg. Called with smartio_segments_lock
 * held.
 */
static int smartio_segment_user_add(struct smartio_segment *seg, u16 node)
{
	struct smartio_segment_user *u = smartio_segment_user_find(seg, node);

	if (!u) {
		u = kzalloc(sizeof(*u), GFP_KERNEL);
		if (!u)
			return -ENOMEM;
		u->node_id = node;
		list_add_tail(&u->list, &seg->users);
	}
	u->conns++;
	return 0;
}

/* Messaging handler: a peer asks where an exported segment is. */
static int smartio_segment_info_handler(u16 node_id,
					const struct smartio_msg *req,
					void *resp, u32 *resp_len)
{
	const struct smartio_segment_info_req *info = req->payload;
	struct smartio_segment_info_resp *out = resp;
	struct smartio_adapter *ad;
	struct smartio_segment *seg;
	int idx, ret = 0;

	if (req->len != sizeof(*info))
		return -EINVAL;

	idx = srcu_read_lock(&smartio_adapters_srcu);
	mutex_lock(&smartio_segments_lock);
	seg = smartio_segment_find(le32_to_cpu(info->segment_id));
	if (!seg || (seg->export_node != SMARTIO_NODE_ALL &&
		     seg->export_node != node_id)) {
		ret = -ENOENT;	/* not there, as far as this node may know */
	} else if (!smartio_node_peer(node_id, &ad) || ad != seg->ad) {
		ret = -EXDEV;	/* DMA memory of another adapter */
	} else if (!resp) {
		ret = -EINVAL;	/* an event: no answer, no connection */
	} else {
		ret = smartio_segment_user_add(seg, node_id);
		if (!ret) {
			out->addr = cpu_to_le64(seg->grant.peer_addr);
			out->size = cpu_to_le64(seg->size);
			*resp_len = sizeof(*out);
		}
	}
	mutex_unlock(&smartio_segments_lock);
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	return ret;
}

/*
 * Messaging handler: a node closed a connection to one of our segments
 * (or could not make one). A node that did not connect changes nothing.
 */
static int smartio_segment_disconnect_handler(u16 node_id,
					      const struct smartio_msg *req,
					      void *resp, u32 *resp_len)
{
	const struct smartio_segment_info_req *info = req->payload;
	struct smartio_segment_user *u = NULL;
	struct smartio_segment *seg;

	if (req->len != sizeof(*info))
		return -EINVAL;
	mutex_lock(&smartio_segments_lock);
	seg = smartio_segment_find(le32_to_cpu(info->segment_id));
	if (seg)
		u = smartio_segment_user_find(seg, node_id);
	if (u && !--u->conns) {
		list_del(&u->list);
		kfree(u);
	}
	mutex_unlock(&smartio_segments_lock);
	return u ? 0 : -ENOENT;
}

/*
 * Zaps every mapping of @conn's file: a process touching one again faults,
 * and gets SIGBUS (smartio_segment_conn_fault()).
 */
static void smartio_segment_conn_zap(struct smartio_segment_conn *conn)
{
	if (conn->mapping)
		unmap_mapping_range(conn->mapping,
				    (loff_t)conn->pgoff << PAGE_SHIFT,
				    conn->map.size, 1);
}

/*
 * @conn's owner left, or took the segment away: its windows lead nowhere
 * (or will not lead there long), so every CPU mapping of it goes.
 * Called with smartio_segments_lock held.
 */
static void smartio_segment_conn_lose(struct smartio_segment_conn *conn)
{
	mutex_lock(&conn->fault_lock);
	WRITE_ONCE(conn->lost, true);
	mutex_unlock(&conn->fault_lock);
	smartio_segment_conn_zap(conn);
}

/**
 * smartio_segment_connect() - Connect to a remote segment.
 * @node_id: The node that owns it.
 * @segment_id: The segment.
 *
 * Maps the segment through a window of the adapter @node_id is reached
 * through. Context: process context; sleeps.
 *
 * Return: The connection, or an ERR_PTR: -EHOSTUNREACH (@node_id is not
 * joined), -ENOENT (no such segment exported to us), -ENOTCONN (the node
 * left meanwhile), -EOPNOTSUPP (no windows), -ENOSPC (not enough free
 * windows), -EACCES (the owner refused to open a window), -ETIMEDOUT.
 */
struct smartio_segment_conn *smartio_segment_connect(u16 node_id,
						     u32 segment_id)
{
	struct smartio_segment_info_req req = {
		.segment_id = cpu_to_le32(segment_id),
	};
	struct smartio_segment_info_resp resp;
	struct smartio_segment_conn *conn;
	struct smartio_adapter *ad;
	struct smartio_peer *peer;
	u32 resp_len = 0, session;
	u64 addr, size;
	int idx, ret;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return ERR_PTR(-ENOMEM);
	mutex_init(&conn->fault_lock);

	idx = srcu_read_lock(&smartio_adapters_srcu);
	peer = smartio_node_peer(node_id, &ad);
	if (!peer) {
		ret = -EHOSTUNREACH;
		goto err_unlock;
	}
	session = READ_ONCE(peer->session);
	ret = smartio_msg_call_peer(ad, peer, SMARTIO_MSG_OP_SEGMENT_INFO,
				    &req, sizeof(req), &resp, sizeof(resp),
				    &resp_len, SMARTIO_SEGMENT_TIMEOUT);
	if (!ret && resp_len != sizeof(resp))
		ret = -EBADMSG;
	if (ret)
		goto err_unlock;
	addr = le64_to_cpu(resp.addr);
	size = le64_to_cpu(resp.size);
	if (!size || addr + size < addr) {
		ret = -EBADMSG;
		goto err_unlock;
	}

	ret = smartio_window_map(ad, peer->pidx, addr, size, &conn->map);
	if (ret)
		goto err_told;
	conn->node_id = node_id;
	conn->segment_id = segment_id;
	conn->ad = ad;
	conn->pidx = peer->pidx;

	/*
	 * A peer that left after we asked may have had its slots cleared
	 * before ours were listed: then ours are stale. Leaving bumps
	 * nothing but this list under the lock, after the session.
	 */
	mutex_lock(&smartio_segments_lock);
	if (READ_ONCE(peer->session) != session || !READ_ONCE(peer->chan.up)) {
		mutex_unlock(&smartio_segments_lock);
		smartio_window_unmap(&conn->map);
		ret = -ENOTCONN;
		goto err_told;
	}
	list_add_tail(&conn->list, &smartio_conns);
	mutex_unlock(&smartio_segments_lock);
	srcu_read_unlock(&smartio_adapters_srcu, idx);

	pr_info("segment %u of node %u: %llu bytes at %pa\n", segment_id,
		node_id, size, &conn->map.phys);
	return conn;

err_told:
	/* The owner counted a connection: it is not one. */
	smartio_msg_post(node_id, SMARTIO_MSG_OP_SEGMENT_DISCONNECT, &req,
			 sizeof(req));
err_unlock:
	srcu_read_unlock(&smartio_adapters_srcu, idx);
	kfree(conn);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(smartio_segment_connect);

/**
 * smartio_segment_disconnect() - Undo smartio_segment_connect().
 * @conn: A connection; no mapping of it (CPU or device) may remain.
 */
void smartio_segment_disconnect(struct smartio_segment_conn *conn)
{
	struct smartio_segment_info_req req = {
		.segment_id = cpu_to_le32(conn->segment_id),
	};
	bool lost;

	mutex_lock(&smartio_segments_lock);
	list_del(&conn->list);
	lost = conn->lost;
	mutex_unlock(&smartio_segments_lock);
	/* An owner that left, or took it away, counts it no more. */
	if (!lost)
		smartio_msg_post(conn->node_id,
				 SMARTIO_MSG_OP_SEGMENT_DISCONNECT, &req,
				 sizeof(req));
	smartio_window_unmap(&conn->map);
	mutex_destroy(&conn->fault_lock);
	kfree(conn);
}
EXPORT_SYMBOL_GPL(smartio_segment_disconnect);

/**
 * smartio_segment_size() - Size of a connected segment.
 * @conn: The connection.
 *
 * Return: Bytes.
 */
u64 smartio_segment_size(const struct smartio_segment_conn *conn)
{
	return conn->map.size;
}
EXPORT_SYMBOL_GPL(smartio_segment_size);

/**
 * smartio_segment_map_device() - Map a connected segment for a local device.
 * @conn: The connection.
 * @dev: A device of this host that is to reach the segment by DMA.
 * @addr: Set to the address @dev must use for the segment's first byte;
 *	the segment is linear from there.
 *
 * The device's accesses go to the NTB's window (peer-to-peer, through
 * @dev's IOMMU if it has one) and on to the segment's memory; no CPU is
 * involved.
 *
 * Return: 0, -ENOTCONN if the owner left, or -ENOMEM.
 */
int smartio_segment_map_device(struct smartio_segment_conn *conn,
			       struct device *dev, dma_addr_t *addr)
{
	dma_addr_t a;

	if (READ_ONCE(conn->lost))
		return -ENOTCONN;
	a = dma_map_resource(dev, conn->map.phys, conn->map.size,
			     DMA_BIDIRECTIONAL, 0);
	if (dma_mapping_error(dev, a))
		return -ENOMEM;
	*addr = a;
	return 0;
}
EXPORT_SYMBOL_GPL(smartio_segment_map_device);

/**
 * smartio_segment_unmap_device() - Undo smartio_segment_map_device().
 * @conn: The connection.
 * @dev: The device.
 * @addr: The address smartio_segment_map_device() returned.
 */
void smartio_segment_unmap_device(struct smartio_segment_conn *conn,
				  struct device *dev, dma_addr_t addr)
{
	dma_unmap_resource(dev, addr, conn->map.size, DMA_BIDIRECTIONAL, 0);
}
EXPORT_SYMBOL_GPL(smartio_segment_unmap_device);

/*
 * Messaging handler: the owner of a segment we are connected to removes it
 * by force. Every mapping of it goes (a process touching one gets SIGBUS)
 * and, where no device may be left mapped onto it (a file's connection),
 * the window onto it closes, before we answer: then it frees the memory.
 */
static int smartio_segment_revoke_handler(u16 node_id,
					  const struct smartio_msg *req,
					  void *resp, u32 *resp_len)
{
	const struct smartio_segment_info_req *info = req->payload;
	struct smartio_segment_conn *conn;

	if (req->len != sizeof(*info))
		return -EINVAL;
	mutex_lock(&smartio_segments_lock);
	list_for_each_entry(conn, &smartio_conns, list) {
		if (conn->node_id != node_id || conn->lost ||
		    conn->segment_id != le32_to_cpu(info->segment_id))
			continue;
		smartio_segment_conn_lose(conn);
		if (conn->mapping)
			smartio_window_unmap(&conn->map);
		pr_info("segment %u of node %u lost: its node removed it\n",
			conn->segment_id, conn->node_id);
	}
	mutex_unlock(&smartio_segments_lock);
	return 0;
}

/*
 * @conn's node left, or leaves: its mappings go (a process touching one
 * gets SIGBUS). Called with smartio_segments_lock held, on a connection
 * not lost yet.
 */
static void smartio_segment_conn_left(struct smartio_segment_conn *conn)
{
	lockdep_assert_held(&smartio_segments_lock);
	smartio_segment_conn_lose(conn);
	pr_info("segment %u of node %u lost: its node left\n",
		conn->segment_id, conn->node_id);
}

/*
 * Messaging handler (event): a node leaves, and takes its link down once
 * we have read this. The mappings of its segments go now, while a store
 * into one still reaches it: a store that met the link going down would
 * be dropped, lost before its SIGBUS. Its windows close when it has left.
 */
static int smartio_segment_leaving_handler(u16 node_id,
					   const struct smartio_msg *req,
					   void *resp, u32 *resp_len)
{
	struct smartio_segment_conn *conn;

	/* Only the event: a request of the op means nothing. */
	if (req->kind != SMARTIO_MSG_EVENT)
		return -EINVAL;
	mutex_lock(&smartio_segments_lock);
	list_for_each_entry(conn, &smartio_conns, list)
		if (conn->node_id == node_id && !conn->lost)
			smartio_segment_conn_left(conn);
	mutex_unlock(&smartio_segments_lock);
	return 0;
}

/**
 * smartio_segment_peer_left() - A peer left: its segments we are connected
 *	to are lost, and its connections to ours gone.
 * @ad: The adapter.
 * @peer: The peer, no longer joined.
 */
void smartio_segment_peer_left(struct smartio_adapter *ad,
			       struct smartio_peer *peer)
{
	struct smartio_segment_conn *conn;
	struct smartio_segment *seg;

	mutex_lock(&smartio_segments_lock);
	list_for_each_entry(seg, &smartio_segments, list)
		if (seg->ad == ad)
			smartio_segment_users_drop(seg, peer->node_id);
	list_for_each_entry(conn, &smartio_conns, list)
		if (conn->ad == ad && conn->pidx == peer->pidx && !conn->lost)
			smartio_segment_conn_left(conn);
	mutex_unlock(&smartio_segments_lock);
}

/**
 * smartio_segment_adapter_gone() - Unlist the segments of an adapter.
 * @ad: The adapter, being removed; no peer of it is joined any more.
 *
 * Attached files keep their segment's memory until they close.
 */
void smartio_segment_adapter_gone(struct smartio_adapter *ad)
{
	struct smartio_segment *seg, *next;

	mutex_lock(&smartio_segments_lock);
	list_for_each_entry_safe(seg, next, &smartio_segments, list)
		if (seg->ad == ad)
			smartio_segment_unlist(seg);
	mutex_unlock(&smartio_segments_lock);
}

/**
 * struct smartio_segment_file - An open /dev/smartio.
 * @lock: Serialises binding with mmap.
 * @seg: The local segment bound, or NULL.
 * @conn: The connection bound, or NULL.
 */
struct smartio_segment_file {
	struct mutex lock;
	struct smartio_segment *seg;
	struct smartio_segment_conn *conn;
};

static int smartio_segment_open(struct inode *inode, struct file *file)
{
	struct smartio_segment_file *sf;

	sf = kzalloc(sizeof(*sf), GFP_KERNEL);
	if (!sf)
		return -ENOMEM;
	mutex_init(&sf->lock);
	file->private_data = sf;
	return 0;
}

static int smartio_segment_release_file(struct inode *inode, struct file *file)
{
	struct smartio_segment_file *sf = file->private_data;

	/* No mapping is left: the last munmap came before the last close. */
	if (sf->conn)
		smartio_segment_disconnect(sf->conn);
	if (sf->seg)
		smartio_segment_put(sf->seg);
	mutex_destroy(&sf->lock);
	kfree(sf);
	return 0;
}

static int smartio_segment_attach(struct smartio_segment_file *sf,
				  struct smartio_segment_info *info)
{
	struct smartio_segment *seg;

	mutex_lock(&smartio_segments_lock);
	seg = smartio_segment_find(info->segment_id);
	if (seg)
		kref_get(&seg->ref);
	mutex_unlock(&smartio_segments_lock);
	if (!seg)
		return -ENOENT;
	sf->seg = seg;
	return 0;
}

static void smartio_segment_fill_info(struct smartio_segment_file *sf,
				      struct smartio_segment_info *info)
{
	memset(info, 0, sizeof(*info));
	if (sf->seg) {
		info->node_id = sf->seg->ad->node_id;
		info->segment_id = sf->seg->id;
		info->size = sf->seg->size;
	} else {
		info->node_id = sf->conn->node_id;
		info->segment_id = sf->conn->segment_id;
		info->size = sf->conn->map.size;
		info->flags = SMARTIO_SEGMENT_REMOTE;
		if (READ_ONCE(sf->conn->lost))
			info->flags |= SMARTIO_SEGMENT_LOST;
	}
}

/* ATTACH and CONNECT: bind the file to a segment. */
static long smartio_segment_bind(struct smartio_segment_file *sf,
				 struct address_space *mapping,
				 unsigned int cmd, void __user *uarg)
{
	struct smartio_segment_conn *conn;
	struct smartio_segment_info info;
	int ret;

	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	if (info.reserved || info.reserved2)
		return -EINVAL;

	mutex_lock(&sf->lock);
	if (sf->seg || sf->conn) {
		ret = -EBUSY;
		goto unlock;
	}
	if (cmd == SMARTIO_IOC_SEGMENT_ATTACH) {
		ret = smartio_segment_attach(sf, &info);
	} else {
		conn = smartio_segment_connect(info.node_id, info.segment_id);
		ret = PTR_ERR_OR_ZERO(conn);
		if (!ret) {
			conn->pgoff = atomic64_inc_return(&smartio_conn_pgoffs) <<
				      SMARTIO_CONN_PGOFF_SHIFT;
			/* Its mappings are zapped from now on when it is lost. */
			mutex_lock(&smartio_segments_lock);
			conn->mapping = mapping;
			mutex_unlock(&smartio_segments_lock);
			sf->conn = conn;
		}
	}
	if (!ret)
		smartio_segment_fill_info(sf, &info);
unlock:
	mutex_unlock(&sf->lock);
	/*
	 * Copied out after sf->lock is dropped: a fault on @uarg takes the
	 * mmap lock, which mmap() holds while it takes sf->lock.
	 */
	if (!ret && copy_to_user(uarg, &info, sizeof(info)))
		ret = -EFAULT;	/* bound all the same, as close undoes it */
	return ret;
}

static long smartio_segment_ioctl(struct file *file, unsigned int cmd,
				  unsigned long arg)
{
	struct smartio_segment_file *sf = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct smartio_segment_create create;
	struct smartio_segment_export export;
	struct smartio_segment_remove remove;
	struct smartio_segment_info info;
	u32 id;

	if (cmd == SMARTIO_IOC_SEGMENT_INFO) {
		mutex_lock(&sf->lock);
		if (!sf->seg && !sf->conn) {
			mutex_unlock(&sf->lock);
			return -ENOENT;
		}
		smartio_segment_fill_info(sf, &info);
		mutex_unlock(&sf->lock);
		return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
	}

	switch (cmd) {
	case SMARTIO_IOC_SEGMENT_CREATE:
	case SMARTIO_IOC_SEGMENT_REMOVE:
	case SMARTIO_IOC_SEGMENT_REMOVE_FLAGS:
	case SMARTIO_IOC_SEGMENT_EXPORT:
	case SMARTIO_IOC_SEGMENT_ATTACH:
	case SMARTIO_IOC_SEGMENT_CONNECT:
		/* They pin memory and map other nodes' memory. */
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		break;
	default:
		return -ENOTTY;
	}

	switch (cmd) {
	case SMARTIO_IOC_SEGMENT_CREATE:
		if (copy_from_user(&create, uarg, sizeof(create)))
			return -EFAULT;
		return smartio_segment_create(&create);
	case SMARTIO_IOC_SEGMENT_REMOVE:
		if (get_user(id, (u32 __user *)uarg))
			return -EFAULT;
		return smartio_segment_remove(id, 0);
	case SMARTIO_IOC_SEGMENT_REMOVE_FLAGS:
		if (copy_from_user(&remove, uarg, sizeof(remove)))
			return -EFAULT;
		return smartio_segment_remove(remove.segment_id, remove.flags);
	case SMARTIO_IOC_SEGMENT_EXPORT:
		if (copy_from_user(&export, uarg, sizeof(export)))
			return -EFAULT;
		return smartio_segment_export(&export);
	default:
		return smartio_segment_bind(sf, file->f_mapping, cmd, uarg);
	}
}

/*
 * A page of a connected segment is touched: it is mapped, or, once the
 * connection is lost (its owner left or took it away), the toucher gets
 * SIGBUS. Pages are mapped one at a time, at their first touch, so that
 * none is mapped after smartio_segment_conn_lose() zapped them.
 */
static vm_fault_t smartio_segment_conn_fault(struct vm_fault *vmf)
{
	struct smartio_segment_conn *conn = vmf->vma->vm_private_data;
	u64 off = (u64)(vmf->pgoff - conn->pgoff) << PAGE_SHIFT;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	mutex_lock(&conn->fault_lock);
	if (!conn->lost && off < conn->map.size)
		ret = vmf_insert_pfn_prot(vmf->vma, vmf->address,
					  (conn->map.phys + off) >> PAGE_SHIFT,
					  vmf->vma->vm_page_prot);
	mutex_unlock(&conn->fault_lock);
	return ret;
}

static const struct vm_operations_struct smartio_segment_conn_vm_ops = {
	.fault = smartio_segment_conn_fault,
};

static int smartio_segment_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct smartio_segment_file *sf = file->private_data;
	u64 len = vma->vm_end - vma->vm_start;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 size;
	int ret;

	mutex_lock(&sf->lock);
	if (!sf->seg && !sf->conn) {
		ret = -ENOENT;
		goto unlock;
	}
	size = sf->seg ? sf->seg->size : sf->conn->map.size;
	if (off >= size || len > size - off) {
		ret = -EINVAL;
		goto unlock;
	}
	if (sf->seg) {
		ret = dma_mmap_coherent(sf->seg->dev, vma, sf->seg->cpu,
					sf->seg->dma, size);
	} else if (READ_ONCE(sf->conn->lost)) {
		ret = -ENOTCONN;
	} else if (!(vma->vm_flags & VM_SHARED)) {
		/* No private copy of another node's memory: pages of it. */
		ret = -EINVAL;
	} else {
		/* Write-combined, as the NTB's windows are prefetchable. */
		vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
		vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND |
				 VM_DONTDUMP;
		/* The file's range in its address space, which a zap finds. */
		vma->vm_pgoff += sf->conn->pgoff;
		vma->vm_private_data = sf->conn;
		vma->vm_ops = &smartio_segment_conn_vm_ops;
		ret = 0;
	}
unlock:
	mutex_unlock(&sf->lock);
	return ret;
}

static const struct file_operations smartio_segment_fops = {
	.owner = THIS_MODULE,
	.open = smartio_segment_open,
	.release = smartio_segment_release_file,
	.unlocked_ioctl = smartio_segment_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = smartio_segment_mmap,
	.llseek = noop_llseek,
};

/* Anyone may open it and ask; what changes anything needs CAP_SYS_ADMIN. */
static struct miscdevice smartio_segment_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "smartio",
	.fops = &smartio_segment_fops,
	.mode = 0666,
};

/* The core lists segments through this (netlink segment-get). */
static int smartio_segment_get(unsigned long pos,
			       struct smartio_fabric_segment *out)
{
	struct smartio_segment_conn *conn;
	struct smartio_segment *seg;
	int ret = -ENOENT;

	mutex_lock(&smartio_segments_lock);
	list_for_each_entry(seg, &smartio_segments, list) {
		if (pos--)
			continue;
		out->node_id = READ_ONCE(seg->ad->node_id);
		out->segment_id = seg->id;
		out->size = seg->size;
		out->flags = seg->export_node ? SMARTIO_SEGMENT_EXPORTED : 0;
		ret = 0;
		goto unlock;
	}
	list_for_each_entry(conn, &smartio_conns, list) {
		if (pos--)
			continue;
		out->node_id = conn->node_id;
		out->segment_id = conn->segment_id;
		out->size = conn->map.size;
		out->flags = SMARTIO_SEGMENT_REMOTE |
			     (conn->lost ? SMARTIO_SEGMENT_LOST : 0);
		ret = 0;
		goto unlock;
	}
unlock:
	mutex_unlock(&smartio_segments_lock);
	return ret;
}

static const struct smartio_fabric_segment_ops smartio_segment_ops = {
	.get = smartio_segment_get,
};

static const struct {
	u16 op;
	smartio_msg_handler_t handler;
} smartio_segment_handlers[] = {
	{ SMARTIO_MSG_OP_SEGMENT_INFO, smartio_segment_info_handler },
	{ SMARTIO_MSG_OP_SEGMENT_DISCONNECT, smartio_segment_disconnect_handler },
	{ SMARTIO_MSG_OP_SEGMENT_REVOKE, smartio_segment_revoke_handler },
	{ SMARTIO_MSG_OP_LEAVING, smartio_segment_leaving_handler },
};

static void smartio_segment_handlers_unregister(unsigned int n)
{
	while (n--)
		smartio_msg_handler_unregister(smartio_segment_handlers[n].op);
}

int smartio_segment_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(smartio_segment_handlers); i++) {
		ret = smartio_msg_handler_register(smartio_segment_handlers[i].op,
						   smartio_segment_handlers[i].handler);
		if (ret)
			goto err_handlers;
	}
	ret = smartio_fabric_segments_register(&smartio_segment_ops);
	if (ret)
		goto err_handlers;
	ret = misc_register(&smartio_segment_miscdev);
	if (ret)
		goto err_ops;
	return 0;

err_ops:
	smartio_fabric_segments_unregister();
err_handlers:
	smartio_segment_handlers_unregister(i);
	return ret;
}

void smartio_segment_exit(void)
{
	misc_deregister(&smartio_segment_miscdev);
	smartio_fabric_segments_unregister();
	smartio_segment_handlers_unregister(ARRAY_SIZE(smartio_segment_handlers));
}
