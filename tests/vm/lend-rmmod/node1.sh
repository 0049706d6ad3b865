#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1 and exports segment 8 to it (node0.sh
# says what follows). Once one node unloaded its modules, this node's
# nvme driver has the NVMe back (this node makes it unavailable first
# unless it unloaded smartio_lend) and reads what node 1 synced.
set -eu
. ./rmmod.sh

lend_nvme
bdf=$(nvme_bdf)
smartio-seg create 8 4M
smartio-seg export 8 1
vmctl barrier available
vmctl barrier borrowed
sum=$(vmctl get sum)
lent_listed 20000 "$bdf" "borrowed by 1"
vmctl barrier ready

if [ "$UNLOADER" = lender ]; then
	unload_in_order
else
	wait_until 30 lent_is_available "$bdf" ||
		fail "not available once node 1 unloaded: $(smartioctl device list)"
	smartioctl device unavailable 20000
fi
host_reads_synced "$bdf" "$sum"
vmctl barrier unloaded
vmctl barrier checked
if [ "$UNLOADER" != lender ]; then
	# Node 1's connection goes as it leaves, which we see a little after.
	wait_until 30 smartio-seg remove 8 2>/dev/null ||
		fail "segment 8 not removable once node 1 left"
	rmmod smartio_lend smartio_ntb smartio
	ntb_unload
fi
