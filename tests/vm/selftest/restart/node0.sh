#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Must PASS: kill node1 mid-script, then meet its second boot.
set -e
# An expected fault (test.conf) must not fail this node.
echo "<3>DMAR: DRHD: handling fault status reg 2" >/dev/kmsg
# A debug kernel's report test.conf allows, and a DMA-API line that is no
# report: neither may fail this node.
echo "<3>DMA-API: selftest 0000:00:00.0: an allowed report" >/dev/kmsg
echo "<6>DMA-API: preallocated 65536 debug entries" >/dev/kmsg
# A line in QEMU's own log (test.conf), with the model the guest was told.
echo "selftest: node0 under NTB model $NTB_MODEL" >/dev/ttyS2
vmctl barrier ready
vmctl kill 1
vmctl barrier back
[ "$(vmctl get node1-boot)" = 2 ]
