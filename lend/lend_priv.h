/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to smartio_lend: the lender's devices (lender.c), the
 * cluster-wide view of devices (devices.c), config space (config.c) and
 * the borrower's shadow devices (borrower.c, shadow.c).
 */
#ifndef _SMARTIO_LEND_PRIV_H
#define _SMARTIO_LEND_PRIV_H

#include <linux/list.h>
#include <linux/pci.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "smartio/borrow.h"
#include "smartio/lend.h"
#include "smartio/le.h"
#include "smartio/ntb.h"
#include "smartio/pci_config.h"

/* Name of the lender's stub driver, which holds available functions. */
#define SMARTIO_LENDER_DRIVER	"smartio-lender"

/*
 * Is BAR @i of @pdev one the lender lends: memory, and present? I/O BARs
 * do not cross the fabric.
 */
static inline bool smartio_lent_bar(struct pci_dev *pdev, int i)
{
	return (pci_resource_flags(pdev, i) & IORESOURCE_MEM) &&
	       pci_resource_len(pdev, i);
}

/* Time a request to another node may take. */
#define SMARTIO_LEND_TIMEOUT	(5 * HZ)

/*
 * A request to node @node whose response is @resp_size bytes into @resp:
 * smartio_msg_call()'s status, or -EBADMSG if it answered with another
 * size.
 */
static inline int smartio_lend_call(u16 node, u16 op, const void *req,
				    u32 len, void *resp, u32 resp_size,
				    unsigned long timeout)
{
	u32 resp_len = 0;
	int ret;

	ret = smartio_msg_call(node, op, req, len, resp, resp_size, &resp_len,
			       timeout);
	if (!ret && resp_len != resp_size)
		ret = -EBADMSG;
	return ret;
}

/*
 * Time a reset on the lender may take: the PCI core waits up to 60 s for
 * a function to come back from one (PCIE_RESET_READY_POLL_MS).
 */
#define SMARTIO_LEND_RESET_TIMEOUT	(65 * HZ)

/*
 * SMARTIO_MSG_OP_DEVICE_NEXT: the lender's device with the lowest index
 * at or above @index; -ENOENT when there is none.
 */
struct smartio_device_next_req {
	__le16 index;
};

/* A device on the wire: struct smartio_device_info less local_name. */
struct smartio_device_wire {
	__le32 fdid;
	__le32 class;
	__le32 state;
	__le16 node_id;
	__le16 vendor;
	__le16 device;
	__le16 borrower;
	char pci_name[SMARTIO_PCI_NAME_MAX];
};

/* A range: of device addresses, or of the borrower's bus addresses. */
struct smartio_range_wire {
	__le64 start;
	__le64 size;
};

/*
 * SMARTIO_MSG_OP_BORROW request: the borrower's bus ranges the device
 * must reach, for DMA and for MSI writes (the lender opens windows onto
 * both), and the device addresses its kernel user will map memory at
 * (smartio_borrow_args.user_ranges; size 0: none), which those windows
 * keep clear of in the function's IOMMU domain.
 */
struct smartio_borrow_req {
	__le32 fdid;
	__le32 reserved;
	__le64 dma_addr;
	__le64 dma_size;
	__le64 msi_addr;
	__le64 msi_size;
	struct smartio_range_wire user_ranges[SMARTIO_BORROW_USER_RANGES];
};

/* smartio_dma_map_req.flags: the device reads, writes the memory. */
#define SMARTIO_DMA_MAP_READ	BIT(0)
#define SMARTIO_DMA_MAP_WRITE	BIT(1)

/*
 * SMARTIO_MSG_OP_DMA_MAP request: the function is to reach @size bytes
 * of the borrower's DMA range, from @offset in it, at device address
 * @dev_addr, SMARTIO_DMA_MAP_* @flags. SMARTIO_MSG_OP_DMA_UNMAP: undo the
 * one made with the same fields (@flags 0). user_dma.c.
 */
struct smartio_dma_map_req {
	__le32 fdid;
	__le32 flags;
	__le64 dev_addr;
	__le64 offset;
	__le64 size;
};

/*
 * SMARTIO_MSG_OP_PEER_MAP request: the function @fdid is to reach @size
 * bytes of BAR @bar of @peer_fdid, another function lent to the same
 * borrower under the same host bridge, at device addresses from
 * @dev_addr (a guest-physical BAR, for mdev). SMARTIO_MSG_OP_PEER_UNMAP:
 * undo the map at exactly @dev_addr, @size (the fields as the map's).
 * @reserved is 0. user_dma.c, p2p.c.
 */
