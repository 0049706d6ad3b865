#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1 (node0.sh says what each case does).
# borrower-stopped: this node stops node 1's VM, declares it lost within
# peer_timeout_ms and a margin, takes the NVMe back as at a link loss (it
# becomes available), lets node 1 go on, and its own nvme driver reads what
# node 1 wrote. After node 1 borrowed it again, the stub driver is
# unbound from the function: node 1 is told first, and nvme gets it back.
# lender-stopped: node 1 stops this VM; going on, this node finds it lost
# node 1 and takes the NVMe back; after node 1 borrowed it again,
# smartio_lend is unloaded: node 1 is told first, and nvme gets it back.
set -eu
. ./stopped.sh

lend_nvme
bdf=$(nvme_bdf)
vmctl barrier available
vmctl barrier written
sum=$(vmctl get sum)
lent_listed 20000 "$bdf" "borrowed by 1"

case $CASE in
borrower-stopped)
	stop_and_lose 1 0
	wait_until 30 lent_is 20000 "$bdf" available ||
		fail "not available after node 1 was lost: $(smartioctl device list)"
	dmesg | grep -q "borrower node 1 left: taken back" ||
		fail "taking it back from node 1 not logged"
	vmctl signal 0 CONT
	echo "node$NODE: node 1's VM goes on"
	smartioctl device unavailable 20000
	wait_until 30 nvme_ns_of "$bdf" >/dev/null ||
		fail "nvme did not take $bdf back"
	[ "$(read_sum "$(nvme_ns_of "$bdf")" 64)" = "$sum" ] ||
		fail "$bdf reads other data than node 1 wrote"
	echo "node$NODE: nvme has $bdf back and reads what node 1 wrote"
	vmctl barrier resumed
	;;
lender-stopped)
	# Node 1 stops this VM here, and lets it go on.
	vmctl barrier resumed
	wait_until 30 log_more "borrower node 1 left: taken back" 0 ||
		fail "this node did not find it lost node 1"
	;;
*) fail "no case $CASE" ;;
esac

wait_until 60 joined 1 || { show_adapters; fail "node 1 did not join again"; }
# Node 1's fresh borrow finds the NVMe available (its reset is done).
case $CASE in
borrower-stopped) smartioctl device available 20000 ;;
esac
wait_until 30 lent_is 20000 "$bdf" available ||
	fail "not available again: $(smartioctl device list)"
vmctl barrier rejoined
vmctl barrier available-again
vmctl barrier borrowed-again
lent_listed 20000 "$bdf" "borrowed by 1"

returned=$(log_count "returned by node 1")
case $CASE in
borrower-stopped)
	echo "$bdf" >/sys/bus/pci/drivers/smartio-lender/unbind
	lent_listed 20000 "$bdf" unavailable
	;;
lender-stopped)
	rmmod smartio_lend
	;;
esac
dmesg | grep -q "fdid 20000: reclaiming from node 1" || fail "no reclaim logged"
log_more "returned by node 1" "$returned" || fail "node 1 did not give it back"
wait_until 30 outputs nvme driver_of "$bdf" ||
	fail "nvme did not get $bdf back: $(driver_of "$bdf")"
wait_until 30 nvme_ns_of "$bdf" >/dev/null || fail "no block device on $bdf"
[ "$(read_sum "$(nvme_ns_of "$bdf")" 64)" = "$sum" ] ||
	fail "$bdf reads other data than node 1 wrote"
echo "node$NODE: nvme has $bdf back"
vmctl barrier taken
rmmod smartio_lend 2>/dev/null || true
rmmod smartio_ntb smartio
ntb_unload
