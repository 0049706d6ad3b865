#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1, reclaims it, lends it again until its
# VM is killed; then boots again and lends nothing, joining node 1 only
# once node 1 saw it gone.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

[ "$BOOT" = 1 ] || vmctl barrier rebooted
load_lend
wait_until 60 joined 1 || { show_adapters; fail "node 1 never joined"; }
if [ "$BOOT" = 1 ]; then
	smartioctl device add "$(nvme_bdf)"
	smartioctl device available 20000
	vmctl barrier available
	vmctl barrier borrowed
	smartioctl device reclaim 20000
	dmesg | grep -q "returned by node 1" || fail "node 1 did not give it back"
	smartioctl device list | grep -q "^20000: .* available$" ||
		fail "not available after reclaim"
	expect_error EALREADY smartioctl device reclaim 20000
	vmctl barrier reclaimed
	sleep 100000	# until node 1 kills this VM
	exit 1
fi
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
