#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe: device add gives it fdid 20000, unavailable;
# bad input (a function registered twice, a missing one, the NTB itself,
# an unprivileged user) changes nothing; while its block device is open
# the function is in use and is only taken with force; available hands it
# to the lender's stub driver, unavailable gives it back to nvme with its
# data intact; node 1 sees all of it in its own list.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

load_lend
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
bdf=$(nvme_bdf)
ntb=$(ntb_ports | head -n 1)
wait_until 30 blockdev_open /dev/nvme0n1 || fail "no NVMe block device"
dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=64 oflag=direct 2>/dev/null
sum=$(blockdev_sum /dev/nvme0n1)

line=$(smartioctl device add "$bdf")
echo "node$NODE: $line"
[ "$line" = "20000: $bdf [1b36:0010] class 010802 node 2 unavailable" ] ||
	fail "device add: $line"
expect_error EEXIST smartioctl device add "$bdf"
expect_error ENODEV smartioctl device add 0000:00:1f.6
expect_error EINVAL smartioctl device add "$ntb"
expect_eperm smartioctl device add "$bdf"
expect_eperm smartioctl device available 20000
list=$(smartioctl device list 2>&1) || fail "device list: $list"
[ "$list" = "$line" ] || fail "device list changed: $list"
expect_error EALREADY smartioctl device unavailable 20000
expect_error ENOENT smartioctl device available 20001
vmctl barrier added
# Node 1 has seen it unavailable.
vmctl barrier seen

# In use: an open block device holds its driver.
exec 3</dev/nvme0n1
expect_error EBUSY smartioctl device available 20000
[ "$(driver_of "$bdf")" = nvme ] || fail "nvme lost the function"
exec 3<&-
smartioctl device available 20000
[ "$(driver_of "$bdf")" = smartio-lender ] ||
	fail "available: driver $(driver_of "$bdf")"
[ ! -e /dev/nvme0n1 ] || fail "block device still there"
expect_error EALREADY smartioctl device available 20000
expect_error EBUSY smartioctl device remove 20000
smartioctl device list | grep -x "20000: $bdf \[1b36:0010\] class 010802 node 2 available" ||
	fail "not listed available"
vmctl barrier available
vmctl barrier listed

smartioctl device unavailable 20000
[ "$(driver_of "$bdf")" = nvme ] || fail "unavailable: driver $(driver_of "$bdf")"
wait_until 30 blockdev_open /dev/nvme0n1 || fail "no NVMe block device after unavailable"
[ "$(blockdev_sum /dev/nvme0n1)" = "$sum" ] || fail "data changed while lent"

# Forced: the open block device goes, the function is lent all the same.
exec 3</dev/nvme0n1
smartioctl device available 20000 force
exec 3<&-
[ "$(driver_of "$bdf")" = smartio-lender ] || fail "force: not claimed"
smartioctl device unavailable 20000
smartioctl device remove 20000
[ "$(smartioctl device list)" = "" ] || fail "device listed after remove"
[ "$(smartioctl -j device list)" = "[]" ] || fail "JSON list not empty"
vmctl barrier removed
rmmod smartio_lend smartio_ntb smartio
ntb_unload
