# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The demo cluster: two nodes cabled through the emulated NTB boot, load
# smartio and the NTB driver, and show the link working. Later steps
# (fabric, lending) extend this script, so that "make demo" always shows
# what smartio can do today.
set -eu

say() {
	echo "== node$NODE: $*"
}

say "up: $(uname -r), IOMMU $(ls /sys/class/iommu)"
vmctl barrier booted

say "loading smartio"
modprobe smartio
smartioctl version
vmctl barrier loaded

say "loading the emulated NTB's driver"
modprobe ntb_hw_smartio
for d in /sys/bus/ntb/devices/*; do
	say "NTB port $(basename "$d")"
done
modprobe ntb_pingpong
sleep 3
for c in /sys/kernel/debug/ntb_pingpong/*/count; do
	say "ntb_pingpong: $(cat "$c") doorbell round trips across the link"
done
vmctl barrier pinged

say "unloading"
rmmod ntb_pingpong ntb_hw_smartio
modprobe -r smartio
vmctl barrier unloaded
say "done"