struct smartio_peer_map_req {
	__le32 fdid;
	__le32 peer_fdid;
	__le32 bar;
	__le32 reserved;
	__le64 dev_addr;
	__le64 size;
};

/* A memory BAR, as the borrower maps it: the lender's bus address. */
struct smartio_bar_wire {
	__le64 addr;
	__le64 size;
};

#define SMARTIO_BORROW_CONFIG_SIZE	PCI_CFG_SPACE_SIZE

/* smartio_borrow_resp.flags: the lender can reset the function. */
#define SMARTIO_BORROW_RESETTABLE	BIT(0)

/*
 * SMARTIO_MSG_OP_BORROW response: where the device sees the borrower's
 * ranges, its memory BARs (size 0: none), the first 256 bytes of its
 * config space and the size of all of it (256 or 4096 bytes: the rest is
 * read with SMARTIO_MSG_OP_CONFIG_READ, which a message would not hold
 * with the rest), SMARTIO_BORROW_* flags, the device as the lender now
 * lists it (the borrower's answer to its user, without asking again), and
 * its host bridge's id there: functions of one lender with the same one
 * reach each other's BARs at the bus addresses their BAR registers hold
 * (p2p.c).
 */
struct smartio_borrow_resp {
	__le64 dma_base;
	__le64 msi_base;
	struct smartio_bar_wire bars[PCI_STD_NUM_BARS];
	u8 config[SMARTIO_BORROW_CONFIG_SIZE];
	struct smartio_device_wire device;
	__le16 config_size;
	__le16 flags;
	__le32 p2p_bridge;
};

/*
 * SMARTIO_MSG_OP_RETURN request, SMARTIO_MSG_OP_RECLAIMED and
 * SMARTIO_MSG_OP_AVAILABLE events; every config access (below) starts
 * with the fdid as it does.
 */
struct smartio_return_req {
	__le32 fdid;
};

/*
 * Command register bits the lender keeps to itself while a function is
 * lent, whatever the borrower writes: memory decoding on (the borrower
 * turns it off to size BARs, which it does on its copy, and its MMIO must
 * never find it off), I/O decoding as the lender set it (I/O BARs are not
 * reachable across the fabric) and INTx off (the borrower sees no
 * interrupt pin). A write that changes only these is not sent.
 */
#define SMARTIO_LENDER_COMMAND \
	(PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_INTX_DISABLE)

/*
 * SMARTIO_MSG_OP_CONFIG_WRITE: a config write of the borrower, @size
 * bytes (1, 2 or 4) at @offset, aligned to its size; an event, or a
 * request where the borrower waits for the lender's verdict: 0, -EPERM
 * (refused: config.c has what a borrower may write), -EINVAL (not a
 * config access of the function).
 */
struct smartio_config_write {
	__le32 fdid;
	__le32 value;
	__le16 offset;
	u8 size;
	u8 reserved;
};

/*
 * SMARTIO_MSG_OP_CONFIG_READ request: @size bytes at @offset of the
 * function's config space as they are now: 1 or 2 bytes aligned to their
 * size, or whole dwords up to SMARTIO_CONFIG_READ_MAX bytes. The response
 * holds them.
 */
struct smartio_config_read_req {
	__le32 fdid;
	__le16 offset;
	__le16 size;
};

#define SMARTIO_CONFIG_READ_MAX		2048

/* SMARTIO_MSG_OP_RESET request: reset the function, its state restored. */
struct smartio_reset_req {
	__le32 fdid;
};

#define SMARTIO_SHADOW_CONFIG_SIZE	PCI_CFG_SPACE_EXP_SIZE

/*
 * Registers the lender's function changes on its own, which the shadow
 * reads from the lender where its reader may sleep (config.c): status,
 * power management control/status, PCI Express device and link status.
 */
#define SMARTIO_CONFIG_NR_DYNAMIC	4

/**
 * struct smartio_shadow_dynamic - One such register of a shadow.
 * @where: Its offset, 0 if the function has none.
 * @mask: Its bits the lender's function has; the others are the shadow's.
 * @fresh_until: Until when (jiffies) the copy of it is recent enough.
 */
struct smartio_shadow_dynamic {
	u16 where;
	u16 mask;
	unsigned long fresh_until;
};

/**
 * struct smartio_user_dma - Ranges mapped at device addresses a kernel user
 *	chose (user_dma.c), on the lender (a lent function's) or on the
 *	borrower (a shadow's).
 * @ranges: Interval tree of struct smartio_user_dma_range, by device
 *	address.
 * @count: How many ranges it holds.
 */
