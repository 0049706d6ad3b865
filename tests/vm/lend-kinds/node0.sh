#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's device of the case's kind (kinds.sh) and has its
# stock driver drive it with real work: a storage controller's disk takes
# 64 MiB of random data and reads them back the same (storage.sh); a NIC
# pings node 2's peer NIC and exchanges 4 MiB each way with it (nic.sh).
# Its interrupts come through the shadow's MSI domain, of the kind the
# function offers. Node 1 returns it; node 2's own driver then uses it
# again (node1.sh). Where the case must be refused (REFUSED, kinds.sh),
# either the borrow fails with that one message, or the driver refuses the
# shadow with it and node 1 returns it.
set -eu
. ./kinds.sh
. ./storage.sh
. ./nic.sh

kind_ready 2
step available
fdid=$(vmctl get fdid)

# use_and_return FDID: borrows FDID, has the stock driver drive it (or
# refuse it: REFUSED), returns it.
use_and_return() {
	if [ -n "$REFUSED" ]; then
		shadow=$(borrow_refused "$1")
	else
		shadow=$(borrow "$1")
	fi
	smartioctl device list | grep -x "$1: .* node 2 borrowed by 1 as $shadow" ||
		kind_fail "$1 not listed as borrowed by node 1"
	case $CLASS:$REFUSED in
	storage:) storage_borrowed "$shadow" ;;
	nic:) nic_borrowed "$shadow" ;;
	esac
	if [ -z "$REFUSED" ]; then
		irqs_taken "$shadow" "the borrowed $KIND's $DRIVER"
		irqs_shadow "$shadow"
	fi
	bounded 60 "smartioctl return $1" smartioctl return "$1" || kind_fail "cannot return $1"
	wait_until 10 not_present "$shadow" ||
		kind_fail "the borrowed $KIND ($shadow) is still there after its return"
}

if [ -n "$REFUSED_ERRNO" ]; then
	borrow_failed "$fdid"
else
	use_and_return "$fdid"
fi
step returned
step checked
rmmod smartio_lend smartio_ntb smartio
ntb_unload
