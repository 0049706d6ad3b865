// SPDX-License-Identifier: GPL-2.0
/*
 * The smartio generic netlink family: its handlers and its events.
 *
 * The family's definition (commands, attributes, policies, multicast
 * groups) is netlink/smartio.yaml; kmod/netlink-gen.[ch] are generated
 * from it and declare the handlers implemented here. The policies check
 * every attribute before a handler runs; handlers check which attributes
 * are present and everything that depends on the registry.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "core_priv.h"
#include "netlink-gen.h"

static struct genl_family smartio_nl_family;

void *smartio_nl_put(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		     u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &smartio_nl_family, flags, cmd);
}

/*
 * What a dumpit returns after putting messages: the bytes put so far, so
 * that it is called again (and ends the dump when it puts nothing more);
 * an error only when not even one message fitted.
 */
int smartio_nl_dump_ret(struct sk_buff *skb, int ret)
{
	return ret && !skb->len ? ret : skb->len;
}

/* Called with smartio_fabric_lock held. */
static int smartio_nl_fill_adapter(struct sk_buff *skb,
				   const struct smartio_fabric_adapter *fa)
{
	struct nlattr *nest;
	u32 pidx;

	if (nla_put_u32(skb, SMARTIO_A_ADAPTER_INDEX, fa->index) ||
	    nla_put_u16(skb, SMARTIO_A_ADAPTER_NODE_ID, fa->node_id) ||
	    nla_put_u32(skb, SMARTIO_A_ADAPTER_PORT, fa->port) ||
	    nla_put_string(skb, SMARTIO_A_ADAPTER_PCI_NAME, fa->pci_name))
		return -EMSGSIZE;

	for (pidx = 0; pidx < fa->peer_count; pidx++) {
		const struct smartio_fabric_peer *peer = &fa->peers[pidx];

		nest = nla_nest_start(skb, SMARTIO_A_ADAPTER_PEERS);
		if (!nest ||
		    nla_put_u32(skb, SMARTIO_A_PEER_INDEX, pidx) ||
		    nla_put_u32(skb, SMARTIO_A_PEER_PORT, peer->port) ||
		    nla_put_u16(skb, SMARTIO_A_PEER_NODE_ID, peer->node_id) ||
		    nla_put_u8(skb, SMARTIO_A_PEER_STATE, peer->state))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}

	return 0;
}

/* One adapter message; called with smartio_fabric_lock held. */
static int smartio_nl_put_adapter(struct sk_buff *skb, u32 portid, u32 seq,
				  int flags,
				  const struct smartio_fabric_adapter *fa)
{
	void *hdr = smartio_nl_put(skb, portid, seq, flags,
				   SMARTIO_CMD_ADAPTER_GET);

	if (!hdr)
		return -EMSGSIZE;
	if (smartio_nl_fill_adapter(skb, fa)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * The adapter the request's index names, or NULL with the reason in the
 * extended ack. Called with smartio_fabric_rwsem held.
 */
static struct smartio_fabric_adapter *
smartio_nl_adapter(struct genl_info *info)
{
	struct nlattr *index = info->attrs[SMARTIO_A_ADAPTER_INDEX];
	struct smartio_fabric_adapter *fa;

	fa = smartio_fabric_adapter_find(nla_get_u32(index));
	if (!fa)
		NL_SET_ERR_MSG_ATTR(info->extack, index, "no such adapter");
	return fa;
}

int smartio_nl_adapter_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct smartio_fabric_adapter *fa;
	struct sk_buff *msg;
	int ret;

	if (smartio_nl_missing(info, SMARTIO_A_ADAPTER_INDEX, "adapter index"))
		return -EINVAL;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	down_read(&smartio_fabric_rwsem);
	fa = smartio_nl_adapter(info);
	if (!fa) {
		ret = -ENODEV;
		goto err_unlock;
	}
	mutex_lock(&smartio_fabric_lock);
	ret = smartio_nl_put_adapter(msg, info->snd_portid, info->snd_seq, 0,
				     fa);
	mutex_unlock(&smartio_fabric_lock);
	if (ret)
		goto err_unlock;
	up_read(&smartio_fabric_rwsem);

	return genlmsg_reply(msg, info);

err_unlock:
	up_read(&smartio_fabric_rwsem);
	nlmsg_free(msg);
	return ret;
}

/* cb->args[0]: adapters already dumped. */
int smartio_nl_adapter_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct smartio_fabric_adapter *fa;
	long pos = 0;
	int ret = 0;

	down_read(&smartio_fabric_rwsem);
	mutex_lock(&smartio_fabric_lock);
	list_for_each_entry(fa, &smartio_fabric_adapters, list) {
		if (pos++ < cb->args[0])
			continue;
		ret = smartio_nl_put_adapter(skb, NETLINK_CB(cb->skb).portid,
					     cb->nlh->nlmsg_seq, NLM_F_MULTI,
					     fa);
		if (ret)
			break;
		cb->args[0] = pos;
	}
	mutex_unlock(&smartio_fabric_lock);
	up_read(&smartio_fabric_rwsem);

	return smartio_nl_dump_ret(skb, ret);
}

