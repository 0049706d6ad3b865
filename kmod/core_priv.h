/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the core module: the fabric registry (fabric.c), the
 * netlink family (netlink.c) that shows it, and the listing of devices
 * unprivileged callers are answered from (device_cache.c).
 */
#ifndef _SMARTIO_CORE_PRIV_H
#define _SMARTIO_CORE_PRIV_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>

#include "smartio/fabric.h"

/*
 * Locking. smartio_fabric_rwsem guards registration: held for reading
 * while the core uses an adapter (its ops included), for writing while one
 * is added or removed. smartio_fabric_lock guards the registry's changing
 * state (node ids and peers). Order: the rwsem, then the adapter owner's
 * own locks, then smartio_fabric_lock, which is never held across a call
 * into an adapter.
 */
extern struct rw_semaphore smartio_fabric_rwsem;
extern struct mutex smartio_fabric_lock;
extern struct list_head smartio_fabric_adapters;
extern const struct smartio_fabric_segment_ops *smartio_fabric_segment_ops;

struct smartio_fabric_adapter *smartio_fabric_adapter_find(u32 index);
struct smartio_fabric_adapter *smartio_fabric_node_find(u16 node_id);

/*
 * True when attribute @attr of the request is missing, which the extended
 * ack then names (as a type, and in words: "missing " @what).
 */
#define smartio_nl_missing(info, attr, what) ({				\
	bool __missing = GENL_REQ_ATTR_CHECK(info, attr);		\
									\
	if (__missing)							\
		NL_SET_ERR_MSG((info)->extack, "missing " what);	\
	__missing;							\
})

struct sk_buff;
struct netlink_ext_ack;
struct smartio_device_info;
struct smartio_lend_ops;

/* device_cache.c: device-get for callers without CAP_NET_ADMIN. */
int smartio_device_cache_next(const struct smartio_lend_ops *ops,
			      u32 *cursor, struct smartio_device_info *info,
			      bool refresh);
int smartio_device_cache_get(const struct smartio_lend_ops *ops, u32 fdid,
			     struct smartio_device_info *info,
			     struct netlink_ext_ack *extack);
void smartio_device_cache_drop(void);

int smartio_nl_init(void);
void *smartio_nl_put(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		     u8 cmd);
int smartio_nl_dump_ret(struct sk_buff *skb, int ret);
void smartio_nl_exit(void);
void smartio_nl_notify_peer(const struct smartio_fabric_adapter *fa,
			    const struct smartio_fabric_peer *peer, u8 cmd);

#endif /* _SMARTIO_CORE_PRIV_H */
