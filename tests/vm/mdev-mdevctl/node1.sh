#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 joins node 1 only once node 1 has defined its mdev (node0.sh),
# and lends its NVMe (20000), which node 1 opens through the mdev; then its
# VM is killed. It boots again, joins only once node 1 has seen it away,
# and, once node 1 has seen it join, lends its NVMe again, which node 1
# opens again.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

if [ "$BOOT" = 1 ]; then
	vmctl barrier defined
	lend_nvme
	vmctl barrier available
	vmctl barrier opened
	sleep 100000	# until node 1 kills this VM
	exit 1
fi
vmctl barrier rebooted
lender_ready
vmctl barrier joined-again
lend_function "$(nvme_bdf)" >/dev/null
vmctl barrier available-again
vmctl barrier finished
[ "$(dmesg | grep -c "returned by node 1")" = 1 ] ||
	fail "$(dmesg | grep -c "returned by node 1") returns since this boot, not 1"
smartioctl device unavailable 20000
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
