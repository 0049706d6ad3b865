#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe (fdid 20000), which node 1 cannot borrow, and
# borrows node 1's (fdid 10000) through its own, unreserved windows: data
# written there reads back, and the device goes back.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

load_lend
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
lend_function "$(nvme_bdf)" >/dev/null
vmctl barrier available
vmctl barrier refused
[ "$(driver_of "$(nvme_bdf)")" = smartio-lender ] ||
	fail "the refused borrow moved the lent NVMe off smartio-lender"

line=$(smartioctl borrow 10000) || fail "borrow 10000 failed"
echo "node$NODE: $line"
shadow=${line##* as }
[ "$(driver_of "$shadow")" = nvme ] || fail "nvme did not bind to $shadow"
ctrl=$(nvme_ctrl_of "$shadow")
wait_until 30 blockdev_open "/dev/${ctrl}n1" || fail "no block device on $shadow"
dd if=/dev/urandom of=/tmp/data bs=1M count=4 2>/dev/null
dd if=/tmp/data of="/dev/${ctrl}n1" bs=1M oflag=direct 2>/dev/null ||
	fail "cannot write the borrowed NVMe"
[ "$(dd if="/dev/${ctrl}n1" bs=1M count=4 iflag=direct 2>/dev/null | md5sum)" = \
	"$(md5sum </tmp/data)" ] || fail "the borrowed NVMe reads back other data"
smartioctl return 10000 || fail "return 10000 failed"
vmctl barrier returned
smartioctl device unavailable 20000
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
