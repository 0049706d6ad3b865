/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NTB layer's kernel API (ntb/smartio_ntb): kernel-to-kernel messaging
 * between the nodes of the fabric, and connections to other nodes'
 * segments (see ntb/segment.c). Kernel only.
 *
 * Every control operation between two nodes (borrow, config-space access)
 * is a request answered by one response, or an event that
 * is not answered. Messages to one node are delivered in the order they
 * were sent; a node that leaves fails every request pending on it with
 * -ENOTCONN at once, whatever its timeout. The wire format is
 * smartio/msg.h's.
 */
#ifndef _SMARTIO_NTB_H
#define _SMARTIO_NTB_H

#include <linux/types.h>

#include "smartio/msg.h"

/* Operation codes: one per kind of request or event, never reused. */
enum smartio_msg_op {
	SMARTIO_MSG_OP_ECHO = 1,	/* the response echoes the request */
	SMARTIO_MSG_OP_SEGMENT_INFO,	/* where an exported segment is */
	SMARTIO_MSG_OP_RETIRED_3,	/* was WINDOW_SET (handshake 1) */
	SMARTIO_MSG_OP_DEVICE_NEXT,	/* a lender's device, by index */
	SMARTIO_MSG_OP_BORROW,		/* borrow a device: windows, config */
	SMARTIO_MSG_OP_RETURN,		/* give a borrowed device back */
	SMARTIO_MSG_OP_CONFIG_WRITE,	/* event: a borrower's config write */
	SMARTIO_MSG_OP_RECLAIMED,	/* event: the lender took a device back */
	SMARTIO_MSG_OP_CONFIG_READ,	/* a borrowed device's config space */
	SMARTIO_MSG_OP_RESET,		/* reset a borrowed device, state kept */
	SMARTIO_MSG_OP_SEGMENT_DISCONNECT, /* event: a connection is gone */
	SMARTIO_MSG_OP_SEGMENT_REVOKE,	/* the owner takes a segment away */
	SMARTIO_MSG_OP_RETURNING,	/* a borrower's driver lets go: RETURN next */
	SMARTIO_MSG_OP_LEAVING,		/* event: the sender's link goes down next */
	SMARTIO_MSG_OP_DMA_MAP,		/* memory at an address the borrower chose */
	SMARTIO_MSG_OP_DMA_UNMAP,	/* undo a DMA_MAP */
	SMARTIO_MSG_OP_AVAILABLE,	/* event: a lender's device is available */
	SMARTIO_MSG_OP_PEER_MAP,	/* a peer's BAR at an address of ours */
	SMARTIO_MSG_OP_PEER_UNMAP,	/* undo a PEER_MAP */
	SMARTIO_MSG_OP_MAX = 64,	/* first code not available */
};

/**
 * typedef smartio_msg_handler_t - Serves the requests and events of one op.
 * @node_id: Node that sent @req.
 * @req: The request or event, payload included.
 * @resp: Buffer of SMARTIO_MSG_MAX_PAYLOAD bytes for the response's
 *	payload; for an event (the peer's choice, whatever the op) what is
 *	put there is not sent.
 * @resp_len: Bytes of @resp to send, 0 on entry.
 *
 * Called in process context, one message of a node at a time, in order:
 * a handler must not wait for another message from the same node.
 *
 * Return: The response's status: 0 or a negative errno.
 */
typedef int (*smartio_msg_handler_t)(u16 node_id, const struct smartio_msg *req,
				     void *resp, u32 *resp_len);

int smartio_msg_handler_register(u16 op, smartio_msg_handler_t handler);
void smartio_msg_handler_unregister(u16 op);
int smartio_msg_call(u16 node_id, u16 op, const void *req, u32 len,
		     void *resp, u32 resp_max, u32 *resp_len,
		     unsigned long timeout);
int smartio_msg_post(u16 node_id, u16 op, const void *buf, u32 len);
#ifdef CONFIG_SMARTIO_TEST_HOOKS
/*
 * Test hooks (ntb/test_hooks.c), for tests that play a hostile peer: bytes
 * sent as a message, unchecked.
 */
#define SMARTIO_MSG_RAW_SEQ	1U	/* the caller's sequence number */
#define SMARTIO_MSG_RAW_RING	2U	/* the caller's record header too */
int smartio_msg_post_raw(u16 node_id, const void *buf, u32 len,
			 unsigned int flags);
