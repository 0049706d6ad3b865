#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Must FAIL on an access our NTB model drops alone (its LOG_GUEST_ERROR in
# the QEMU guest-error log the runner keeps): the script succeeds and the
# kernel logs no fault. With no driver bound, it writes to the emulated
# NTB's ID register (qemu/smartio-ntb.md: read-only), which the model
# refuses and logs.
set -e
for dev in /sys/bus/pci/devices/*; do
	[ "$(cat "$dev/vendor"):$(cat "$dev/device")" = 0x1234:0x4e54 ] && break
done
echo 1 >"$dev/enable"
read -r bar0 _ <"$dev/resource"
devmem "$bar0" 32 0x5a5a5a5a
exit 0
