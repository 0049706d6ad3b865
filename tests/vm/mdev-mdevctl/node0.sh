#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mdevctl starts, through udev, the mediated device it has defined for
# node 2's NVMe (fdid 20000) whenever node 2 joins this node, as on Debian
# 12: udevd with mdevctl's own rule, which runs a /usr/sbin/mdevctl that is
# not there, and ours (mdev/60-smartio-mdev.rules), mdevctl in /usr/bin.
#
# The mdev is defined with --auto before node 2 joins. smartio_mdev's
# registration has mdevctl start it: smartio_mdev refuses the fdid of a
# node that has not joined, with one line, and mdevctl removes the mdev.
# Node 2 joins and lends: smartio_mdev's uevent (SMARTIO_NODE_STATE=
# joined) has mdevctl start it, with its fdid, and a VFIO client opens it
# (node 2's NVMe, borrowed and given back). Node 2's VM is killed: the mdev
# stays, and its open fails. Removed (mdevctl stop), it is not started
# again while node 2 is away: not by a synthetic uevent (udevadm trigger),
# not by mdevctl start, which removes it again, not by smartio_mdev's
# registration once more.
#
# mdevctl creates an mdev only while the type counts an available device
# (available_instances, the cluster's available devices). Until node 2's
# VM is killed this node lends its own NVMe (10000), so that the count is
# not 0 when node 2 joins, its NVMe available or not. Then this node takes
# its NVMe back: node 2 boots and joins again with no device available
# anywhere, and mdevctl, run on the join, creates nothing. Node 2 makes
# its NVMe available: smartio_mdev's uevent (SMARTIO_DEVICE=20000
# SMARTIO_DEVICE_STATE=available) has mdevctl start the mdev again, and it
# opens. udev saw node 2 join, leave and join, and its NVMe available.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

uuid=0f5b5c2e-6d0c-4d3e-8f4b-000000020000
mdev=/sys/bus/mdev/devices/$uuid
refused="$uuid: fdid 20000: its lender, node 2, has not joined this node: not taken\$"

# mdev_fdid: the mdev's fdid; fails while there is no mdev.
mdev_fdid() {
	cat "$mdev/smartio/fdid" 2>/dev/null
}

# no_mdev WHEN: no mdev, once udev has handled what it was told (WHEN
# says when, for the failure).
no_mdev() {
	udevadm settle --timeout=60 || fail "udev still busy 60 s $1"
	[ ! -e "$mdev" ] || fail "mdev $uuid there $1 (fdid $(mdev_fdid))"
}

# open_nvme WHEN: a VFIO client opens the mdev: node 2's NVMe, borrowed and
# given back.
open_nvme() {
	out=$(smartio-vfio info "$uuid" 2>&1) || fail "smartio-vfio info $1 failed: $out"
	echo "$out" | grep -qx "ids: 1b36 0010" || fail "not the NVMe's ids $1: $out"
	wait_until 30 log_more "$uuid: fdid 20000 given back\$" "$2" ||
		fail "the give back $1 not logged"
}

# udevd as Debian's initramfs starts it, with syslogd for mdevctl's
# messages (udev runs it through logger), and a monitor of the kernel's
# uevents of class smartio, read at the end.
syslogd -n -O /tmp/syslog &
syslogd=$!
mkdir -p /run/udev
/lib/systemd/systemd-udevd --daemon --resolve-names=never ||
	fail "systemd-udevd did not start"
wait_until 30 test -S /run/udev/control || fail "udevd never listened"
udevadm monitor --kernel --property --subsystem-match=smartio >/tmp/uevents 2>&1 &
monitor=$!

load_lend
modprobe vfio_iommu_type1
own=$(lend_function "$(nvme_bdf)")
[ "$own" = 10000 ] || fail "this node's NVMe is $own, not 10000"

mdevctl define --auto --uuid "$uuid" --parent smartio --type smartio-pci ||
	fail "mdevctl define failed"
mdevctl modify --uuid "$uuid" --addattr smartio/fdid --value 20000 ||
	fail "mdevctl modify failed"
defined=$(mdevctl list --defined --verbose --uuid "$uuid")
echo "node$NODE: mdevctl list --defined --verbose: $defined"
echo "$defined" | grep -q "^$uuid smartio smartio-pci auto\$" ||
	fail "not defined to start automatically"
echo "$defined" | grep -qF '{"smartio/fdid":"20000"}' || fail "no fdid attribute"

modprobe smartio_mdev
wait_until 60 log_more "$refused" 0 ||
	fail "mdevctl did not start the mdev at smartio_mdev's registration: $(cat /tmp/syslog)"
no_mdev "after fdid 20000 was refused, node 2 not joined"
# Its warning, with env_logger's prefix, at priority 2 (its stderr).
grep -q "Failed to write 20000 to attribute smartio/fdid" /tmp/syslog ||
	fail "mdevctl did not say the write failed: $(cat /tmp/syslog)"
