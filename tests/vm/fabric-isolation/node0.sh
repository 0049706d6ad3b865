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

# Our outbound windows 0 and 1, each the peer's to translate: the direct
# windows are BAR 2, one after the other.
port=$(ntb_ports | head -n1)
bar2=$(sed -n 3p "/sys/bus/pci/devices/$port/resource" | cut -d' ' -f1)
win_size=$((1 << 30))
show_adapters | grep reach
# Window 0 leads to node 2's IOVA window: 128 MiB in, nothing is granted
# (grants are mapped from its top down, the receive area is at its base).
devmem $((bar2 + (128 << 20))) 32 0xdeadbeef
devmem $((bar2 + (128 << 20) + 4096)) 64 0xdeadbeefdeadbeef
# Window 1 leads to the 1 GiB-aligned range around the interrupt range:
# its start is IOVA space with nothing mapped.
devmem $((bar2 + win_size)) 32 0xdeadbeef
vmctl barrier written
vmctl barrier unchanged

sum=$(smartio-seg fill 2 7 0xf00d) || fail "cannot fill node 2's segment 7 again"
vmctl put sum2 "$sum"
vmctl barrier checked
windows_idle || { show_adapters; fail "windows left in use"; }
vmctl barrier finished
rmmod smartio_ntb smartio
ntb_unload
