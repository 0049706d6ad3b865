#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node ids a node may not have. 65535 (SMARTIO_NODE_ALL, every node) is
# refused as this node's own: by the node_id parameter (no adapter) and by
# netlink (smartioctl, and the family's policy). Then VM 1, whose port
# ntb_tool drives, writes hellos of its own (node1.sh) claiming node ids
# 65535, 0 and 1 (this node's): each is refused with one message, however
# often its doorbell rings, and is not answered (VM 1 never reads its
# epoch acknowledged), so nothing joins. A hello claiming node 2 joins.
set -eu
# shellcheck source=../guest/fabric.sh
. /usr/local/lib/vmtest/fabric.sh

refusals() {
	log_count "adapter 0: refusing port 1: its node id $1 $2"
}

# refused_once ROUND ID WHY: VM 1's hello of ROUND claims ID: it is refused
# for WHY in one message, this node is not joined, and VM 1 saw no answer.
refused_once() {
	vmctl barrier "claimed.$1"
	wait_until 30 log_more "refusing port 1: its node id $2 $3" 0 ||
		{ show_adapters; fail "node id $2 not refused"; }
	vmctl barrier "rang.$1"
	[ "$(refusals "$2" "$3")" = 1 ] ||
		fail "node id $2 refused in $(refusals "$2" "$3") messages, not one"
	! grep -q " joined\$" "$adapters" || { show_adapters; fail "node id $2 joined"; }
	[ "$(vmctl get "answered.$1")" = no ] || fail "node id $2 was answered"
	echo "node$NODE: node id $2 refused: $3"
	# VM 1 claims the next id only now, not while this looks.
	vmctl barrier "checked.$1"
}

ntb_load

# 65535 as this node's id, by the module parameter: no adapter.
modprobe smartio_ntb node_id=65535
wait_until 30 log_more "adapter 0: node id 65535 is not one a node may have" 0 ||
	fail "node_id=65535 not refused"
[ -z "$(smartioctl adapter list)" ] || fail "an adapter with node id 65535"
rmmod smartio_ntb
modprobe smartio_ntb
own_node 0 1 || { show_adapters; fail "adapter 0 is not node 1"; }

# ... and by netlink: smartioctl checks what the spec says, and the
# family's policy refuses it (ERANGE, with the kernel's reason).
rc=0
out=$(smartioctl adapter set 0 node-id 65535 2>&1) || rc=$?
echo "node$NODE: adapter set 0 node-id 65535: $out"
[ $rc = 2 ] || fail "adapter set 0 node-id 65535: exit status $rc, not 2"
echo "$out" | grep -q "node-id 65535 is out of range 1..65534" ||
	fail "adapter set 0 node-id 65535: not refused for its range"
expect_error ERANGE smartio-genl-send 2 1:u32:0 2:u16:65535
own_node 0 1 || { show_adapters; fail "node id changed"; }
vmctl barrier loaded

refused_once 1 65535 "is reserved: it addresses every node"
refused_once 2 0 "is invalid"
refused_once 3 1 "is ours too (duplicate node id)"

# A node id of its own: answered and joined.
vmctl barrier claimed.4
wait_until 30 joined 2 || { show_adapters; fail "node 2 did not join"; }
[ "$(vmctl get answered.4)" = yes ] || fail "node 2 joined unanswered"
smartioctl node list | grep -qx "node 2: adapter 0 port 1 joined" ||
	fail "node 2 not listed joined"
vmctl barrier finished
wait_until 30 not_joined 2 || fail "node 2 did not leave"
rmmod smartio_ntb smartio
ntb_unload