#endif

/* Node events, for smartio_node_notifier_register(). */
#define SMARTIO_NODE_LEFT	1
#define SMARTIO_ADAPTER_GONE	2	/* finish what NODE_LEFT started */
#define SMARTIO_NODE_LEAVING	3	/* we leave it: undo while it answers */
#define SMARTIO_NODE_JOINED	4	/* smartio_node_session() finds it */

/**
 * struct smartio_node_event - What a node notifier is told.
 * @node_id: The node.
 * @session: For SMARTIO_NODE_JOINED, the session it joined in. Otherwise
 *	the session it left (smartio_node_session()): what was set up with
 *	it in this session or an earlier one is gone; what was set up in a
 *	later one belongs to a new joining of the node, which a quick rejoin
 *	may have made before the notified work runs.
 */
struct smartio_node_event {
	u16 node_id;
	u32 session;
};

struct notifier_block;
int smartio_node_notifier_register(struct notifier_block *nb);
void smartio_node_notifier_unregister(struct notifier_block *nb);

u32 smartio_node_session(u16 node_id);
u16 smartio_local_node_id(void);
u16 smartio_node_next(u16 after);

struct pci_dev;
bool smartio_pci_dev_is_adapter(struct pci_dev *pdev);

/*
 * Requester-ID tables (ntb/requester.c): a local device that has DMA
 * through an NTB must be listed there on NTBs that forward only listed
 * requesters; elsewhere these succeed doing nothing.
 */
int smartio_requester_add(u16 node_id, struct pci_dev *pdev);
void smartio_requester_remove(u16 node_id, struct pci_dev *pdev);
int smartio_requester_add_with_vfs(u16 node_id, struct pci_dev *pdev);
void smartio_requester_remove_with_vfs(u16 node_id, struct pci_dev *pdev);

struct device;
struct smartio_remote;
struct smartio_grant;

struct smartio_remote *smartio_remote_map(u16 node_id, u64 addr, u64 size);
phys_addr_t smartio_remote_phys(const struct smartio_remote *r);
void smartio_remote_unmap(struct smartio_remote *r);
struct device *smartio_node_dma_device(u16 node_id);
struct smartio_grant *smartio_node_grant(u16 node_id, u64 addr, u64 size);
u64 smartio_grant_addr(const struct smartio_grant *g);
void smartio_node_revoke(struct smartio_grant *g);
void smartio_node_flush(u16 node_id);
u64 smartio_ram_end(void);

/*
 * The x86 interrupt address range: an MSI is a write here. A node opens
 * an inbound window onto it for the devices it borrows (ntb/reach.c).
 */
#define SMARTIO_MSI_ADDR	0xfee00000ULL
#define SMARTIO_MSI_SIZE	0x100000ULL

struct smartio_iova_window;
struct scatterlist;

struct smartio_iova_window *smartio_iova_window_get(u16 node_id, u64 *base,
						    u64 *size);
void smartio_iova_window_put(struct smartio_iova_window *w);
dma_addr_t smartio_iova_map(struct smartio_iova_window *w, const void *owner,
			    phys_addr_t phys, size_t size, int prot);
void smartio_iova_unmap(struct smartio_iova_window *w, const void *owner,
			dma_addr_t addr, size_t size);
int smartio_iova_map_sg(struct smartio_iova_window *w, const void *owner,
			struct scatterlist *sgl, int nents, int prot,
			unsigned long mask, u64 offset);
void smartio_iova_unmap_sg(struct smartio_iova_window *w, const void *owner,
			   struct scatterlist *sgl, int nents, u64 offset);
unsigned long smartio_iova_unmap_owner(struct smartio_iova_window *w,
				       const void *owner,
				       unsigned long *ranges);

struct smartio_segment_conn;

struct smartio_segment_conn *smartio_segment_connect(u16 node_id,
						     u32 segment_id);
void smartio_segment_disconnect(struct smartio_segment_conn *conn);
u64 smartio_segment_size(const struct smartio_segment_conn *conn);
int smartio_segment_map_device(struct smartio_segment_conn *conn,
			       struct device *dev, dma_addr_t *addr);
void smartio_segment_unmap_device(struct smartio_segment_conn *conn,
				  struct device *dev, dma_addr_t addr);

#endif /* _SMARTIO_NTB_H */
