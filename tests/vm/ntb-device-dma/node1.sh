#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The far side of ntb-device-dma: lends RAM of its own (test.conf's reserved
# region) to node0's edu device through the NTB, and checks that edu's DMA
# write arrived there exactly, before node0's doorbell, with the bytes
# around it untouched, and that a write through a LUT slot without VALID
# did not arrive at all.
set -e
# shellcheck source=../guest/sntb-regs.sh
. /usr/local/lib/vmtest/sntb-regs.sh
# shellcheck source=../guest/dma.sh
. /usr/local/lib/vmtest/dma.sh

# shellcheck disable=SC2046 # sysfs paths have no spaces
set -- $(sntb_devices)
[ $# -eq 1 ] || fail "expected 1 smartio-ntb device, found $#"
pci_enable "$1"
R=$(bar "$1" 0)

w32 "$R" $LINK_CTRL 1
vmctl barrier enabled
wait_reg "$R" $LINK_STATUS $LINK_UP 10 || fail "link not up"
vmctl barrier up

# Not page or slot aligned on purpose; all in one 2 MiB LUT slot.
target=$((RAM + 0x3010)) source=$((RAM + 0x5008)) invalid=$((RAM + 0x7000))
pattern 1 >/tmp/p		# what edu writes here
pattern 2 >/tmp/q		# what edu reads from here
pattern 3 $((LEN + 128)) >/tmp/c	# around the target
pattern 4 >/tmp/d		# where nothing may arrive
mem_put $((target - 64)) /tmp/c
mem_put $source /tmp/q
mem_put $invalid /tmp/d
{ head -c 64 /tmp/c; cat /tmp/p; tail -c 64 /tmp/c; } >/tmp/want
vmctl put dma-target "$(printf '0x%x' $target)"
vmctl put dma-source "$(printf '0x%x' $source)"
vmctl put dma-invalid "$(printf '0x%x' $invalid)"

wait_reg "$R" $DB_STATUS 0x1 20 || fail "doorbell after edu's write missing"
w32 "$R" $DB_STATUS 0x1
mem_get $((target - 64)) $((LEN + 128)) >/tmp/got
same "edu's DMA from node0 in our RAM, 64 bytes either side intact" /tmp/want /tmp/got
vmctl barrier written

wait_reg "$R" $DB_STATUS 0x2 60 || fail "doorbell after the write through an invalid slot missing"
mem_get $invalid >/tmp/got
same "nothing arrived through a LUT slot without VALID" /tmp/d /tmp/got
mem_get $((target - 64)) $((LEN + 128)) >/tmp/got
same "edu's data still in place" /tmp/want /tmp/got
vmctl barrier finished
echo "ntb-device-dma node1: all passed"