int smartio_nl_adapter_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct smartio_fabric_adapter *fa;
	int ret;

	if (smartio_nl_missing(info, SMARTIO_A_ADAPTER_INDEX, "adapter index") ||
	    smartio_nl_missing(info, SMARTIO_A_ADAPTER_NODE_ID, "node id"))
		return -EINVAL;

	down_read(&smartio_fabric_rwsem);
	fa = smartio_nl_adapter(info);
	if (!fa) {
		ret = -ENODEV;
	} else {
		ret = fa->ops->set_node_id(fa,
					   nla_get_u16(info->attrs[SMARTIO_A_ADAPTER_NODE_ID]),
					   info->extack);
	}
	up_read(&smartio_fabric_rwsem);

	return ret;
}

/* One node message; called with smartio_fabric_lock held. */
static int smartio_nl_put_node(struct sk_buff *skb, u32 portid, u32 seq,
			       int flags, u8 cmd,
			       const struct smartio_fabric_adapter *fa,
			       const struct smartio_fabric_peer *peer)
{
	void *hdr = smartio_nl_put(skb, portid, seq, flags, cmd);

	if (!hdr)
		return -EMSGSIZE;
	/* Peers that have not joined have no node id. */
	if ((peer->node_id &&
	     nla_put_u16(skb, SMARTIO_A_NODE_NODE_ID, peer->node_id)) ||
	    nla_put_u32(skb, SMARTIO_A_NODE_ADAPTER, fa->index) ||
	    nla_put_u8(skb, SMARTIO_A_NODE_STATE, peer->state) ||
	    nla_put_u32(skb, SMARTIO_A_NODE_PORT, peer->port)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* cb->args[0]: adapters done; cb->args[1]: peers of the next one done. */
int smartio_nl_node_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	struct smartio_fabric_adapter *fa;
	long pos = 0;
	int ret = 0;
	u32 pidx;

	down_read(&smartio_fabric_rwsem);
	mutex_lock(&smartio_fabric_lock);
	list_for_each_entry(fa, &smartio_fabric_adapters, list) {
		if (pos++ < cb->args[0])
			continue;
		for (pidx = cb->args[1]; pidx < fa->peer_count; pidx++) {
			const struct smartio_fabric_peer *peer = &fa->peers[pidx];

			if (peer->state == SMARTIO_PEER_STATE_DOWN)
				continue;
			ret = smartio_nl_put_node(skb,
						  NETLINK_CB(cb->skb).portid,
						  cb->nlh->nlmsg_seq,
						  NLM_F_MULTI,
						  SMARTIO_CMD_NODE_GET, fa,
						  peer);
			if (ret)
				goto out;
			cb->args[1] = pidx + 1;
		}
		cb->args[0] = pos;
		cb->args[1] = 0;
	}
out:
	mutex_unlock(&smartio_fabric_lock);
	up_read(&smartio_fabric_rwsem);

	return smartio_nl_dump_ret(skb, ret);
}

/*
 * Round trips to a node: each request carries @size bytes, fresh random
 * bytes whose first word is the round trip's number, and must come back
 * unchanged. Stops at the first failure. A signal ends the run early but
 * answered, with what was received so far, as ping(8) prints its
 * statistics on Ctrl-C; not -EINTR, which netlink_rcv_skb() takes for a
 * dump that started and does not answer, leaving the sender waiting.
 */
static int smartio_nl_ping(struct smartio_fabric_adapter *fa, u16 node_id,
			   u32 count, u32 size, u32 *received,
			   struct netlink_ext_ack *extack)
{
	u8 *buf, *echo;
	int ret = 0;
	u32 i;

	buf = kmalloc(size, GFP_KERNEL);
	echo = kmalloc(size, GFP_KERNEL);
	if (!buf || !echo) {
		ret = -ENOMEM;
		goto out;
	}
	get_random_bytes(buf, size);

	for (i = 0; i < count; i++) {
		if (size >= sizeof(i))
			memcpy(buf, &i, sizeof(i));
		ret = fa->ops->ping(fa, node_id, buf, size, echo);
		/* It was joined when the run started: now it has left. */
		if (ret == -EHOSTUNREACH)
			ret = -ENOTCONN;
		if (ret)
			break;
		if (memcmp(buf, echo, size)) {
			NL_SET_ERR_MSG(extack, "echo differs from the request");
			ret = -EIO;
			break;
		}
		(*received)++;
		if (signal_pending(current))
			break;
		cond_resched();
	}

	if (ret == -ENOTCONN)
		NL_SET_ERR_MSG(extack, "node left during the run");
	else if (ret == -EHOSTUNREACH)
		NL_SET_ERR_MSG(extack, "node is not joined");
	else if (ret == -ETIMEDOUT)
		NL_SET_ERR_MSG(extack, "node did not answer in time");
out:
	kfree(echo);
	kfree(buf);
	return ret;
}

int smartio_nl_node_ping_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct smartio_fabric_adapter *fa;
	u32 count = 1, size = 0, received = 0;
	struct sk_buff *msg;
	ktime_t start;
	u64 time_ns;
	void *hdr;
	u16 node_id;
	int ret;

	if (smartio_nl_missing(info, SMARTIO_A_PING_NODE_ID, "node id"))
		return -EINVAL;
	node_id = nla_get_u16(attrs[SMARTIO_A_PING_NODE_ID]);
	if (attrs[SMARTIO_A_PING_COUNT])
		count = nla_get_u32(attrs[SMARTIO_A_PING_COUNT]);
	if (attrs[SMARTIO_A_PING_SIZE])
		size = nla_get_u32(attrs[SMARTIO_A_PING_SIZE]);

	down_read(&smartio_fabric_rwsem);
	fa = smartio_fabric_node_find(node_id);
	if (!fa) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[SMARTIO_A_PING_NODE_ID],
				    "no joined node with this id");
		up_read(&smartio_fabric_rwsem);
		return -EHOSTUNREACH;
	}
	start = ktime_get();
	ret = smartio_nl_ping(fa, node_id, count, size, &received,
			      info->extack);
	time_ns = ktime_to_ns(ktime_sub(ktime_get(), start));
	up_read(&smartio_fabric_rwsem);
	if (ret)
		return ret;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = smartio_nl_put(msg, info->snd_portid, info->snd_seq, 0,
			     SMARTIO_CMD_NODE_PING);
	if (!hdr ||
	    nla_put_u16(msg, SMARTIO_A_PING_NODE_ID, node_id) ||
	    nla_put_u32(msg, SMARTIO_A_PING_RECEIVED, received) ||
	    nla_put_u64_64bit(msg, SMARTIO_A_PING_TIME_NS, time_ns,
			      SMARTIO_A_PING_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);

	return genlmsg_reply(msg, info);
}

