#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The impostor, cabled to the lender alone. It comes up with the lender's
# own id, 2 (each side refuses the other), then takes node 1's with
# "smartioctl adapter set": the lender refuses it while node 1 is joined
# there (node1.sh), so this node is not joined and cannot return node 1's
# device. Once node 1 has left, it joins the lender as node 1.
set -eu
. ./dup.sh

vmctl barrier available
vmctl barrier borrowed
ntb_load
modprobe smartio_ntb node_id=2
wait_until 60 log_more "refusing port 0: its node id 2 is ours too" 0 ||
	{ show_adapters; fail "the lender's node id 2 not refused here"; }
smartioctl adapter set 0 node-id 1 || fail "adapter set 0 node-id 1 failed"
own_node 0 1 || { show_adapters; fail "adapter 0 is not node 1"; }
vmctl barrier impostor-up
modprobe smartio_lend
vmctl barrier refused
not_joined 2 || { show_adapters; fail "joined the lender as node 1 while node 1 was"; }
expect_error ENOENT smartioctl return $fdid
vmctl barrier impostor-returned
vmctl barrier still-borrowed
vmctl barrier returned

vmctl barrier left
wait_until 60 joined 2 || { show_adapters; fail "did not join the lender once node 1 left"; }
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
