#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's block device controller (device.sh: an NVMe, or
# another): its stock driver binds to the shadow device and a block device
# appears; 64 MiB of random data go to it and read back the same; fio reads
# and writes at random for 20 s each, every completion an interrupt of the
# kind device.sh names (MSI-X, MSI) through the shadow's MSI domain; the
# device is returned and its block device goes. Node 2 then reads the same
# data through its own driver. Bad input gets one clear message each.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
. ./dma-window.sh
. ./device.sh

borrower_dma_window "$DMA_WINDOW"
load_lend
load_device
case $DMA_WINDOW in
ram) [ "$(iova_pages)" = none ] || fail "an IOVA window with an identity NTB" ;;
iommu) [ "$(iova_pages)" = 0 ] || fail "no empty IOVA window: $(iova_pages)" ;;
esac
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }

# Bad input: one clear message each, nothing borrowed.
expect_error ENOENT smartioctl borrow 20005
expect_error EHOSTUNREACH smartioctl borrow 70000
expect_error ENOENT smartioctl return 20000
vmctl barrier added
expect_error EACCES smartioctl borrow 20000
vmctl barrier tried
vmctl barrier available

shadow=$(borrow_bound 20000 "$DEVICE_DRIVER")
expect_error EBUSY smartioctl borrow 20000
wait_until 30 blockdev_of "$shadow" >/dev/null ||
	fail "no block device for the borrowed $DEVICE"
dev=$(blockdev_of "$shadow")
echo "node$NODE: the borrowed $DEVICE is $dev"
smartioctl device list | grep -x "20000: .* node 2 borrowed by 1 as $shadow" ||
	fail "not listed borrowed"

dd if=/dev/urandom of=/tmp/data bs=1M count=64 2>/dev/null
sum=$(md5sum </tmp/data)
start=$(date +%s)
dd if=/tmp/data of="$dev" bs=1M oflag=direct 2>/dev/null ||
	fail "cannot write the borrowed $DEVICE"
echo "node$NODE: 64 MiB written in $(($(date +%s) - start)) s"
rm /tmp/data
start=$(date +%s)
[ "$(blockdev_sum "$dev")" = "$sum" ] || fail "borrowed $DEVICE reads back other data"
echo "node$NODE: 64 MiB read in $(($(date +%s) - start)) s"
fio_run randread "$dev"
fio_run randwrite "$dev"
grep -q 'smartio-MSI' /proc/interrupts || fail "no interrupt through the shadow's MSI domain"
kinds=$(cat /sys/bus/pci/devices/"$shadow"/msi_irqs/* | sort -u)
[ "$kinds" = "$DEVICE_IRQ" ] || fail "the shadow's vectors are $kinds, not $DEVICE_IRQ"
counts=
for irq in /sys/bus/pci/devices/"$shadow"/msi_irqs/*; do
	counts="$counts $(awk -v irq="${irq##*/}:" '$1 == irq {
		for (i = 2; $i ~ /^[0-9]+$/; i++) n += $i; print n + 0 }' /proc/interrupts)"
done
echo "node$NODE: interrupts on the shadow's $DEVICE_IRQ vectors:$counts"

if [ "$DMA_WINDOW" = iommu ]; then
	pages=$(iova_pages)
	echo "node$NODE: $pages pages mapped in the IOVA window"
	[ "$pages" -gt 0 ] || fail "nothing mapped in the IOVA window"
fi
smartioctl return 20000 || fail "return 20000 failed"
not_present "$shadow" || fail "shadow device still there"
[ ! -e "$dev" ] || fail "block device still there"
expect_error ENOENT smartioctl return 20000
case $DMA_WINDOW in
iommu) [ "$(iova_pages)" = 0 ] || fail "$(iova_pages) pages left in the IOVA window" ;;
esac
vmctl put sum "$sum"
vmctl barrier returned
vmctl barrier checked
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
