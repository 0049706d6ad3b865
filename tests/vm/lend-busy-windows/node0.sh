#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# An NTB driver that holds its window BARs busy (pci_request_regions() at
# probe, as Intel's do; ntb_hw_smartio reserve_window_bars=1 here): a device
# borrowed through it would sit inside a busy range, where its driver
# cannot claim its BARs. Node 1's borrow of node 2's NVMe is refused with
# one message and changes nothing: the device stays available on node 2.
# Lending needs no claim on this side: node 2 borrows node 1's NVMe, and
# its data crosses.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

modprobe nvme
ntb_load reserve_window_bars=1
[ "$(grep -c " : ntb_hw_smartio$" /proc/iomem)" -ge 2 ] ||
	fail "no window BAR held busy by ntb_hw_smartio in /proc/iomem"
modprobe smartio_ntb
modprobe smartio_lend
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
lend_function "$(nvme_bdf)" >/dev/null
vmctl barrier available

out=$(smartioctl borrow 20000 2>&1) && fail "borrow through busy windows succeeded: $out"
echo "node$NODE: $out"
echo "$out" | grep -q "window BARs busy" || fail "borrow refused without the reason: $out"
smartioctl device list | grep -q "^20000: .* node 2 available$" ||
	fail "20000 is not available again after the refused borrow: $(smartioctl device list)"
[ -z "$(ls -d /sys/bus/pci/devices/1????:* 2>/dev/null)" ] ||
	fail "a shadow device is left: $(ls -d /sys/bus/pci/devices/1????:*)"
vmctl barrier refused

vmctl barrier returned
smartioctl device unavailable 10000
smartioctl device remove 10000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
