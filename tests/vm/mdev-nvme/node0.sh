#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2's NVMe driven through a mediated device by a userspace NVMe host
# (smartio-vfio nvme: queues in the client's memory, mapped into the VFIO
# container; commands through BAR 0's mapping; completions announced on
# MSI-X eventfds). It writes 16 MiB and reads them back the same, and
# every completion's eventfd fired; after the return node 2's own nvme
# driver reads the same 16 MiB. Then 50 cycles of open, I/O and close
# leave nothing behind: no page pinned, no IOVA page mapped, no window,
# no kmalloc object (guest/leak.sh). Last, a VM whose RAM reaches past the
# guest-physical space the device's windows on its lender leave it (1 GiB
# here, smartio_mdev guest_space_gib; the client's memory at 1 GiB) is
# refused when it turns Bus Master Enable on, with one line saying why.
set -eu
# shellcheck source=../guest/mdev.sh
. /usr/local/lib/vmtest/mdev.sh
# shellcheck source=../guest/leak.sh
. /usr/local/lib/vmtest/leak.sh

# pinned: pages pinned for DMA now (FOLL_PIN, which vfio_pin_pages uses).
pinned() {
	awk '$1 == "nr_foll_pin_acquired" { a = $2 }
	     $1 == "nr_foll_pin_released" { r = $2 }
	     END { print a - r }' /proc/vmstat
}

# nvme_through UUID FILE: writes FILE through the mdev UUID and reads it
# back the same, every completion announced by its interrupt; prints the
# client's lines.
nvme_through() {
	out=$(smartio-vfio nvme "$1" "$2" 2>&1) || fail "smartio-vfio nvme: $out"
	echo "$out"
	size=$(wc -c <"$2")
	echo "$out" | grep -qx "nvme: wrote $size bytes, read them back the same" ||
		fail "$2 not read back the same"
	counts=$(echo "$out" | sed -n 's/^nvme: completions \([0-9]*\), interrupts \([0-9]*\)$/\1 \2/p')
	# Identify twice, create two queues, then a write and a read a page.
	[ "${counts% *}" -eq $((4 + 2 * size / 4096)) ] || fail "completions: $counts"
	[ "${counts% *}" = "${counts#* }" ] || fail "not every completion's interrupt fired: $counts"
}

uuid=5a3a0d2e-1c1b-4b0e-9a59-000000020000
mdev_borrower "$uuid" 20000

dd if=/dev/urandom of=/tmp/data bs=1M count=16 2>/dev/null
nvme_through "$uuid" /tmp/data
wait_until 30 listed_available 20000 || fail "20000 not available after the close"
dd if=/tmp/data of=/tmp/page bs=4096 count=1 2>/dev/null

leak_mark
pins=$(pinned)
i=0
while [ $i -lt 50 ]; do
	nvme_through "$uuid" /tmp/page >/dev/null
	i=$((i + 1))
done
wait_until 30 listed_available 20000 || fail "20000 not available after the cycles"
[ "$(pinned)" = "$pins" ] || fail "$(($(pinned) - pins)) pages left pinned after 50 cycles"
no_leak
echo "node$NODE: 50 cycles of open, I/O and close left nothing behind"

echo 1 >"/sys/bus/mdev/devices/$uuid/remove"
rmmod smartio_mdev
! modprobe smartio_mdev guest_space_gib=0 2>/dev/null || fail "loaded with no guest space"
dmesg | grep -q "smartio_mdev: guest_space_gib=0: must be 1 to 511" || fail "the bad parameter not logged"
modprobe smartio_mdev guest_space_gib=1
mdev_create "$uuid" 20000
! smartio-vfio nvme "$uuid" /tmp/page 0x40000000 2>/tmp/err || fail "a VM's RAM past its space mapped"
cat /tmp/err
grep -qx "smartio-vfio: Bus Master Enable: No space left on device" /tmp/err ||
	fail "Bus Master Enable not refused with ENOSPC"
[ "$(dmesg | grep -c "$uuid: fdid 20000: the VM's RAM reaches 0x40005fff, past the 1 GiB of guest-physical space")" = 1 ] ||
	fail "not one line in the log for the refusal"
wait_until 30 listed_available 20000 ||
	fail "20000 not available after the refused client closed"
vmctl put written "$(md5sum </tmp/data) 16"
vmctl barrier written
vmctl barrier checked
echo 1 >"/sys/bus/mdev/devices/$uuid/remove"
rmmod smartio_mdev smartio_lend smartio_ntb smartio
ntb_unload
