#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# QEMU's own vfio-pci drives node 2's NVMe through a mediated device, with
# no guest kernel: node 1 runs qemu-system-x86_64 -accel qtest -device
# vfio-pci,sysfsdev=/sys/bus/mdev/devices/UUID, and smartio-qtest plays the
# guest through the qtest protocol (tests/tools/qtest-client.c): it places
# the BARs, enables MSI-X into guest RAM, writes the NVMe's queues into
# guest RAM, rings its doorbells, and sees each completion and its
# interrupt. It writes 4 MiB and reads them back the same; after the
# return node 2's own nvme driver reads the same 4 MiB. QEMU borrowed the
# device when it started and gave it back when it ended.
set -eu
# shellcheck source=../guest/mdev.sh
. /usr/local/lib/vmtest/mdev.sh

uuid=5a3a0d2e-1c1b-4b0e-9a59-000000020000
mdev_borrower "$uuid" 20000

dd if=/dev/urandom of=/tmp/data bs=1M count=4 2>/dev/null
out=$(smartio-qtest nvme /tmp/data -device "vfio-pci,sysfsdev=/sys/bus/mdev/devices/$uuid" 2>&1) ||
	fail "smartio-qtest: $out"
echo "$out"
echo "$out" | grep -qx "nvme: wrote 4194304 bytes, read them back the same" ||
	fail "not read back the same through QEMU's vfio-pci"
counts=$(echo "$out" | sed -n 's/^nvme: completions \([0-9]*\), interrupts \([0-9]*\)$/\1 \2/p')
# Identify twice, create two queues, then a write and a read a page.
[ "${counts% *}" = $((4 + 2 * 1024)) ] || fail "completions: $counts"
[ "${counts% *}" = "${counts#* }" ] || fail "not every completion's interrupt reached QEMU: $counts"
dmesg | grep -q "$uuid: fdid 20000 borrowed as " || fail "QEMU's open did not borrow"
dmesg | grep -q "$uuid: fdid 20000 given back\$" || fail "QEMU's end did not give it back"
vmctl put written "$(md5sum </tmp/data) 4"
vmctl barrier written
vmctl barrier checked
echo 1 >"/sys/bus/mdev/devices/$uuid/remove"
rmmod smartio_mdev smartio_lend smartio_ntb smartio
ntb_unload
