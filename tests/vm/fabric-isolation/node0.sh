#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Per-peer isolation on inbound-translated windows with an IOMMU: node 1
# writes node 2's exported segment through its window (granted: it
# lands), then writes through the same window where node 2 granted
# nothing, and through its interrupt window beside the interrupt range.
# Node 2's IOMMU faults on those (test.conf expects it) and its memory
# does not change; the granted segment still takes writes afterwards.
set -eu
# shellcheck source=../guest/segment.sh
. /usr/local/lib/vmtest/segment.sh

load_fabric
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
vmctl barrier created

sum=$(smartio-seg fill 2 7 0x5eed) || fail "cannot fill node 2's segment 7"
vmctl put sum "$sum"
vmctl barrier filled

# Where our windows onto node 2 lead and where they sit in our physical
# address space, as smartio_ntb reads them from node 2 (ntb/reach.c):
# "of the peer ADDR+SIZE at PHYS msi ADDR+SIZE at PHYS".
reach=$(show_adapters | grep -m1 ' reach ') || fail "no reach line"
echo "$reach"
# shellcheck disable=SC2046 # split into the six fields
set -- $(echo "$reach" | sed -n 's/.*of the peer \(0x[0-9a-f]*\)+\(0x[0-9a-f]*\) at \(0x[0-9a-f]*\) msi \(0x[0-9a-f]*\)+\(0x[0-9a-f]*\) at \(0x[0-9a-f]*\)$/\1 \2 \3 \4 \5 \6/p')
[ $# -eq 6 ] || fail "cannot read the reach line"
mem_size=$2 mem_phys=$3 msi_addr=$4 msi_phys=$6
# The memory window leads to node 2's IOVA window: 128 MiB in, nothing is
# granted (grants are mapped from its top down, the receive area is at
# its base).
[ $((mem_size)) -gt $(((128 << 20) + 8192)) ] ||
	fail "node 2's memory window is too small for the test ($mem_size)"
devmem $((mem_phys + (128 << 20))) 32 0xdeadbeef
devmem $((mem_phys + (128 << 20) + 4096)) 64 0xdeadbeefdeadbeef
# The interrupt window leads to an aligned range around the interrupt
# range: where it starts below it, its start is IOVA space with nothing
# mapped.
if [ $((msi_addr)) -lt $((0xfee00000)) ]; then
	devmem $((msi_phys)) 32 0xdeadbeef
fi
vmctl barrier written
vmctl barrier unchanged

sum=$(smartio-seg fill 2 7 0xf00d) || fail "cannot fill node 2's segment 7 again"
vmctl put sum2 "$sum"
vmctl barrier checked
windows_idle || { show_adapters; fail "windows left in use"; }
vmctl barrier finished
rmmod smartio_ntb smartio
ntb_unload
