#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The victim, node 1: borrows node 2's NVMe and writes 16 MiB to it. While
# node 3's VM claims node id 1 toward the lender (node2.sh) and is refused
# there, this node's borrow is untouched: still joined, still listed
# borrowed by node 1, the data reads back the same, new data writes and
# reads back, and the return succeeds. Then this node leaves, and the
# impostor may join as node 1 (node1.sh).
set -eu
. ./dup.sh

borrower_ready
own_node 0 1 || { show_adapters; fail "adapter 0 is not node 1"; }
vmctl barrier available

borrow_nvme $fdid
sum=$(write_random "$dev" 16)
vmctl barrier borrowed

vmctl barrier impostor-up
vmctl barrier refused
joined 2 || { show_adapters; fail "node 2 left while the impostor claimed node 1"; }
smartioctl device list | grep -qx "$fdid: .* node 2 borrowed by 1 as $shadow" ||
	fail "not listed borrowed by this node after the impostor's claim"
[ "$(driver_of "$shadow")" = nvme ] || fail "nvme no longer bound to $shadow"
[ "$(read_sum "$dev" 16)" = "$sum" ] || fail "$dev reads other data after the impostor's claim"
write_random "$dev" 16 >/dev/null
echo "node$NODE: $dev still reads and writes"
vmctl barrier impostor-returned
vmctl barrier still-borrowed

smartioctl return $fdid || fail "return $fdid failed"
not_present "$shadow" || fail "shadow device still there"
vmctl barrier returned

# Leave: node id 1 is free for the impostor.
rmmod smartio_lend smartio_ntb smartio
vmctl barrier left
vmctl barrier finished
ntb_unload
