#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows the SR-IOV virtual function of node 2's NVMe while node
# 2 keeps using the physical function: the stock nvme driver binds to the
# shadow device and a block device appears; 64 MiB of random data go to
# it and read back the same; the function is returned and its block
# device goes.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

borrower_ntb_identity
borrower_ready
vmctl barrier available

shadow=$(borrow_bound 20000 nvme)
wait_until 30 nvme_ns_of "$shadow" >/dev/null ||
	fail "no block device for the borrowed VF"
dev=$(nvme_ns_of "$shadow")
echo "node$NODE: $shadow is $dev"
vmctl barrier borrowed

dd if=/dev/urandom of=/tmp/data bs=1M count=64 2>/dev/null
sum=$(md5sum </tmp/data)
start=$(date +%s)
dd if=/tmp/data of="$dev" bs=1M oflag=direct 2>/dev/null ||
	fail "cannot write the borrowed VF"
echo "node$NODE: 64 MiB written in $(($(date +%s) - start)) s"
rm /tmp/data
start=$(date +%s)
mine=$(blockdev_sum "$dev")
echo "node$NODE: 64 MiB read in $(($(date +%s) - start)) s"
echo "node$NODE: wrote sum $sum, the VF holds $mine"
[ "$mine" = "$sum" ] || fail "the borrowed VF reads back other data"
grep -q 'smartio-MSI' /proc/interrupts || fail "no interrupt through the shadow's MSI domain"
vmctl barrier written

smartioctl return 20000 || fail "return 20000 failed"
not_present "$shadow" || fail "shadow device still there"
[ ! -e "$dev" ] || fail "block device still there"
vmctl barrier returned
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