struct smartio_user_dma {
	struct rb_root_cached ranges;
	unsigned int count;
};

/**
 * struct smartio_shadow - A borrowed function on the borrower (shadow.c).
 * @list: Entry in the borrower's list (borrower.c).
 * @fdid: The function.
 * @lender: Its lender's node id.
 * @session: The session the lender was joined in when it was borrowed
 *	(smartio_node_session()).
 * @ntb: The NTB the lender is reached through, referenced.
 * @lost: The lender left: config reads return all-ones, nothing maps,
 *	the MSI-X table is not written.
 * @warned: SMARTIO_SHADOW_WARNED_* bits: what was said once already.
 * @iova: @ntb's IOVA window, referenced, where our IOMMU translates its
 *	inbound accesses; NULL where they reach RAM as is.
 * @fq: With @iova, the queue the driver's unmaps wait in for a flush of
 *	what it posted to the device (flushq.c).
 * @dma_addr: Start of our range (inbound addresses of @ntb) the device
 *	reaches by DMA.
 * @dma_size: Its size.
 * @dma_base: The device's address of @dma_addr.
 * @msi_base: The device's address of SMARTIO_MSI_ADDR.
 * @bar_win: Our windows onto the function's memory BARs.
 * @bar_phys: Where each window is.
 * @bar_size: Each BAR's size, 0 for none.
 * @bar_mask: Writable bits of each BAR register (sizing).
 * @windows: The bus's memory windows, in our resource tree: one per run
 *	of BARs contiguous in both our address space and the bus's (a
 *	single BAR mostly; adjacent BARs sharing a LUT slot make one).
 * @window_offset: Each window's address in ours less its bus address.
 * @nr_windows: How many of @windows there are.
 * @busn: The bus's bus number range.
 * @sysdata: The bus's x86 sysdata: its domain, and @ntb as the device
 *	that does its DMA (VMD style).
 * @fwnode: The MSI domain's name.
 * @msi_domain: The bus's MSI domain.
 * @bus: The virtual root bus.
 * @pdev: The shadow device, referenced.
 * @config_lock: Protects @config, @dynamic and @closing.
 * @config: The config space the driver sees.
 * @config_size: The function's config space on its lender: 256 or 4096
 *	bytes. Past it the shadow reads all-ones.
 * @layout: Its capabilities, as the lender has them (config.c).
 * @resettable: The lender can reset the function: the shadow offers FLR.
 * @p2p_bridge: Its host bridge's id on the lender (p2p.c), 0 for none.
 * @lender_mps: The lender's Max_Payload_Size bits of device control; the
 *	shadow's are its driver's own.
 * @dynamic: Registers read from the lender (SMARTIO_CONFIG_NR_DYNAMIC).
 * @refresh: Reads stale @dynamic registers an atomic reader came upon.
 * @closing: The shadow goes: @refresh is not queued again.
 * @user: The kernel user that borrowed it (smartio_borrow()), which owns
 *	that handle; NULL for the node's own (smartioctl borrow), which
 *	smartioctl return gives back.
 * @driver: The only driver that may bind to the shadow (driver_override;
 *	"": none), NULL for any, until smartio_shadow_create().
 * @user_dma: What @user mapped at addresses of its choosing; the owner
 *	of those ranges in @iova. Protected by smartio_borrower_lock.
 */
struct smartio_shadow {
	struct list_head list;
	u32 fdid;
	u16 lender;
	u32 session;
	struct pci_dev *ntb;
	bool lost;
	unsigned long warned;
	struct smartio_iova_window *iova;
	struct smartio_flushq *fq;
	u64 dma_addr;
	u64 dma_size;
	u64 dma_base;
	u64 msi_base;
	struct smartio_remote *bar_win[PCI_STD_NUM_BARS];
	phys_addr_t bar_phys[PCI_STD_NUM_BARS];
	u64 bar_size[PCI_STD_NUM_BARS];
	u32 bar_mask[PCI_STD_NUM_BARS];
	struct resource windows[PCI_STD_NUM_BARS];
	resource_size_t window_offset[PCI_STD_NUM_BARS];
	int nr_windows;
	struct resource busn;
	struct pci_sysdata sysdata;
	struct fwnode_handle *fwnode;
	struct irq_domain *msi_domain;
	struct pci_bus *bus;
	struct pci_dev *pdev;
	spinlock_t config_lock;
	u8 config[SMARTIO_SHADOW_CONFIG_SIZE];
	u16 config_size;
	struct smartio_config_layout layout;
	bool resettable;
	u32 p2p_bridge;
	u16 lender_mps;
	struct smartio_shadow_dynamic dynamic[SMARTIO_CONFIG_NR_DYNAMIC];
	struct work_struct refresh;
	bool closing;
	struct smartio_borrowed *user;
	const char *driver;
	struct smartio_user_dma user_dma;
};