echo "node$NODE: mdevctl removed the mdev it could not give fdid 20000"
if grep -q "/usr/sbin/mdevctl: not found" /tmp/syslog; then
	echo "node$NODE: mdevctl's own rule failed, as on Debian 12: /usr/sbin/mdevctl: not found"
fi
vmctl barrier defined

# Node 2 joins, then lends its NVMe.
wait_until 60 joined 2 || { show_adapters; fail "node 2 never joined"; }
wait_until 60 outputs 20000 mdev_fdid ||
	fail "no mdev with fdid 20000 after node 2 joined: $(cat /tmp/syslog)"
echo "node$NODE: mdevctl started mdev $uuid, fdid 20000, when node 2 joined"
vmctl barrier available
open_nvme "after node 2 joined" 0
vmctl barrier opened

vmctl kill 1
echo "node$NODE: killed node 2's VM"
wait_until 60 not_joined 2 || fail "node 2 still joined after its VM was killed"
[ "$(mdev_fdid)" = 20000 ] || fail "the mdev did not stay with its fdid while node 2 is away"
! smartio-vfio info "$uuid" >/tmp/err 2>&1 || fail "opened while node 2 is away"
dmesg | grep -q "$uuid: fdid 20000 not borrowed: " || fail "the refused open not logged"
mdevctl stop --uuid "$uuid" || fail "mdevctl stop failed"
no_mdev "after mdevctl stop"

udevadm trigger --action=change --subsystem-match=smartio
no_mdev "after udevadm trigger, node 2 away"
count=$(log_count "$refused")
! mdevctl start --uuid "$uuid" >/tmp/err 2>&1 || fail "mdevctl start succeeded, node 2 away"
grep -q "Failed to write 20000 to attribute smartio/fdid" /tmp/err ||
	fail "mdevctl start failed otherwise: $(cat /tmp/err)"
log_more "$refused" "$count" || fail "the refused fdid not logged"
no_mdev "after mdevctl start, node 2 away"
count=$(log_count "$refused")
rmmod smartio_mdev
modprobe smartio_mdev
wait_until 60 log_more "$refused" "$count" ||
	fail "mdevctl did not start the mdev at smartio_mdev's registration again"
no_mdev "after smartio_mdev's registration, node 2 away"
smartioctl device unavailable 10000 || fail "could not take 10000 back"
vmctl barrier rebooted

# Node 2 is back, and joins with no device available in the cluster:
# mdevctl, run on the join, creates no mdev. Then it lends its NVMe again.
wait_until 120 joined 2 || { show_adapters; fail "node 2 did not join again"; }
instances=/sys/class/smartio/smartio/mdev_supported_types/smartio-pci/available_instances
[ "$(cat "$instances")" = 0 ] || fail "available_instances $(cat "$instances"), not 0"
no_mdev "after node 2 joined again, no device available"
echo "node$NODE: node 2 joined again with no device available: no mdev"
vmctl barrier joined-again
wait_until 60 outputs 20000 mdev_fdid ||
	fail "no mdev with fdid 20000 after node 2's NVMe became available: $(cat /tmp/syslog)"
echo "node$NODE: mdevctl started mdev $uuid again when node 2's NVMe became available"
vmctl barrier available-again
open_nvme "after node 2 joined again" 1
# The uevents, each as "NODE STATE": node 2 joined, left, joined; then
# its NVMe's, "FDID STATE". Read before "finished", after which node 2
# leaves again.
kill "$monitor"
wait "$monitor" || true
devices=$(awk -F= '/^SMARTIO_DEVICE=/ { fdid = $2 } /^SMARTIO_DEVICE_STATE=/ { state = $2 }
	/^$/ { if (fdid != "") print fdid, state; fdid = "" }
	END { if (fdid != "") print fdid, state }' /tmp/uevents | tr '\n' ,)
echo "node$NODE: smartio's device uevents: $devices"
case $devices in
*"20000 available,") ;;
*) fail "no uevent of 20000 available last: $devices" ;;
esac
events=$(awk -F= '/^SMARTIO_NODE=/ { node = $2 } /^SMARTIO_NODE_STATE=/ { state = $2 }
	/^$/ { if (node != "") print node, state; node = "" }
	END { if (node != "") print node, state }' /tmp/uevents | tr '\n' ,)
echo "node$NODE: smartio's node uevents: $events"
case $events in
"2 joined,"*"2 left,"*"2 joined,") ;;
*) fail "not node 2 joined, left and joined again: $events" ;;
esac
vmctl barrier finished

mdevctl stop --uuid "$uuid"
mdevctl undefine --uuid "$uuid"
udevadm control --exit
kill "$syslogd"
rmmod smartio_mdev
smartioctl device remove 10000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
