#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2's VM is killed (a power cut) while a VFIO client on node 1 drives
# its NVMe through a mediated device (smartio-vfio nvme, writing 16 MiB):
# the client ends with an error within a minute rather than hanging (its
# BAR mapping zapped, or its I/O's interrupt never coming); the mdev then
# refuses to open, the lender being unreachable, with one line saying so.
# Once node 2 is back and lends the NVMe again, the same mdev opens again
# and moves data.
set -eu
# shellcheck source=../guest/mdev.sh
. /usr/local/lib/vmtest/mdev.sh

uuid=5a3a0d2e-1c1b-4b0e-9a59-000000020000
mdev_borrower "$uuid" 20000

dd if=/dev/urandom of=/tmp/data bs=1M count=16 2>/dev/null
(
	rc=0
	smartio-vfio nvme "$uuid" /tmp/data >/tmp/client.out 2>&1 || rc=$?
	echo $rc >/tmp/client.rc
) &
wait_until 60 grep -q '^nvme: model ' /tmp/client.out ||
	{ cat /tmp/client.out; fail "the client never started its I/O"; }
[ ! -e /tmp/client.rc ] || { cat /tmp/client.out; fail "the client ended before the lender was lost"; }
vmctl kill 1
echo "node$NODE: killed node 2's VM"
wait_until 60 test -e /tmp/client.rc ||
	fail "the client still runs a minute after the lender was lost"
cat /tmp/client.out
[ "$(cat /tmp/client.rc)" != 0 ] || fail "the client saw no error"
echo "node$NODE: the client ended with status $(cat /tmp/client.rc)"
wait_until 30 sh -c "dmesg | grep -q '$uuid: fdid 20000 lost: its BARs are unmapped'" ||
	fail "the loss not logged"
! smartio-vfio info "$uuid" 2>/tmp/err || fail "opened while its lender is gone"
cat /tmp/err
grep -qx "smartio-vfio: VFIO_GROUP_GET_DEVICE_FD: No route to host" /tmp/err ||
	fail "the open did not fail with EHOSTUNREACH"

vmctl barrier rebooted
wait_until 60 joined 2 || { show_adapters; fail "node 2 did not join again"; }
wait_until 60 listed_available 20000 || fail "20000 not available again"
dd if=/tmp/data of=/tmp/page bs=4096 count=1 2>/dev/null
out=$(smartio-vfio nvme "$uuid" /tmp/page 2>&1) || fail "smartio-vfio nvme after node 2 came back: $out"
echo "$out"
echo "$out" | grep -qx "nvme: wrote 4096 bytes, read them back the same" ||
	fail "not read back the same after node 2 came back"
vmctl barrier finished
echo 1 >"/sys/bus/mdev/devices/$uuid/remove"
rmmod smartio_mdev smartio_lend smartio_ntb smartio
ntb_unload
