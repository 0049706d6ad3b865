#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The receiving side: the write node0 aims at unmapped memory must be
# stopped by this node's IOMMU, not land.
set -eu
# shellcheck source=../guest/ntb-clients.sh
. /usr/local/lib/vmtest/ntb-clients.sh

modprobe ntb_hw_smartio
modprobe ntb_tool
port=$(ntb_ports)
echo Y >"/sys/kernel/debug/ntb_tool/$port/link"	# ntb_tool leaves it to us
wait_until 60 grep -q Y "/sys/kernel/debug/ntb_tool/$port/peer0/link" ||
	fail "link never came up"
vmctl barrier up
vmctl get written >/dev/null

blocked() {
	dmesg | grep -q "DMAR: \[DMA Write NO_PASID\] Request device \[$(echo "$port" | cut -d: -f2-)\] fault addr 0x7f000000"
}
wait_until 20 blocked || fail "no IOMMU fault for the write from node0"
echo "node1: IOMMU blocked the write to unmapped 0x7f000000"
vmctl barrier checked
