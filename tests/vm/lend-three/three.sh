# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for lend-three, whose VMs 0, 1 and 2 are nodes 1, 2 and 3: node 2
# lends its NVMe, fdid 20000; nodes 1 and 3 borrow it.

# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

fdid=20000

# The message, the whole of smartioctl's output, for a borrowed device.
refused_line="smartioctl: borrow $fdid: the device is borrowed already (EBUSY)"

# node_of VM: the node id of VM number VM.
node_of() {
	echo $(($1 + 1))
}

# state: what a borrower's borrow must not change: its PCI functions, its
# NVMe block devices, the pages mapped in its IOVA window.
state() {
	ls /sys/bus/pci/devices
	for b in /dev/nvme*n*; do
		[ -b "$b" ] && echo "$b"
	done
	echo "iova $(iova_pages)"
}

# borrow_refused: borrowing fdid fails with exit status 1 and the one line
# refused_line.
borrow_refused() {
	rc=0
	out=$(smartioctl borrow $fdid 2>&1) || rc=$?
	echo "node$NODE: borrow $fdid: $out"
	[ $rc = 1 ] || fail "borrow $fdid: exit status $rc, not 1"
	[ "$out" = "$refused_line" ] || fail "borrow $fdid: not \"$refused_line\""
}

# race ROUND: borrow fdid at the same time as the other borrower; publish
# race.ROUND.VM, "won" or "lost", and print the shadow's name, if won. A
# lost borrow must be refused with refused_line and change nothing.
race() {
	before=$(state)
	vmctl barrier "race.$1"
	rc=0
	out=$(smartioctl borrow $fdid 2>&1) || rc=$?
	echo "node$NODE: race $1: borrow $fdid: $out" >&2
	if [ $rc = 0 ]; then
		shadow=${out##* as }
		echo "$out" | grep -qx "$fdid: .* node 2 borrowed by $(node_of "$NODE") as $shadow" ||
			fail "race $1: borrow: $out"
		vmctl put "race.$1.$NODE" won
		echo "$shadow"
	else
		[ $rc = 1 ] || fail "race $1: borrow $fdid: exit status $rc, not 1"
		[ "$out" = "$refused_line" ] ||
			fail "race $1: borrow $fdid: not \"$refused_line\""
		[ "$(state)" = "$before" ] || fail "race $1: the refused borrow changed this node"
		vmctl put "race.$1.$NODE" lost
	fi
}

# race_winner ROUND: the VM that won round ROUND; fails unless exactly one
# of VMs 0 and 2 did.
race_winner() {
	a=$(vmctl get "race.$1.0")
	b=$(vmctl get "race.$1.2")
	case $a.$b in
	won.lost) echo 0 ;;
	lost.won) echo 2 ;;
	*) fail "race $1: VM 0 $a, VM 2 $b: not one winner" ;;
	esac
}

# borrower_races: a borrower's part of the races: each round, borrow at the
# same time as the other borrower; exactly one wins, gets the NVMe's block
# device and returns it. The lender says whether another round follows.
borrower_races() {
	round=1
	while :; do
		shadow=$(race $round)
		vmctl barrier "raced.$round"
		race_winner $round >/dev/null
		vmctl barrier "listed.$round"
		if [ -n "$shadow" ]; then
			wait_until 30 nvme_ns_of "$shadow" >/dev/null ||
				fail "race $round: no block device for the borrowed NVMe"
			smartioctl return $fdid || fail "race $round: return $fdid failed"
			not_present "$shadow" || fail "race $round: shadow device still there"
		fi
		vmctl barrier "returned.$round"
		[ "$(vmctl get "more.$round")" = yes ] || break
		round=$((round + 1))
	done
}
