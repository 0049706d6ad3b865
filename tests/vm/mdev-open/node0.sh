#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2's NVMe as a VFIO mediated device on node 1 (smartio_mdev), opened
# by a VFIO client as QEMU's vfio-pci opens one (smartio-vfio). The type
# smartio-pci counts the cluster's available devices; an mdev with no
# fdid yet refuses to open, with one line saying why; opening it borrows
# the device (its config space reads as the NVMe's through the config
# region; BAR 0's version register reads the same through the region and
# through a mapping of it, which leaves out its MSI-X table and PBA),
# closing gives it back; while open the mdev keeps its fdid and the type
# counts one device fewer; a reset is carried out by node 2. Node 2
# reclaims the device while a process touches its mapped BAR: the mapping
# then reads all ones, as a function that is gone reads, and its request
# eventfd asks it to release the device. Node 2's edu (20001),
# in a second mdev, raises an MSI through its mapped BAR, which reaches
# the eventfd the client gave its vector, as does a loopback signal; and,
# with two pages of the client's memory in the container, the device
# copies 2 KiB from one to the other at their IOVAs, once the client
# turned Bus Master Enable on.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

# listed_available: 20000 is listed available.
listed_available() {
	smartioctl device list | grep -q "^20000: .* available\$"
}

borrower_ready
modprobe vfio_iommu_type1
modprobe smartio_mdev
type=/sys/class/smartio/smartio/mdev_supported_types/smartio-pci
[ -d "$type" ] || fail "no mdev type smartio-pci"
vmctl barrier available
[ "$(cat "$type/available_instances")" = 2 ] ||
	fail "available_instances $(cat "$type/available_instances"), not 2"

uuid=5a3a0d2e-1c1b-4b0e-9a59-000000020000
echo "$uuid" >"$type/create" || fail "cannot create mdev $uuid"
mdev=/sys/bus/mdev/devices/$uuid
[ "$(cat "$mdev/smartio/fdid")" = none ] || fail "fdid $(cat "$mdev/smartio/fdid") before any was set"

! smartio-vfio info "$uuid" 2>/tmp/err || fail "opened with no fdid"
grep -q "VFIO_GROUP_GET_DEVICE_FD: No such device" /tmp/err || fail "$(cat /tmp/err)"
dmesg | grep -q "$uuid: no device to open: write its fdid to smartio/fdid first\$" ||
	fail "the refusal not logged"

echo 20000 >"$mdev/smartio/fdid"
out=$(smartio-vfio info "$uuid") || fail "smartio-vfio info failed"
echo "$out"
echo "$out" | grep -qx "ids: 1b36 0010" || fail "not the NVMe's ids"
# PCI, resettable (the NVMe has FLR).
echo "$out" | grep -qx "device: flags 0x3 regions 9 irqs 5" || fail "not a resettable PCI device"
echo "$out" | grep -qx "config: size 4096" || fail "not a 4 KiB config space"
# QEMU's NVMe is version 1.4, its MSI-X table and PBA at BAR 0 + 0x2000
# and + 0x3000 (hw/nvme/ctrl.c): one area before them.
echo "$out" | grep -qx "bar0 word 8: 0x10400 0x10400" || fail "BAR 0's version register not read as 1.4 both ways"
echo "$out" | grep -qx "bar0 area: 0+0x2000" || fail "BAR 0's mappable areas not as expected"
! echo "$out" | grep -q "bar0 area: 0x[23]000" || fail "the MSI-X table or PBA mappable"
dmesg | grep -q "$uuid: fdid 20000 borrowed as " || fail "the borrow not logged"
dmesg | grep -q "$uuid: fdid 20000 given back\$" || fail "the give back not logged"
wait_until 30 listed_available || fail "20000 not available after the close"
smartio-vfio reset "$uuid" || fail "smartio-vfio reset failed"
vmctl barrier reset

smartio-vfio hold "$uuid" /tmp/held &
holder=$!
wait_until 30 test -e /tmp/held || fail "the mdev never held open"
smartioctl device list | grep -q "^20000: .* borrowed by 1 as " ||
	fail "not listed borrowed while open: $(smartioctl device list)"
[ "$(cat "$type/available_instances")" = 1 ] ||
	fail "available_instances $(cat "$type/available_instances") while 20000 is borrowed, not 1"
! echo 20001 >"$mdev/smartio/fdid" 2>/dev/null || fail "fdid changed while open"
kill "$holder"
wait "$holder" || fail "smartio-vfio hold failed"
wait_until 30 listed_available || fail "20000 not available after the holder closed"

smartio-vfio hold "$uuid" /tmp/held2 >/tmp/hold2.out 2>&1 &
holder=$!
wait_until 30 test -e /tmp/held2 || { cat /tmp/hold2.out; fail "the mdev never held open again"; }
vmctl barrier held
vmctl barrier reclaimed
wait_until 30 sh -c "! kill -0 $holder 2>/dev/null" || fail "the holder still runs after the reclaim"
wait "$holder" || { cat /tmp/hold2.out; fail "smartio-vfio hold failed"; }
grep -qx gone /tmp/hold2.out || fail "the mapping did not read all ones: $(cat /tmp/hold2.out)"
grep -qx "asked to release" /tmp/hold2.out || fail "the request eventfd did not fire"
dmesg | grep -q "$uuid: fdid 20000 lost: its BARs are unmapped" || fail "the loss not logged"
wait_until 30 listed_available || fail "20000 not available after the reclaim"
echo 1 >"$mdev/remove"
[ ! -e "$mdev" ] || fail "$mdev still there after its removal"

edu_uuid=5a3a0d2e-1c1b-4b0e-9a59-000000020001
echo "$edu_uuid" >"$type/create" || fail "cannot create mdev $edu_uuid"
echo 20001 >"/sys/bus/mdev/devices/$edu_uuid/smartio/fdid"
out=$(smartio-vfio edu-irq "$edu_uuid" 2>&1) || fail "smartio-vfio edu-irq failed: $out"
echo "$out"
echo "$out" | grep -qx "msi: vectors 1" || fail "the edu's MSI not offered with 1 vector"
echo "$out" | grep -qx "msi: raised 1" || fail "the edu's MSI did not reach the eventfd"
echo "$out" | grep -qx "msi: loopback 1" || fail "the loopback did not reach the eventfd"
out=$(smartio-vfio edu-dma "$edu_uuid" 2>&1) || fail "smartio-vfio edu-dma failed: $out"
echo "$out"
echo "$out" | grep -qx "dma: copied 0x800 bytes: they match" || fail "the edu's copy through the client's memory: $out"
echo 1 >"/sys/bus/mdev/devices/$edu_uuid/remove"
vmctl barrier finished
rmmod smartio_mdev smartio_lend smartio_ntb smartio
ntb_unload