static inline struct smartio_shadow *
smartio_shadow_of_bus(const struct pci_bus *bus)
{
	return container_of(bus->sysdata, struct smartio_shadow, sysdata);
}

/*
 * Bits of smartio_shadow.warned: a driver whose DMA mask or 32-bit MSI
 * cannot reach the lender's windows is told once per borrowed device,
 * not once per attempt.
 */
#define SMARTIO_SHADOW_WARNED_DMA	0
#define SMARTIO_SHADOW_WARNED_MSI	1

/* flushq.c */
struct smartio_flushq *smartio_flushq_create(struct smartio_shadow *sh);
void smartio_flushq_unmap(struct smartio_flushq *fq, dma_addr_t addr,
			  size_t size, struct page *page);
void smartio_flushq_drain(struct smartio_flushq *fq, bool flush);
void smartio_flushq_destroy(struct smartio_flushq *fq);

/* config.c */
int smartio_config_lend(struct pci_dev *pdev,
			struct smartio_config_layout *layout,
			struct smartio_borrow_resp *resp);
int smartio_config_write(struct pci_dev *pdev,
			 const struct smartio_config_layout *layout, u16 node,
			 const struct smartio_config_write *w);
int smartio_config_read(struct pci_dev *pdev, u16 node,
			const struct smartio_config_read_req *r, void *resp,
			u32 *resp_len);
int smartio_config_reset(struct pci_dev *pdev, u16 node);
extern struct pci_ops smartio_shadow_pci_ops;
int smartio_shadow_config_init(struct smartio_shadow *sh,
			       const struct smartio_borrow_resp *resp);
void smartio_shadow_config_exit(struct smartio_shadow *sh);
int smartio_shadow_dma_stop(struct smartio_shadow *sh);

/* shadow.c */
int smartio_shadow_init(void);
void smartio_shadow_exit(void);
int smartio_shadow_create(struct smartio_shadow *sh,
			  const struct smartio_borrow_resp *resp);
void smartio_shadow_destroy(struct smartio_shadow *sh);
bool smartio_shadow_is(const struct pci_dev *pdev);

/**
 * struct smartio_p2p_member - A lent function whose BARs its peers reach.
 * @entry: In p2p.c's list while joined.
 * @pdev: The function.
 * @domain: Its own IOMMU domain, NULL where this host has none.
 * @node: Its borrower.
 * @session: The session it was lent in.
 * @windows: Where @domain has its windows onto @node (start and size,
 *	IOVAs), which no peer's BAR is mapped over.
 * @user_addressed: Its borrower's user chooses its device addresses (the
 *	borrow named user ranges: a guest's physical ones, for mdev): its
 *	peers' BARs are mapped in @domain where the user asks
 *	(smartio_p2p_peer_map()), not at their bus addresses.
 * @peer_maps: Those maps, struct smartio_p2p_peer_map, under p2p.c's lock.
 * @joined: smartio_p2p_join() was called, smartio_p2p_leave() not yet.
 */
struct smartio_p2p_member {
	struct list_head entry;
	struct pci_dev *pdev;
	struct iommu_domain *domain;
	u16 node;
	u32 session;
	struct {
		u64 start;
		u64 size;
	} windows[2];
	bool user_addressed;
	struct list_head peer_maps;
	bool joined;
};

/* p2p.c */
int smartio_p2p_join(struct smartio_p2p_member *m);
void smartio_p2p_leave(struct smartio_p2p_member *m);
u32 smartio_p2p_bridge_id(struct pci_dev *pdev);
bool smartio_p2p_clash(struct pci_dev *pdev, u64 start, u64 size, u64 *next);
bool smartio_p2p_routed_below(struct pci_dev *pdev, u64 start, u64 size);
int smartio_p2p_peer_map(struct smartio_p2p_member *in,
			 struct smartio_p2p_member *of, int bar, u64 start,
			 u64 size);
int smartio_p2p_peer_unmap(struct smartio_p2p_member *in, u64 start, u64 size);
bool smartio_p2p_peer_meets(const struct smartio_p2p_member *in, u64 start,
			    u64 last);

