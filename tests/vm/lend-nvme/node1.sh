#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its block device controller (device.sh) to node 1, gets it
# back, and reads what node 1 wrote through its own driver, on interrupts
# of the kind device.sh names.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
. ./device.sh

load_lend
load_device
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
bdf=$(lent_bdf)
smartioctl device add "$bdf"
vmctl barrier added
vmctl barrier tried
smartioctl device available 20000
vmctl barrier available
vmctl barrier returned
smartioctl device list | grep -q "^20000: .* available$" ||
	fail "not available again after the return"
smartioctl device unavailable 20000
[ "$(driver_of "$bdf")" = "$DEVICE_DRIVER" ] || fail "$DEVICE_DRIVER did not take $bdf back"
wait_until 30 blockdev_of "$bdf" >/dev/null || fail "no block device after unavailable"
sum=$(vmctl get sum)
mine=$(blockdev_sum "$(blockdev_of "$bdf")")
echo "node$NODE: node 1 wrote sum $sum, the $DEVICE holds $mine"
[ "$mine" = "$sum" ] || fail "the $DEVICE does not hold what node 1 wrote"
kinds=$(cat /sys/bus/pci/devices/"$bdf"/msi_irqs/* | sort -u)
[ "$kinds" = "$DEVICE_IRQ" ] || fail "its own vectors are $kinds, not $DEVICE_IRQ"
vmctl barrier checked
vmctl barrier finished
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
