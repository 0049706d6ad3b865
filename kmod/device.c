// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink family's device commands: lendable PCIe functions, on this
 * node and on every node joined to it, and borrowing them.
 *
 * The devices themselves are the lending module's (lend/), which
 * registers struct smartio_lend_ops; these handlers check the request,
 * call it, and put its answer in a message. A command may wait for a
 * round trip to another node, so the ops are used under an rwsem of their
 * own, never under the fabric registry's locks. Only device-get may be
 * asked by anyone; callers without CAP_NET_ADMIN are answered from a
 * recent listing (device_cache.c), so that they cannot keep other nodes
 * busy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/rwsem.h>
#include <net/genetlink.h>

#include "core_priv.h"
#include "netlink-gen.h"
#include "smartio/lend.h"

static DECLARE_RWSEM(smartio_lend_rwsem);
static const struct smartio_lend_ops *smartio_lend_ops;

/**
 * smartio_lend_register() - Register the lending module's device ops.
 * @ops: Its callbacks, until smartio_lend_unregister().
 *
 * Return: 0, or -EBUSY if another one is registered.
 */
int smartio_lend_register(const struct smartio_lend_ops *ops)
{
	int ret = 0;

	down_write(&smartio_lend_rwsem);
	if (smartio_lend_ops)
		ret = -EBUSY;
	else
		smartio_lend_ops = ops;
	smartio_device_cache_drop();
	up_write(&smartio_lend_rwsem);
	return ret;
}
EXPORT_SYMBOL_GPL(smartio_lend_register);

/**
 * smartio_lend_unregister() - Undo smartio_lend_register().
 *
 * Waits for the device commands using the ops to end.
 */
void smartio_lend_unregister(void)
{
	down_write(&smartio_lend_rwsem);
	smartio_lend_ops = NULL;
	smartio_device_cache_drop();
	up_write(&smartio_lend_rwsem);
}
EXPORT_SYMBOL_GPL(smartio_lend_unregister);

/*
 * Takes the ops for a command; NULL, with the reason in @extack, when no
 * lending module is loaded. Release with smartio_lend_put().
 */
static const struct smartio_lend_ops *
smartio_lend_get(struct netlink_ext_ack *extack)
{
	down_read(&smartio_lend_rwsem);
	if (!smartio_lend_ops) {
		up_read(&smartio_lend_rwsem);
		NL_SET_ERR_MSG(extack, "device lending is not loaded (modprobe smartio_lend)");
		return NULL;
	}
	return smartio_lend_ops;
}

static void smartio_lend_put(void)
{
	up_read(&smartio_lend_rwsem);
}

static int smartio_nl_fill_device(struct sk_buff *skb,
				  const struct smartio_device_info *d)
{
	if (nla_put_u32(skb, SMARTIO_A_DEVICE_FDID, d->fdid) ||
	    nla_put_u16(skb, SMARTIO_A_DEVICE_NODE_ID, d->node_id) ||
	    nla_put_string(skb, SMARTIO_A_DEVICE_PCI_NAME, d->pci_name) ||
	    nla_put_u16(skb, SMARTIO_A_DEVICE_VENDOR, d->vendor) ||
	    nla_put_u16(skb, SMARTIO_A_DEVICE_DEVICE, d->device) ||
	    nla_put_u32(skb, SMARTIO_A_DEVICE_CLASS, d->class) ||
	    nla_put_u32(skb, SMARTIO_A_DEVICE_STATE, d->state))
		return -EMSGSIZE;
	if (d->borrower &&
	    nla_put_u16(skb, SMARTIO_A_DEVICE_BORROWER, d->borrower))
		return -EMSGSIZE;
	if (d->local_name[0] &&
	    nla_put_string(skb, SMARTIO_A_DEVICE_LOCAL_NAME, d->local_name))
		return -EMSGSIZE;
	return 0;
}

