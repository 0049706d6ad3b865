#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1 (node0.sh says what each case does).
# borrower-unbind: node 1 unbinds its NTB, and returns the NVMe first:
# this node has it back (available), makes it unavailable, and nvme reads
# what node 1 synced.
# lender-unbind: this node unbinds its NTB during node 1's fio: within the
# unbind, before its link goes down, it reclaims the NVMe and node 1
# returns it; with no adapter it still lists it, under its fdid, and makes
# it unavailable: nvme reads what node 1 synced. Then it binds its NTB
# again and node 1 joins again.
set -eu
. ./unbind.sh

lend_nvme
bdf=$(nvme_bdf)
vmctl barrier available
vmctl barrier fio
sum=$(vmctl get sum)
lent_listed 20000 "$bdf" "borrowed by 1"
vmctl barrier listed

case $CASE in
borrower-unbind)
	vmctl barrier unbound
	wait_until 30 log_more "returned by node 1" 0 ||
		fail "node 1 did not return the NVMe before it left"
	;;
lender-unbind)
	ntb_unbind
	dmesg | grep -q "fdid 20000: reclaiming from node 1" ||
		fail "the NVMe not reclaimed within the unbind"
	dmesg | grep -q "returned by node 1" ||
		fail "node 1 did not return the NVMe before this node left"
	! dmesg | grep "borrower node 1 left: taken back" ||
		fail "the NVMe taken back only as node 1 was left"
	vmctl barrier unbound
	;;
*) fail "no case $CASE" ;;
esac
lent_listed 20000 "$bdf" available
smartioctl device unavailable 20000
host_reads_synced "$bdf" "$sum"
case $CASE in
lender-unbind) ntb_bind 1 ;;
esac
vmctl barrier taken
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
