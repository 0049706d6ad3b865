#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's NVMe and writes 16 MiB of random data to it. While
# node 1 holds it, node 3's borrow is refused, and node 1's shadow device,
# driver and block device are as they were: the data reads back the same.
# Node 1 returns it; then nodes 1 and 3 race for it (race in three.sh).
set -eu
. ./three.sh

load_lend
own_node 0 1 || { show_adapters; fail "adapter 0 is not node 1"; }
wait_until 60 joined 2 || { show_adapters; fail "node 2 never joined"; }
vmctl barrier available

shadow=$(borrow_bound $fdid nvme)
wait_until 30 nvme_ns_of "$shadow" >/dev/null || fail "no block device for the borrowed NVMe"
dev=$(nvme_ns_of "$shadow")
dd if=/dev/urandom of=/tmp/data bs=1M count=16 2>/dev/null
sum=$(md5sum </tmp/data)
dd if=/tmp/data of="$dev" bs=1M oflag=direct 2>/dev/null || fail "cannot write $dev"
rm /tmp/data
readback() {
	dd if="$dev" bs=1M count=16 iflag=direct 2>/dev/null | md5sum
}
[ "$(readback)" = "$sum" ] || fail "$dev reads back other data"
vmctl barrier borrowed

vmctl barrier refused
smartioctl device list | grep -qx "$fdid: .* node 2 borrowed by 1 as $shadow" ||
	fail "not listed borrowed by this node after node 3's try"
[ "$(driver_of "$shadow")" = nvme ] || fail "nvme no longer bound to $shadow"
[ "$(nvme_ns_of "$shadow")" = "$dev" ] || fail "$dev is gone"
[ "$(readback)" = "$sum" ] || fail "$dev reads other data after node 3's try"
echo "node$NODE: $dev still reads the same 16 MiB"
vmctl barrier checked

smartioctl return $fdid || fail "return $fdid failed"
not_present "$shadow" || fail "shadow device still there"
vmctl barrier returned

borrower_races
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
