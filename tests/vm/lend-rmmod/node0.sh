#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's NVMe, writes 64 MiB to it and syncs them, and
# maps node 2's segment 8 in a process that touches it every 10 ms. Then
# one node unloads its modules (smartio, smartio_ntb, smartio_lend, the
# NTB's driver, the NTB core) in the case's order (rmmod.sh), and each
# module still in use is refused on the way; none oopses or hangs. Either
# way the shadow goes and the process touching the segment gets SIGBUS.
set -eu
. ./rmmod.sh

borrower_dma_window iommu
borrower_ready
vmctl barrier available
borrow_nvme 20000
sum=$(write_synced "$dev")
echo "node$NODE: 64 MiB written to $dev and synced, md5 $sum"
vmctl put sum "$sum"
smartio-seg hold 2 8 /tmp/held >/tmp/hold.out 2>&1 &
hold=$!
wait_until 30 test -e /tmp/held || { cat /tmp/hold.out; fail "segment 8 never held"; }
vmctl barrier borrowed
vmctl barrier ready

[ "$UNLOADER" != borrower ] || unload_in_order
vmctl barrier unloaded
wait_until 30 not_present "$shadow" || fail "shadow $shadow still there"
timeout 30 sh -c "while kill -0 $hold 2>/dev/null; do sleep 0.2; done" ||
	fail "the process still maps node 2's segment 8 30 s later"
wait $hold || { cat /tmp/hold.out; fail "smartio-seg hold failed"; }
grep -qx SIGBUS /tmp/hold.out || { cat /tmp/hold.out; fail "no SIGBUS"; }
echo "node$NODE: the shadow is gone, the process touching segment 8 got SIGBUS"
vmctl barrier checked
if [ "$UNLOADER" != borrower ]; then
	rmmod smartio_lend smartio_ntb smartio
	ntb_unload
fi
