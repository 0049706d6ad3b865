#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 sees node 2's NVMe in its device list as node 2 changes it, can
# show it by fdid, and cannot change another node's device.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

borrower_ready
vmctl barrier added
list=$(smartioctl device list)
echo "node$NODE: $list"
echo "$list" | grep -q "^20000: .* \[1b36:0010\] class 010802 node 2 unavailable$" ||
	fail "node 2's NVMe not listed"
expect_error ENOENT smartioctl device show 20001
expect_error EHOSTUNREACH smartioctl device show 70000
expect_error EXDEV smartioctl device available 20000
# Node 2 keeps the device unavailable until here.
vmctl barrier seen

vmctl barrier available
smartioctl device show 20000 | grep -q " node 2 available$" ||
	fail "node 2's NVMe not shown available"
json=$(smartioctl -j device show 20000)
echo "node$NODE: $json"
echo "$json" | grep -q '"fdid":"20000"' || fail "JSON: no fdid"
echo "$json" | grep -q '"state":"available"' || fail "JSON: not available"
vmctl barrier listed

vmctl barrier removed
[ "$(smartioctl device list)" = "" ] || fail "removed device still listed"
rmmod smartio_lend smartio_ntb smartio
ntb_unload
