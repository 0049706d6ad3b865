#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 3, cabled to node 2 alone, sees node 2's NVMe borrowed by node 1 and
# cannot borrow it: one line, "the device is borrowed already (EBUSY)",
# exit status 1, and nothing changes here (no shadow device, no block
# device, nothing in the IOVA window, nothing to return). Nor can a VFIO
# client open it through a mediated device (smartio_mdev): EBUSY, one line
# in the kernel log saying why, and nothing changes either. Then it races
# node 1 for the NVMe (race in three.sh).
set -eu
. ./three.sh
# shellcheck source=../guest/mdev.sh
. /usr/local/lib/vmtest/mdev.sh

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

mdev_load
uuid=5a3a0d2e-1c1b-4b0e-9a59-000000000003
mdev_create "$uuid" "$fdid"
! smartio-vfio info "$uuid" 2>/tmp/err || fail "the mdev of a device node 1 holds opened"
cat /tmp/err
grep -qx "smartio-vfio: VFIO_GROUP_GET_DEVICE_FD: Device or resource busy" /tmp/err ||
	fail "the mdev's open did not fail with EBUSY"
[ "$(dmesg | grep -c "$uuid: fdid $fdid not borrowed: the device is borrowed already (-EBUSY)\$")" = 1 ] ||
	fail "not one line in the log for the mdev's refusal"
[ "$(state)" = "$before" ] || fail "the mdev's refused open changed this node"
[ "$(smartioctl device list)" = "$list" ] || fail "the mdev's refused open changed the list"
echo 1 >"/sys/bus/mdev/devices/$uuid/remove"
rmmod smartio_mdev
vmctl barrier refused
vmctl barrier checked
vmctl barrier returned

borrower_races
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
