#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's NVMe and writes 64 MiB to it; then one of the two
# is stopped (its QEMU gets SIGSTOP: its kernel freezes, its NTB's link
# stays up), and the other declares it lost within the documented timeout
# (peer_timeout_ms) by the messaging channel's heartbeat, as at a link
# loss.
#
# borrower-stopped: node 2 stops this VM while the NVMe is idle, takes it
# back and reads it, and lets this VM go on: this node finds it lost node
# 2 too, removes the shadow, joins again and borrows the NVMe afresh (the
# data are there). Then node 2 unbinds its stub driver from the function
# while this node borrows it: this node is told and removes the shadow.
#
# lender-stopped: this node stops node 2's VM while fio runs on the NVMe:
# the shadow is removed as a surprise removal, fio ends with I/O errors,
# nothing hangs (a task blocked for 10 s fails the node). Node 2 goes on,
# finds it lost this node, takes the NVMe back; both join again and this
# node borrows it afresh (the data are there). Then node 2 unloads
# smartio_lend while this node borrows it: this node is told and removes
# the shadow.
set -eu
. ./stopped.sh

borrower_dma_window iommu
borrower_ready
vmctl barrier available
borrow_nvme 20000
sum=$(write_random "$dev" 64)
echo "node$NODE: 64 MiB written to $dev, md5 $sum"
vmctl put sum "$sum"
vmctl barrier written

case $CASE in
borrower-stopped)
	# Idle now: node 2 stops this VM here, and lets it go on.
	vmctl barrier resumed
	wait_until 30 not_present "$shadow" ||
		fail "shadow $shadow still there after the pause"
	dmesg | grep -q "fdid 20000 lost: its lender, node 2, left" ||
		fail "the loss of node 2 not logged"
	;;
lender-stopped)
	no_hung_task
	fio_until_error "$dev"
	stop_and_lose 2 1
	wait_until 30 not_present "$shadow" ||
		fail "shadow $shadow still there after node 2 was lost"
	dmesg | grep -q "fdid 20000 lost: its lender, node 2, left" ||
		fail "the loss of node 2 not logged"
	wait_until 30 test -e /tmp/fio.rc ||
		fail "fio still running 30 s after node 2 was lost"
	grep -m1 "err=" /tmp/fio.out || true
	[ "$(cat /tmp/fio.rc)" != 0 ] || { cat /tmp/fio.out; fail "fio saw no error"; }
	grep -q "err= *[1-9]" /tmp/fio.out ||
		{ cat /tmp/fio.out; fail "fio reported no I/O error"; }
	echo "node$NODE: fio ended with I/O errors"
	echo 120 >/proc/sys/kernel/hung_task_timeout_secs
	# Until node 2 joins again, its NVMe may carry out what it had
	# queued (test.conf allows the faults of that, here alone).
	phase_begin lender-resumed
	vmctl signal 1 CONT
	echo "node$NODE: node 2's VM goes on"
	vmctl barrier resumed
	;;
*) fail "no case $CASE" ;;
esac

wait_until 30 outputs 0 iova_pages ||
	fail "$(iova_pages) pages left mapped in the IOVA window"
wait_until 60 joined 2 || { show_adapters; fail "node 2 did not join again"; }
vmctl barrier rejoined
[ "$CASE" != lender-stopped ] || phase_end lender-resumed
vmctl barrier available-again
borrow_nvme 20000
[ "$(read_sum "$dev" 64)" = "$sum" ] || fail "$dev, borrowed again, reads other data"
echo "node$NODE: borrowed again as $shadow, $dev reads the same data"
vmctl barrier borrowed-again

# Node 2 lets go of the NVMe: unbound from its stub driver, or unloaded.
wait_until 30 not_present "$shadow" ||
	fail "shadow $shadow still there after node 2 let go of the NVMe"
dmesg | grep -q "fdid 20000 lost: its lender reclaimed it" ||
	fail "node 2's reclaim not logged"
vmctl barrier taken
rmmod smartio_lend smartio_ntb smartio
ntb_unload
