#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The lender, node 2 on both its adapters: lends its NVMe to node 1
# (adapter 0). On adapter 1, a node claims node id 1 (node2.sh): refused
# with one message, it stays link-up, it is never heard (the NVMe stays
# borrowed by node 1, the return handler is not called until node 1
# returns it), and it joins as node 1 once node 1 has left.
set -eu
. ./dup.sh

# What this node logs, once, when the impostor claims node 1.
held_by_victim='adapter 1: refusing port 1: its node id 1 is held by the node joined through adapter 0 port 0 (duplicate node id)$'

modprobe smartio_ntb node_id=2,2
load_lend
{ own_node 0 2 && own_node 1 2; } || { show_adapters; fail "adapters are not both node 2"; }
wait_until 60 joined 1 || { show_adapters; fail "node 1 never joined"; }
bdf=$(nvme_bdf)
lend_function "$bdf" >/dev/null
vmctl barrier available

listed() {
	lent_listed $fdid "$bdf" "$1"
}

vmctl barrier borrowed
vmctl barrier impostor-up
wait_until 60 log_more "$held_by_victim" 0 ||
	{ show_adapters; fail "the impostor's node id 1 not refused"; }
show_adapters
# It stays link-up, and adapter 0's node 1 is still the victim.
grep -q "^  peer 0 port 1 node 0 link-up\$" "$adapters" ||
	fail "the impostor's port is not link-up"
smartioctl node list | grep -qx "node 1: adapter 0 port 0 joined" ||
	fail "node 1 is no longer the victim, through adapter 0"
listed "borrowed by 1"
[ "$(driver_of "$bdf")" = smartio-lender ] || fail "driver $(driver_of "$bdf") took the NVMe"
vmctl barrier refused
vmctl barrier impostor-returned
[ "$(served $op_return)" = 0 ] ||
	{ cat $served_file; fail "the return handler was called before node 1 returned"; }
listed "borrowed by 1"
# Node 1 returns only once this is seen.
vmctl barrier still-borrowed
vmctl barrier returned
if [ "$(served $op_return)" != 1 ] ||
	[ "$(served $op_return 0)" != 1 ]; then
	cat $served_file
	fail "not one successful return"
fi
listed available
[ "$(log_count "$held_by_victim")" = 1 ] ||
	fail "the impostor's claim logged $(log_count "$held_by_victim") times, not once"

# Node 1 leaves: the impostor's claim is looked at again, and joins.
vmctl barrier left
wait_until 60 eval 'smartioctl node list | grep -qx "node 1: adapter 1 port 1 joined"' ||
	{ show_adapters; fail "the impostor did not join as node 1 once node 1 left"; }
vmctl barrier finished

smartioctl device unavailable $fdid
smartioctl device remove $fdid
rmmod smartio_lend smartio_ntb smartio
ntb_unload
