#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's NVMe: the stock nvme driver binds to the shadow
# device and a block device appears; 64 MiB of random data go to it and
# read back the same; fio reads and writes at random for 20 s each; the
# device is returned and its block device goes.
# Node 2 then reads the same data through its own driver. Bad input gets
# one clear message each.
set -eu
. ./lend.sh
. ./dma-window.sh

borrower_dma_window "$DMA_WINDOW"
load_lend
case $DMA_WINDOW in
ram) [ "$(iova_pages)" = none ] || fail "an IOVA window with an identity NTB" ;;
iommu) [ "$(iova_pages)" = 0 ] || fail "no empty IOVA window: $(iova_pages)" ;;
esac
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
wait_until 30 test -b /dev/nvme0n1 || fail "no local NVMe block device"

# Bad input: one clear message each, nothing borrowed.
expect_error ENOENT smartioctl borrow 20005
expect_error EHOSTUNREACH smartioctl borrow 70000
expect_error ENOENT smartioctl return 20000
vmctl barrier added
expect_error EACCES smartioctl borrow 20000
vmctl barrier tried
vmctl barrier available

shadow=$(borrow_bound 20000 nvme)
expect_error EBUSY smartioctl borrow 20000
wait_until 30 test -b /dev/nvme1n1 || fail "no block device for the borrowed NVMe"
smartioctl device list | grep -x "20000: .* node 2 borrowed by 1 as $shadow" ||
	fail "not listed borrowed"

dd if=/dev/urandom of=/tmp/data bs=1M count=64 2>/dev/null
sum=$(md5sum </tmp/data)
start=$(date +%s)
dd if=/tmp/data of=/dev/nvme1n1 bs=1M oflag=direct 2>/dev/null ||
	fail "cannot write the borrowed NVMe"
echo "node$NODE: 64 MiB written in $(($(date +%s) - start)) s"
rm /tmp/data
start=$(date +%s)
[ "$(nvme_sum /dev/nvme1n1)" = "$sum" ] || fail "borrowed NVMe reads back other data"
echo "node$NODE: 64 MiB read in $(($(date +%s) - start)) s"
fio_run randread /dev/nvme1n1
fio_run randwrite /dev/nvme1n1
grep -q 'smartio-MSI' /proc/interrupts || fail "no interrupt through the shadow's MSI domain"

if [ "$DMA_WINDOW" = iommu ]; then
	pages=$(iova_pages)
	echo "node$NODE: $pages pages mapped in the IOVA window"
	[ "$pages" -gt 0 ] || fail "nothing mapped in the IOVA window"
fi
smartioctl return 20000 || fail "return 20000 failed"
not_present "$shadow" || fail "shadow device still there"
[ ! -e /dev/nvme1n1 ] || fail "block device still there"
expect_error ENOENT smartioctl return 20000
case $DMA_WINDOW in
iommu) [ "$(iova_pages)" = 0 ] || fail "$(iova_pages) pages left in the IOVA window" ;;
esac
vmctl put sum "$sum"
vmctl barrier returned
vmctl barrier checked
vmctl barrier finished
rmmod smartio_lend smartio_ntb ntb_hw_smartio smartio
