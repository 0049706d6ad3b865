#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to a kernel user on node 1 (node0.sh): it resets
# the function when asked, takes it back when given back (three times,
# and once more as the user is unloaded), and reclaims it once.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

lend_nvme
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
vmctl barrier finished
smartioctl device unavailable 20000
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