static int smartio_nl_put_device(struct sk_buff *skb, u32 portid, u32 seq,
				 int flags, u8 cmd,
				 const struct smartio_device_info *d)
{
	void *hdr = smartio_nl_put(skb, portid, seq, flags, cmd);

	if (!hdr)
		return -EMSGSIZE;
	if (smartio_nl_fill_device(skb, d)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* Answers a command with the device @d. */
static int smartio_nl_reply_device(struct genl_info *info,
				   const struct smartio_device_info *d)
{
	struct sk_buff *msg;
	int ret;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = smartio_nl_put_device(msg, info->snd_portid, info->snd_seq, 0,
				    info->genlhdr->cmd, d);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/*
 * The fdid of a request that names one, or 0 with the reason in the
 * extended ack. The policy has checked that its node part is not 0.
 */
static u32 smartio_nl_fdid(struct genl_info *info)
{
	if (smartio_nl_missing(info, SMARTIO_A_DEVICE_FDID, "fdid"))
		return 0;
	return nla_get_u32(info->attrs[SMARTIO_A_DEVICE_FDID]);
}

/*
 * The commands that name a device by fdid: each calls its op; get and
 * borrow answer with the device, the others with their status only. @skb
 * is the request.
 */
static int smartio_nl_device_cmd(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct netlink_ext_ack *extack = info->extack;
	const struct smartio_lend_ops *ops;
	struct smartio_device_info d = {};
	u8 cmd = info->genlhdr->cmd;
	u32 fdid = smartio_nl_fdid(info);
	int ret;

	if (!fdid)
		return -EINVAL;
	ops = smartio_lend_get(extack);
	if (!ops)
		return -EOPNOTSUPP;
	switch (cmd) {
	case SMARTIO_CMD_DEVICE_GET:
		if (netlink_capable(skb, CAP_NET_ADMIN))
			ret = ops->get(fdid, &d, extack);
		else
			ret = smartio_device_cache_get(ops, fdid, &d, extack);
		break;
	case SMARTIO_CMD_DEVICE_BORROW:
		ret = ops->borrow(fdid, &d, extack);
		break;
	case SMARTIO_CMD_DEVICE_REMOVE:
		ret = ops->remove(fdid, extack);
		break;
	case SMARTIO_CMD_DEVICE_AVAILABLE:
		ret = ops->available(fdid,
				     nla_get_flag(attrs[SMARTIO_A_DEVICE_FORCE]),
				     extack);
		break;
	case SMARTIO_CMD_DEVICE_UNAVAILABLE:
		ret = ops->unavailable(fdid, extack);
		break;
	case SMARTIO_CMD_DEVICE_RETURN:
		ret = ops->give_back(fdid, extack);
		break;
	case SMARTIO_CMD_DEVICE_RECLAIM:
		ret = ops->reclaim(fdid, extack);
		break;
	default:
		ret = -EOPNOTSUPP;
		break;
	}
	smartio_lend_put();
	if (ret || (cmd != SMARTIO_CMD_DEVICE_GET &&
		    cmd != SMARTIO_CMD_DEVICE_BORROW))
		return ret;
	return smartio_nl_reply_device(info, &d);
}

int smartio_nl_device_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return smartio_nl_device_cmd(skb, info);
}

/*
 * cb->args[0]: the cursor, the lowest fdid not dumped yet; cb->args[1]:
 * set once the dump has begun (a caller without CAP_NET_ADMIN is answered
 * from one listing, made at most device_cache_ms before it began).
 */
int smartio_nl_device_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	bool admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	const struct smartio_lend_ops *ops;
	struct smartio_device_info d;
	u32 cursor, next;
	int ret = 0;

	ops = smartio_lend_get(cb->extack);
	if (!ops)
		return -EOPNOTSUPP;
	cursor = cb->args[0];
	while (cursor != U32_MAX) {
		next = cursor;
		memset(&d, 0, sizeof(d));
		if (admin)
			ret = ops->next(&next, &d);
		else
			ret = smartio_device_cache_next(ops, &next, &d,
							!cb->args[1]);
		cb->args[1] = 1;
		if (ret == -ENOENT) {
			cursor = U32_MAX;
			ret = 0;
			break;
		}
		if (ret)
			break;
		ret = smartio_nl_put_device(skb, NETLINK_CB(cb->skb).portid,
					    cb->nlh->nlmsg_seq, NLM_F_MULTI,
					    SMARTIO_CMD_DEVICE_GET, &d);
		if (ret)
			break;
		cursor = next;
	}
	smartio_lend_put();
	cb->args[0] = cursor;

	return smartio_nl_dump_ret(skb, ret);
}

int smartio_nl_device_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct smartio_lend_ops *ops;
	struct smartio_device_info d = {};
	char name[SMARTIO_PCI_NAME_MAX];
	int ret;

	if (smartio_nl_missing(info, SMARTIO_A_DEVICE_PCI_NAME, "PCI name"))
		return -EINVAL;
	nla_strscpy(name, info->attrs[SMARTIO_A_DEVICE_PCI_NAME], sizeof(name));

	ops = smartio_lend_get(info->extack);
	if (!ops)
		return -EOPNOTSUPP;
	ret = ops->add(name, &d, info->extack);
	smartio_lend_put();
	return ret ?: smartio_nl_reply_device(info, &d);
}

int smartio_nl_device_remove_doit(struct sk_buff *skb, struct genl_info *info)
{
	return smartio_nl_device_cmd(skb, info);
}

int smartio_nl_device_available_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	return smartio_nl_device_cmd(skb, info);
}

int smartio_nl_device_unavailable_doit(struct sk_buff *skb,
				       struct genl_info *info)
{
	return smartio_nl_device_cmd(skb, info);
}

int smartio_nl_device_return_doit(struct sk_buff *skb, struct genl_info *info)
{
	return smartio_nl_device_cmd(skb, info);
}

int smartio_nl_device_reclaim_doit(struct sk_buff *skb, struct genl_info *info)
{
	return smartio_nl_device_cmd(skb, info);
}

int smartio_nl_device_borrow_doit(struct sk_buff *skb, struct genl_info *info)
{
	return smartio_nl_device_cmd(skb, info);
}