/**
 * struct smartio_user_dma_target - A lent function's side of user_dma.c.
 * @pdev: The function.
 * @domain: Its IOMMU domain, NULL where this host has none.
 * @window: Our window onto its borrower's DMA range: its physical address.
 * @window_size: The range's size (0 without @domain).
 * @fixed: Its lending: its borrower, and the windows its domain holds.
 */
struct smartio_user_dma_target {
	struct pci_dev *pdev;
	struct iommu_domain *domain;
	phys_addr_t window;
	u64 window_size;
	const struct smartio_p2p_member *fixed;
};

/* user_dma.c */
bool smartio_user_dma_range_ok(u64 start, u64 size);
void smartio_user_dma_clear(struct smartio_user_dma *ud);
int smartio_user_dma_map(struct smartio_user_dma *ud,
			 const struct smartio_user_dma_target *t,
			 const struct smartio_dma_map_req *req);
int smartio_user_dma_unmap(struct smartio_user_dma *ud,
			   const struct smartio_user_dma_target *t,
			   const struct smartio_dma_map_req *req);
int smartio_user_dma_peer_map(struct smartio_user_dma *ud,
			      const struct smartio_user_dma_target *t,
			      struct smartio_p2p_member *in,
			      struct smartio_p2p_member *of,
			      const struct smartio_peer_map_req *req);
int smartio_user_dma_peer_unmap(struct smartio_p2p_member *in,
				const struct smartio_peer_map_req *req);
int smartio_user_dma_borrower_peer_map(struct smartio_shadow *sh, u64 start,
				       struct smartio_shadow *peer, int bar);
int smartio_user_dma_borrower_peer_unmap(struct smartio_shadow *sh, u64 start,
					 struct smartio_shadow *peer, int bar);
int smartio_user_dma_borrower_map(struct smartio_shadow *sh, u64 start,
				  struct page **pages, unsigned int npages,
				  int prot);
int smartio_user_dma_borrower_unmap(struct smartio_shadow *sh, u64 start,
				    u64 size);
void smartio_user_dma_drop(struct smartio_shadow *sh);

/* lendable.c */
int smartio_lendable(struct pci_dev *pdev, struct netlink_ext_ack *extack);

/* main.c: ordered, for what must not run in a message handler. */
extern struct workqueue_struct *smartio_lend_wq;

/* borrower.c */
bool smartio_borrower_peer_bar(const struct smartio_shadow *sh,
			       phys_addr_t phys, size_t size, dma_addr_t *addr);
int smartio_borrower_borrow(u32 fdid, struct smartio_device_info *info,
			    struct netlink_ext_ack *extack);
int smartio_borrower_give_back(u32 fdid, struct netlink_ext_ack *extack);
void smartio_borrower_local_name(u32 fdid, struct smartio_device_info *info);
void smartio_borrower_node_left(u16 node_id, u32 session);
void smartio_borrower_node_leaving(u16 node_id, u32 session);
int smartio_borrower_init(void);
void smartio_borrower_exit(void);

/* lender.c */
int smartio_lender_init(void);
void smartio_lender_exit(void);
int smartio_lender_add(const char *pci_name, struct smartio_device_info *info,
		       struct netlink_ext_ack *extack);
int smartio_lender_remove(u32 fdid, struct netlink_ext_ack *extack);
int smartio_lender_available(u32 fdid, bool force,
			     struct netlink_ext_ack *extack);
int smartio_lender_unavailable(u32 fdid, struct netlink_ext_ack *extack);
int smartio_lender_reclaim(u32 fdid, struct netlink_ext_ack *extack);
int smartio_lender_next(u16 index, struct smartio_device_info *info);
void smartio_lender_node_left(u16 node_id, u32 session);
void smartio_lender_node_leaving(u16 node_id, u32 session);

/* devices.c */
void smartio_device_to_wire(const struct smartio_device_info *info,
			    struct smartio_device_wire *w);
void smartio_device_from_wire(const struct smartio_device_wire *w,
			      struct smartio_device_info *info);
int smartio_devices_get(u32 fdid, struct smartio_device_info *info,
			struct netlink_ext_ack *extack);
int smartio_devices_next(u32 *cursor, struct smartio_device_info *info);
void smartio_devices_announce(u32 fdid);
int smartio_devices_init(void);
void smartio_devices_exit(void);

#endif /* _SMARTIO_LEND_PRIV_H */
