// SPDX-License-Identifier: GPL-2.0
/*
 * What callers without CAP_NET_ADMIN are told of the cluster's devices: a
 * listing of the cluster made at most device_cache_ms before, by one
 * caller at a time.
 *
 * Listing the cluster costs a round trip per device to every joined node
 * (lend/devices.c), and each round trip holds one of that node's pending-
 * request slots (SMARTIO_MSG_INFLIGHT, 32, ntb/msg.c) until it is answered
 * or times out. A user looping over `smartioctl device list` would keep
 * slots of every node busy, and borrows and config writes would wait for
 * them. So an unprivileged device-get is answered from here: the caller
 * that finds the listing older than device_cache_ms makes a new one while
 * the others wait for it, under one lock. Together, unprivileged requests
 * therefore hold at most one pending slot of a node at a time, for at most
 * one round trip's timeout (SMARTIO_LEND_TIMEOUT, 5 s), and make at most
 * one listing per device_cache_ms. Administrators are answered by the
 * nodes themselves, as before.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/slab.h>

#include "core_priv.h"
#include "smartio/lend.h"

static unsigned int device_cache_ms = 1000;
module_param(device_cache_ms, uint, 0644);
MODULE_PARM_DESC(device_cache_ms,
		 "How old a listing of the cluster's devices callers without CAP_NET_ADMIN may be answered from (ms, default 1000; 0: a new listing for each request, one at a time)");

/* Devices a listing holds at most: each cost a round trip to its node. */
#define SMARTIO_DEVICE_CACHE_MAX	4096

/*
 * The listing, in fdid order, and when it was made; valid while @devices
 * is not NULL. The lock serialises listings and readers.
 */
static DEFINE_MUTEX(smartio_device_cache_lock);
static struct smartio_device_info *smartio_device_cache;
static u32 smartio_device_cache_count;
static unsigned long smartio_device_cache_made;

/* Called with smartio_device_cache_lock held. */
static bool smartio_device_cache_fresh(void)
{
	return smartio_device_cache &&
	       time_before(jiffies, smartio_device_cache_made +
			   msecs_to_jiffies(READ_ONCE(device_cache_ms)));
}

/*
 * Lists the cluster's devices with @ops into a new listing. On error the
 * old one stays. Called with smartio_device_cache_lock held.
 */
static int smartio_device_cache_fill(const struct smartio_lend_ops *ops)
{
	struct smartio_device_info *devices, *more;
	u32 count = 0, room = 16, cursor = 0;
	int ret = 0;

	devices = kvcalloc(room, sizeof(*devices), GFP_KERNEL);
	if (!devices)
		return -ENOMEM;
	while (cursor != U32_MAX) {
		if (count == room) {
			if (room == SMARTIO_DEVICE_CACHE_MAX) {
				pr_warn_ratelimited("the cluster lists more than %u devices: unprivileged listings show the first %u\n",
						    room, room);
				break;
			}
			more = kvrealloc(devices, room * sizeof(*devices),
					 2 * room * sizeof(*devices),
					 GFP_KERNEL | __GFP_ZERO);
			if (!more) {
				ret = -ENOMEM;
				goto err_free;
			}
			devices = more;
			room *= 2;
		}
		ret = ops->next(&cursor, &devices[count]);
		if (ret == -ENOENT)
			break;
		if (ret)
			goto err_free;
		count++;
	}

	kvfree(smartio_device_cache);
	smartio_device_cache = devices;
	smartio_device_cache_count = count;
	smartio_device_cache_made = jiffies;
	return 0;

err_free:
	kvfree(devices);
	return ret;
}

/**
 * smartio_device_cache_next() - The next device, from the listing.
 * @ops: The lending module's ops, held by the caller.
 * @cursor: The lowest fdid to return; set past the one returned.
 * @info: Filled in.
 * @refresh: Make a new listing if the last one is older than
 *	device_cache_ms; false to go on with it (the rest of a dump).
 *
 * As @ops->next, but answered from the listing.
 *
 * Context: Process context; may wait for a listing of the cluster.
 * Return: 0, -ENOENT past the last device, -EINTR on a fatal signal, or
 * the error of listing the cluster.
 */
int smartio_device_cache_next(const struct smartio_lend_ops *ops,
			      u32 *cursor, struct smartio_device_info *info,
			      bool refresh)
{
	u32 lo = 0, hi, mid;
	int ret = 0;

	if (mutex_lock_killable(&smartio_device_cache_lock))
		return -EINTR;
	if ((refresh || !smartio_device_cache) && !smartio_device_cache_fresh())
		ret = smartio_device_cache_fill(ops);
	if (ret)
		goto unlock;

	/* The first device at or past *@cursor. */
	hi = smartio_device_cache_count;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (smartio_device_cache[mid].fdid < *cursor)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == smartio_device_cache_count) {
		ret = -ENOENT;
		goto unlock;
	}
	*info = smartio_device_cache[lo];
	*cursor = info->fdid == U32_MAX ? U32_MAX : info->fdid + 1;
unlock:
	mutex_unlock(&smartio_device_cache_lock);
	return ret;
}

/**
 * smartio_device_cache_get() - One device, from the listing.
 * @ops: The lending module's ops, held by the caller.
 * @fdid: The device.
 * @info: Filled in.
 * @extack: Why not.
 *
 * Context: Process context; may wait for a listing of the cluster.
 * Return: 0, -ENOENT (not in the listing), -EINTR, or the error of
 * listing the cluster.
 */
int smartio_device_cache_get(const struct smartio_lend_ops *ops, u32 fdid,
			     struct smartio_device_info *info,
			     struct netlink_ext_ack *extack)
{
	u32 cursor = fdid;
	int ret = smartio_device_cache_next(ops, &cursor, info, true);

	if (!ret && info->fdid != fdid)
		ret = -ENOENT;
	if (ret == -ENOENT)
		NL_SET_ERR_MSG(extack, "no such device");
	return ret;
}

/**
 * smartio_device_cache_drop() - Forget the listing.
 *
 * The next unprivileged request makes a new one: the lending module came
 * or went, or the core module goes.
 */
void smartio_device_cache_drop(void)
{
	mutex_lock(&smartio_device_cache_lock);
	kvfree(smartio_device_cache);
	smartio_device_cache = NULL;
	smartio_device_cache_count = 0;
	mutex_unlock(&smartio_device_cache_lock);
}
