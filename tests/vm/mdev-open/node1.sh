#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1's mediated device (node0.sh), which
# borrows it three times and gives it back each time (resetting it once);
# the fourth time node 2 reclaims it.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

lend_nvme
lend_edu
vmctl barrier available
vmctl barrier reset
dmesg | grep -q "reset for node 1, its state restored" || fail "no reset here"
vmctl barrier held
[ "$(dmesg | grep -c "returned by node 1")" = 3 ] ||
	fail "$(dmesg | grep -c "returned by node 1") returns, not 3"
smartioctl device reclaim 20000 || fail "reclaim 20000 failed"
vmctl barrier reclaimed
vmctl barrier finished
smartioctl device unavailable 20000
smartioctl device remove 20000
smartioctl device unavailable 20001
smartioctl device remove 20001
rmmod smartio_lend smartio_ntb smartio
ntb_unload
