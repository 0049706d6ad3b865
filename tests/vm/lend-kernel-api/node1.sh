#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to a kernel user on node 1 (node0.sh): it resets
# the function when asked, takes it back when given back (three times,
# and once more as the user is unloaded), and reclaims it once. It lends
# its edu too, whose windows onto node 1 it lays out clear of the user's
# range, [0, 1 GiB), and refuses the user's range over its DMA window.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

lend_nvme
lend_edu
vmctl barrier available
vmctl barrier reset
dmesg | grep -q "reset for node 1, its state restored" || fail "no reset here"
vmctl barrier given-back
dmesg | grep -q "returned by node 1" || fail "no return here"
vmctl barrier borrowed-again
wait_until 30 outputs 4 sh -c 'dmesg | grep -c "returned by node 1"' ||
	fail "$(dmesg | grep -c "returned by node 1") returns, not 4"
smartioctl device reclaim 20000 || fail "reclaim 20000 failed"
vmctl barrier reclaimed

vmctl barrier edu-borrowed
windows=$(dmesg | sed -n "s/.* $edu: for node 1: DMA window at \(0x[0-9a-f]*\)-0x[0-9a-f]*, interrupt window at \(0x[0-9a-f]*\)-.*/\1 \2/p" | tail -n 1)
[ -n "$windows" ] || fail "the edu's windows not logged"
dma=${windows% *}
msi=${windows#* }
[ $((dma >= 0x40000000 && msi >= 0x40000000)) = 1 ] ||
	fail "the edu's windows at $dma and $msi meet the user's range [0, 0x40000000)"
vmctl put edu_dma_window "$dma"
vmctl barrier edu-refused
dmesg | grep -q "$edu: device addresses $dma-0x[0-9a-f]* asked for by node 1: refused, they meet its windows onto the borrower\$" ||
	fail "the refusal over the DMA window not logged"
vmctl barrier finished
smartioctl device unavailable 20000
smartioctl device remove 20000
smartioctl device unavailable 20001
smartioctl device remove 20001
rmmod smartio_lend smartio_ntb smartio
ntb_unload
