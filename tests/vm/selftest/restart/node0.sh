#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Must PASS: kill node1 mid-script, then meet its second boot.
set -e
# An expected fault (test.conf) must not fail this node.
echo "<3>DMAR: DRHD: handling fault status reg 2" >/dev/kmsg
# A debug kernel's report test.conf allows by its kind and by where the
# entry was mapped ("Mapped at", a sequel of the report), and a DMA-API
# line that is no report: neither may fail this node.
for line in 'DMA-API: selftest 0000:00:00.0: device driver frees DMA memory with different size [size=64] [unmapped 32]' \
	'WARNING: CPU: 0 PID: 1 at kernel/dma/debug.c:1 check_unmap+0x0/0x10' \
	'Call Trace:' ' <TASK>' ' selftest_unmap+0x1/0x20 [selftest]' ' </TASK>' \
	'---[ end trace 0000000000000000 ]---' 'DMA-API: Mapped at:' \
	' selftest_map+0x1/0x20 [selftest]'; do
	echo "<4>$line" >/dev/kmsg
done
echo "<6>DMA-API: preallocated 65536 debug entries" >/dev/kmsg
# A line in QEMU's own log (test.conf), with the model the guest was told.
echo "selftest: node0 under NTB model $NTB_MODEL" >/dev/ttyS2
vmctl barrier ready
vmctl kill 1
vmctl barrier back
[ "$(vmctl get node1-boot)" = 2 ]
