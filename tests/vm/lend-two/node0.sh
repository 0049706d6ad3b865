#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows two NVMe functions of node 2 at once, each on a shadow bus
# of its own: both get the nvme driver and a block device, take 16 MiB of
# different random data each and read it back, and run fio at the same
# time; both are returned.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

borrower_ready
wait_until 30 blockdev_open /dev/nvme1n1 || fail "no local NVMe block devices"
vmctl barrier available

for fdid in 20000 20001; do
	borrow_bound $fdid nvme >/dev/null
done
smartioctl device list
[ "$(smartioctl device list | grep -c "^2000[01]: .* node 2 borrowed by 1 as ")" = 2 ] ||
	fail "not both listed borrowed"
wait_until 30 blockdev_open /dev/nvme3n1 || fail "no block devices for both borrowed NVMe"

for n in 2 3; do
	dd if=/dev/urandom of=/tmp/data$n bs=1M count=16 2>/dev/null
	dd if=/tmp/data$n of=/dev/nvme${n}n1 bs=1M oflag=direct 2>/dev/null ||
		fail "cannot write /dev/nvme${n}n1"
done
for n in 2 3; do
	[ "$(dd if=/dev/nvme${n}n1 bs=1M count=16 iflag=direct 2>/dev/null | md5sum)" = \
		"$(md5sum </tmp/data$n)" ] || fail "/dev/nvme${n}n1 reads back other data"
done
fio_run randrw /dev/nvme2n1 &
fio2=$!
fio_run randrw /dev/nvme3n1 || fail "fio on /dev/nvme3n1"
wait $fio2 || fail "fio on /dev/nvme2n1"

smartioctl return 20000 || fail "return 20000 failed"
[ -b /dev/nvme3n1 ] || fail "returning one took the other's block device"
smartioctl return 20001 || fail "return 20001 failed"
for n in 2 3; do
	[ ! -e /dev/nvme${n}n1 ] || fail "/dev/nvme${n}n1 still there"
done
vmctl barrier returned
rmmod smartio_lend smartio_ntb smartio
ntb_unload
