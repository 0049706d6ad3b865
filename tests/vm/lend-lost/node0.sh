#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 reclaims the NVMe node 1 borrowed: node 1 removes its shadow as a
# surprise removal and gives it back before node 2's windows close. Node 1
# borrows it again and runs fio on it; node 2's VM is killed. The borrower
# logs the loss, fio ends with I/O errors within 30 s, the shadow device is
# gone and nothing is left mapped in the IOVA window, nothing oopses (the
# runner checks), and borrowing the dead device fails with one clear
# message; once node 2 is back without lending it, the device is unknown.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

borrower_dma_window iommu
borrower_ready
vmctl barrier available

line=$(smartioctl borrow 20000) || fail "borrow 20000 failed"
shadow=${line##* as }
wait_until 30 blockdev_open /dev/nvme1n1 || fail "no block device for the borrowed NVMe"
vmctl barrier borrowed
vmctl barrier reclaimed
not_present "$shadow" || fail "shadow device $shadow still there after reclaim"
dmesg | grep -q "fdid 20000 lost: its lender reclaimed it" || fail "reclaim not logged"
smartioctl device list | grep -q "^20000: .* available$" ||
	fail "not available after reclaim"

line=$(smartioctl borrow 20000) || fail "borrow 20000 after reclaim failed"
shadow=${line##* as }
wait_until 30 blockdev_open /dev/nvme1n1 || fail "no block device after borrowing again"

# fio until an I/O fails (or for 10 minutes); its exit status is kept.
(
	rc=0
	fio --name=lost --filename=/dev/nvme1n1 --rw=randrw --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=16 --time_based --runtime=600 \
		>/tmp/fio.out 2>&1 || rc=$?
	echo $rc >/tmp/fio.rc
) &
sleep 5
[ ! -e /tmp/fio.rc ] || { cat /tmp/fio.out; fail "fio ended before the lender was lost"; }

vmctl kill 1
echo "node$NODE: killed node 2's VM"
wait_until 30 test -e /tmp/fio.rc || fail "fio still running 30 s after the lender was lost"
grep -m1 "err=" /tmp/fio.out || true
[ "$(cat /tmp/fio.rc)" != 0 ] || { cat /tmp/fio.out; fail "fio saw no error"; }
grep -q "err= *[1-9]" /tmp/fio.out || { cat /tmp/fio.out; fail "fio reported no I/O error"; }
echo "node$NODE: fio ended with I/O errors"
wait_until 30 not_present "$shadow" || fail "shadow device $shadow still there"
wait_until 30 outputs 0 iova_pages || fail "$(iova_pages) pages left mapped in the IOVA window"
dmesg | grep -q "fdid 20000 lost: its lender, node 2, left" || fail "loss not logged"
expect_error EHOSTUNREACH smartioctl borrow 20000

vmctl barrier rebooted
wait_until 60 joined 2 || { show_adapters; fail "node 2 did not join again"; }
expect_error ENOENT smartioctl borrow 20000
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