/* cb->args[0]: segments already dumped. */
int smartio_nl_segment_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct smartio_fabric_segment seg;
	int ret = 0;
	void *hdr;

	down_read(&smartio_fabric_rwsem);
	while (smartio_fabric_segment_ops &&
	       !smartio_fabric_segment_ops->get(cb->args[0], &seg)) {
		hdr = smartio_nl_put(skb, NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI,
				     SMARTIO_CMD_SEGMENT_GET);
		if (!hdr) {
			ret = -EMSGSIZE;
			break;
		}
		if (nla_put_u16(skb, SMARTIO_A_SEGMENT_NODE_ID, seg.node_id) ||
		    nla_put_u32(skb, SMARTIO_A_SEGMENT_SEGMENT_ID,
				seg.segment_id) ||
		    nla_put_u64_64bit(skb, SMARTIO_A_SEGMENT_SIZE, seg.size,
				      SMARTIO_A_SEGMENT_PAD) ||
		    nla_put_u32(skb, SMARTIO_A_SEGMENT_FLAGS, seg.flags)) {
			genlmsg_cancel(skb, hdr);
			ret = -EMSGSIZE;
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0]++;
	}
	up_read(&smartio_fabric_rwsem);

	return smartio_nl_dump_ret(skb, ret);
}

/**
 * smartio_nl_notify_peer() - Multicast a peer's change to the monitor group.
 * @fa: The adapter.
 * @peer: The peer, in the state to report.
 * @cmd: SMARTIO_CMD_NODE_JOIN_NTF, _NODE_LEAVE_NTF, _LINK_UP_NTF or
 *	_LINK_DOWN_NTF.
 *
 * Context: Process context, with smartio_fabric_lock held.
 */
void smartio_nl_notify_peer(const struct smartio_fabric_adapter *fa,
			    const struct smartio_fabric_peer *peer, u8 cmd)
{
	struct sk_buff *msg;

	if (!genl_has_listeners(&smartio_nl_family, &init_net,
				SMARTIO_NLGRP_MONITOR))
		return;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	if (smartio_nl_put_node(msg, 0, 0, 0, cmd, fa, peer)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_multicast(&smartio_nl_family, msg, 0, SMARTIO_NLGRP_MONITOR,
			  GFP_KERNEL);
}

/*
 * parallel_ops: a ping may run for seconds and must not hold genl_mutex,
 * which every generic netlink family of the system shares; the registry
 * has locks of its own. Every command is validated strictly (none is
 * below resv_start_op): unknown attributes and a non-zero reserved header
 * field are rejected.
 */
static struct genl_family smartio_nl_family __ro_after_init = {
	.name		= SMARTIO_FAMILY_NAME,
	.version	= SMARTIO_FAMILY_VERSION,
	.module		= THIS_MODULE,
	.parallel_ops	= true,
	.resv_start_op	= SMARTIO_CMD_ADAPTER_GET,
	.ops		= smartio_nl_ops,
	.n_ops		= ARRAY_SIZE(smartio_nl_ops),
	.mcgrps		= smartio_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(smartio_nl_mcgrps),
};

int __init smartio_nl_init(void)
{
	return genl_register_family(&smartio_nl_family);
}

void smartio_nl_exit(void)
{
	genl_unregister_family(&smartio_nl_family);
}
