#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The whole client: node 1 gives node 2's NVMe and e1000e to a guest of
# its own, as users do, with qemu-system-x86_64 -accel kvm -device
# vfio-pci,sysfsdev=/sys/bus/mdev/devices/UUID (the nested guest of
# tests/vm/guest/nested.sh, under kvm_amd). The guest's stock nvme driver
# writes 16 MiB and reads them back, and its e1000e pings node 2's peer
# NIC (guest.sh): KVM maps the BARs into the guest, the devices' DMA
# carries guest-physical addresses, and their MSI-X messages reach the
# vCPU through their eventfds, with nothing of smartio's in between. QEMU
# borrowed the devices when it started and gave them back when it ended;
# then node 2's own nvme driver reads the same 16 MiB (node1.sh).
set -eu
# shellcheck source=../guest/mdev.sh
. /usr/local/lib/vmtest/mdev.sh
# shellcheck source=../guest/nested.sh
. /usr/local/lib/vmtest/nested.sh

uuid=5a3a0d2e-1c1b-4b0e-9a59-000000020000
nic_uuid=5a3a0d2e-1c1b-4b0e-9a59-000000020001
mdev_borrower "$uuid" 20000
mdev_create "$nic_uuid" 20001

nested_image ./guest.sh /tmp/nested.cpio nvme e1000e
started=$(cut -d' ' -f1 /proc/uptime)
nested_run /tmp/nested.cpio /tmp/nested.console \
	-device "vfio-pci,sysfsdev=/sys/bus/mdev/devices/$uuid" \
	-device "vfio-pci,sysfsdev=/sys/bus/mdev/devices/$nic_uuid"
echo "node$NODE: the nested guest ran for" \
	"$(awk -v s="$started" '{ printf "%.0f", $1 - s }' /proc/uptime) s"
written=$(nested_said /tmp/nested.console '^nested: wrote 16 MiB, read them back the same') ||
	fail "the nested guest's nvme did not write and read back"
irqs=$(nested_said /tmp/nested.console '^nested: nvme interrupts [0-9]+$') ||
	fail "the nested guest did not count its interrupts"
[ "${irqs##* }" -gt 0 ] || fail "the nested guest's nvme saw no interrupt"
pings=$(nested_said /tmp/nested.console '^nested: e1000e pinged') ||
	fail "the nested guest's e1000e did not ping"
[ "${pings##*: }" = "3 packets received" ] ||
	fail "the lender's peer NIC did not answer the nested guest's e1000e: $pings"
for pair in "$uuid 20000" "$nic_uuid 20001"; do
	dmesg | grep -q "${pair% *}: fdid ${pair#* } borrowed as " ||
		fail "QEMU's open did not borrow ${pair#* }"
	dmesg | grep -q "${pair% *}: fdid ${pair#* } given back\$" ||
		fail "QEMU's end did not give ${pair#* } back"
done
vmctl put written "${written##* }  - 16"
vmctl barrier written
vmctl barrier checked
echo 1 >"/sys/bus/mdev/devices/$uuid/remove"
echo 1 >"/sys/bus/mdev/devices/$nic_uuid/remove"
rmmod smartio_mdev smartio_lend smartio_ntb smartio
ntb_unload
