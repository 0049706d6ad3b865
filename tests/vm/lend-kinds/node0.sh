#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's device of the case's kind (kinds.sh) and has its
# stock driver drive it with real work: a storage controller's disk takes
# 64 MiB of random data and reads them back the same (storage.sh); a NIC
# pings node 2's peer NIC and exchanges 16 MiB each way with it (nic.sh).
# Its interrupts come through the shadow's MSI domain, of the kind the
# function offers. Node 1 returns it; node 2's own driver then uses it
# again (node1.sh). Where the kind must be refused (REFUSED, kinds.sh), its
# driver refuses the shadow with that one message, and node 1 returns it.
set -eu
. ./kinds.sh
. ./storage.sh
. ./nic.sh

kind_ready 2
step available
fdid=$(vmctl get fdid)

if [ -n "$REFUSED" ]; then
	shadow=$(borrow_refused "$fdid")
else
	shadow=$(borrow "$fdid")
fi
smartioctl device list | grep -x "$fdid: .* node 2 borrowed by 1 as $shadow" ||
	kind_fail "$fdid not listed as borrowed by node 1"
case $CLASS:$REFUSED in
storage:) storage_borrowed "$shadow" ;;
nic:) nic_borrowed "$shadow" ;;
esac
if [ -z "$REFUSED" ]; then
	irqs_taken "$shadow" "the borrowed $KIND's $DRIVER"
	irqs_shadow "$shadow"
fi

bounded 60 "smartioctl return $fdid" smartioctl return "$fdid" || kind_fail "cannot return $fdid"
wait_until 10 not_present "$shadow" || kind_fail "the borrowed $KIND ($shadow) is still there after its return"
step returned
step checked
rmmod smartio_lend smartio_ntb smartio
ntb_unload
