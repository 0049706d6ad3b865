#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's NVMe, writes 64 MiB to it and syncs them, then
# runs fio on it; meanwhile one node's NTB is unbound from its driver.
#
# borrower-unbind: this node unbinds its NTB. Within the unbind, before
# the link goes down, the NVMe is returned as at smartioctl return, its
# driver shutting it down while node 2 answers (fio ends with I/O
# errors), and the adapter goes; nothing hangs, and no doorbell write of
# the driver's meets the link down. Node 2 has the NVMe back. This node
# binds its NTB again and node 2 joins again.
#
# lender-unbind: node 2 unbinds its NTB: before it leaves, it reclaims
# the NVMe, and this node removes the shadow (fio ends with I/O errors)
# and returns it while the link is up; nothing is left mapped in the IOVA
# window. Node 2, with no adapter, still lists its NVMe and gives it
# back to nvme, which reads the data synced; it binds its NTB again.
set -eu
. ./unbind.sh

borrower_dma_window iommu
borrower_ready
vmctl barrier available
borrow_nvme 20000
sum=$(write_synced "$dev")
echo "node$NODE: 64 MiB written to $dev and synced, md5 $sum"
vmctl put sum "$sum"
fio_until_error "$dev"
vmctl barrier fio
# Node 2 sees the NVMe borrowed before either side unbinds.
vmctl barrier listed

case $CASE in
borrower-unbind)
	ntb_unbind
	not_present "$shadow" || fail "shadow $shadow still there after the unbind"
	fio_failed
	dmesg | grep -q "returning fdid 20000 to node 2: this node leaves it" ||
		fail "the NVMe not returned before the adapter went"
	! dmesg | grep "fdid 20000 lost" || fail "the NVMe lost, not returned"
	vmctl barrier unbound
	vmctl barrier taken
	ntb_bind 2
	;;
lender-unbind)
	vmctl barrier unbound
	wait_until 30 not_present "$shadow" ||
		fail "shadow $shadow still there after node 2's unbind"
	fio_failed
	dmesg | grep -q "fdid 20000 lost: its lender reclaimed it" ||
		fail "node 2's reclaim not logged"
	! dmesg | grep "fdid 20000 lost: its lender, node 2, left" ||
		fail "the NVMe lost as node 2 left, not reclaimed before"
	wait_until 30 outputs 0 iova_pages ||
		fail "$(iova_pages) pages left mapped in the IOVA window"
	vmctl barrier taken
	wait_until 60 joined 2 || { show_adapters; fail "node 2 did not join again"; }
	;;
*) fail "no case $CASE" ;;
esac
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
