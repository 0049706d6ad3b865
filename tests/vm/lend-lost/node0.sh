#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 reclaims the NVMe node 1 borrowed: node 1 removes its shadow as a
# surprise removal and gives it back before node 2's windows close. Node 1
# borrows it again and reads it in a loop; node 2's VM is killed. The borrower logs the loss, the reads end with an I/O error
# within 30 s, the shadow device is gone, nothing oopses (the runner
# checks), and borrowing the dead device fails with one clear message;
# once node 2 is back without lending it, the device is unknown.
set -eu
. ./lend.sh

borrower_ntb_identity
load_lend
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
vmctl barrier available

line=$(smartioctl borrow 20000) || fail "borrow 20000 failed"
shadow=${line##* as }
wait_until 30 test -b /dev/nvme1n1 || fail "no block device for the borrowed NVMe"
vmctl barrier borrowed
vmctl barrier reclaimed
not_present "$shadow" || fail "shadow device $shadow still there after reclaim"
dmesg | grep -q "fdid 20000 lost: its lender reclaimed it" || fail "reclaim not logged"
smartioctl device list | grep -q "^20000: .* available$" ||
	fail "not available after reclaim"

line=$(smartioctl borrow 20000) || fail "borrow 20000 after reclaim failed"
shadow=${line##* as }
wait_until 30 test -b /dev/nvme1n1 || fail "no block device after borrowing again"

# Reads until one fails; the exit status of the failing dd is kept.
(
	while dd if=/dev/nvme1n1 of=/dev/null bs=4k count=64 iflag=direct 2>/dev/null; do
		:
	done
	echo failed >/tmp/reader
) &
sleep 2
[ ! -e /tmp/reader ] || fail "reads failed before the lender was lost"

vmctl kill 1
echo "node$NODE: killed node 2's VM"
wait_until 30 test -e /tmp/reader || fail "reads still running 30 s after the lender was lost"
echo "node$NODE: reads ended with an error"
wait_until 30 not_present "$shadow" || fail "shadow device $shadow still there"
dmesg | grep -q "fdid 20000 lost: its lender, node 2, left" || fail "loss not logged"
expect_error EHOSTUNREACH smartioctl borrow 20000

vmctl barrier rebooted
wait_until 60 joined 2 || { show_adapters; fail "node 2 did not join again"; }
expect_error ENOENT smartioctl borrow 20000
vmctl barrier finished
rmmod smartio_lend smartio_ntb ntb_hw_smartio smartio
