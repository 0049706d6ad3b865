#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1's mdev client until its VM is killed;
# then boots again and lends it again (node0.sh).
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

[ "$BOOT" = 1 ] || vmctl barrier rebooted
lend_nvme
if [ "$BOOT" = 1 ]; then
	vmctl barrier available
	sleep 100000	# until node 1 kills this VM
	exit 1
fi
vmctl barrier finished
smartioctl device unavailable 20000
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
