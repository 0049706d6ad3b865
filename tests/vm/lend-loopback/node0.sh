#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Loopback: one node lends its NVMe through one port of its NTB and
# borrows it through the other, in the IOMMU mode. The nvme driver binds
# to the shadow (the function itself held by the lender stub), 64 MiB of
# random data go through the shadow and fio runs; once returned and given
# back to its own driver, the NVMe holds the same data.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

borrower_dma_window iommu
loopback_ready
bdf=$(nvme_bdf)
loopback_borrow "$bdf"
[ "$(driver_of "$bdf")" = smartio-lender ] || fail "$bdf not held by the lender"
wait_until 30 blockdev_open /dev/nvme0n1 || fail "no block device for the borrowed NVMe"

dd if=/dev/urandom of=/tmp/data bs=1M count=64 2>/dev/null
sum=$(md5sum </tmp/data)
dd if=/tmp/data of=/dev/nvme0n1 bs=1M oflag=direct 2>/dev/null ||
	fail "cannot write the borrowed NVMe"
[ "$(blockdev_sum /dev/nvme0n1)" = "$sum" ] || fail "borrowed NVMe reads back other data"
fio_run randread /dev/nvme0n1
fio_run randwrite /dev/nvme0n1
grep -q 'smartio-MSI' /proc/interrupts || fail "no interrupt through the shadow's MSI domain"

smartioctl return "$fdid" || fail "return $fdid failed"
not_present "$shadow" || fail "shadow device still there"
[ "$(iova_pages)" = 0 ] || fail "$(iova_pages) pages left in the IOVA window"
smartioctl device unavailable "$fdid"
wait_until 30 blockdev_open /dev/nvme0n1 || fail "no NVMe block device after unavailable"
[ "$(blockdev_sum /dev/nvme0n1)" = "$sum" ] || fail "the NVMe does not hold what went through its shadow"
smartioctl device remove "$fdid"
rmmod smartio_lend smartio_ntb smartio
ntb_unload
