#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 3, cabled to node 2 alone, sees node 2's NVMe borrowed by node 1 and
# cannot borrow it: one line, "the device is borrowed already (EBUSY)",
# exit status 1, and nothing changes here (no shadow device, no block
# device, nothing in the IOVA window, nothing to return). Then it races
# node 1 for the NVMe (race in three.sh).
set -eu
. ./three.sh

# Node 3 by its node_id (by its port, 1, it would be node 2, the lender's).
modprobe smartio_ntb node_id=3
load_lend
own_node 0 3 || { show_adapters; fail "adapter 0 is not node 3"; }
wait_until 60 joined 2 || { show_adapters; fail "node 2 never joined"; }
vmctl barrier available
vmctl barrier borrowed

list=$(smartioctl device list)
echo "node$NODE: $list"
echo "$list" | grep -qx "$fdid: .* node 2 borrowed by 1" ||
	fail "not listed borrowed by node 1"
smartioctl device show $fdid | grep -qx "$fdid: .* node 2 borrowed by 1" ||
	fail "not shown borrowed by node 1"
before=$(state)
borrow_refused
[ "$(state)" = "$before" ] || fail "the refused borrow changed this node"
[ "$(smartioctl device list)" = "$list" ] || fail "the refused borrow changed the list"
expect_error ENOENT smartioctl return $fdid
vmctl barrier refused
vmctl barrier checked
vmctl barrier returned

borrower_races
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
