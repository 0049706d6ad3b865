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
# then node 2's own nvme driver reads the same 16 MiB (node1.sh): the
# two-devices case. In lender-lost, node 1 kills node 2's VM while the
# guest reads the NVMe, passed behind a hot-plug slot: the guest's reads
# fail (a lost device's BARs read all ones) and QEMU, asked by the mdev
# to release it, unplugs it from the guest, which goes on and ends well.
# In peer-to-peer, node 2's edu and an NVMe with a controller memory
# buffer go to the guest, and the edu writes into the buffer at its
# guest-physical address (guest-p2p.sh): node 2 maps it for the edu when
# the guest turns the edu's bus mastering on (mdev/p2p.c).
set -eu
# shellcheck source=../guest/mdev.sh
. /usr/local/lib/vmtest/mdev.sh
# shellcheck source=../guest/nested.sh
. /usr/local/lib/vmtest/nested.sh

uuid=5a3a0d2e-1c1b-4b0e-9a59-000000020000
nic_uuid=5a3a0d2e-1c1b-4b0e-9a59-000000020001
nested_lend_load 2
mdev_borrower "$uuid" 20000

# two_devices: the NVMe and the e1000e in one guest, at work.
two_devices() {
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
	echo 1 >"/sys/bus/mdev/devices/$nic_uuid/remove"
}

# lender_lost: node 2's VM killed while the guest reads the NVMe; the
# guest goes on without it.
lender_lost() {
	nested_image ./guest-lost.sh /tmp/nested.cpio nvme
	(
		nested_run /tmp/nested.cpio /tmp/nested.console \
			-device pcie-root-port,id=hotplug0,chassis=1 \
			-device "vfio-pci,bus=hotplug0,sysfsdev=/sys/bus/mdev/devices/$uuid"
	) >/tmp/nested.out 2>&1 &
	guest=$!
	wait_until 120 nested_said /tmp/nested.console '^nested: reading ' >/dev/null 2>&1 || {
		kill "$guest" 2>/dev/null || true
		cat /tmp/nested.out
		fail "the nested guest never read its NVMe"
	}
	vmctl kill 1
	echo "node$NODE: killed node 2's VM while the nested guest reads its NVMe"
	status=0
	wait "$guest" || status=$?
	cat /tmp/nested.out
	[ "$status" = 0 ] || fail "the nested guest did not go on without its NVMe"
	dmesg | grep -q "$uuid: fdid 20000 lost: its BARs are unmapped and read as errors until the VM closes it, which it is asked to\$" ||
		fail "the loss, and the request to the VM, not logged"
	dmesg | grep -q "$uuid: fdid 20000 given back\$" ||
		fail "QEMU did not close the mdev when it unplugged the NVMe"
	vmctl barrier rebooted
	wait_until 60 joined 2 || { show_adapters; fail "node 2 did not join again"; }
	wait_until 60 listed_available 20000 || fail "20000 not available again"
	vmctl barrier finished
}

# peer_to_peer: the edu writes into the NVMe's buffer, both in the guest.
peer_to_peer() {
	edu_uuid=5a3a0d2e-1c1b-4b0e-9a59-000000020001
	cmb_uuid=5a3a0d2e-1c1b-4b0e-9a59-000000020002
	mdev_create "$edu_uuid" 20001
	mdev_create "$cmb_uuid" 20002
	nested_image ./guest-p2p.sh /tmp/nested.cpio smartio_edu_test
	nested_run /tmp/nested.cpio /tmp/nested.console \
		-device "vfio-pci,sysfsdev=/sys/bus/mdev/devices/$edu_uuid" \
		-device "vfio-pci,sysfsdev=/sys/bus/mdev/devices/$cmb_uuid"
	nested_said /tmp/nested.console '^nested: edu wrote into the NVMe.s buffer at ' ||
		fail "the nested guest's edu did not reach the NVMe's buffer"
	dmesg | grep -Eq "$edu_uuid: fdid 20001: bus master: reaches [0-9]+ BARs of its VM's other devices\$" ||
		fail "the edu's mdev did not map the NVMe's buffer for it"
	vmctl barrier p2p-done
	for u in "$edu_uuid" "$cmb_uuid"; do
		echo 1 >"/sys/bus/mdev/devices/$u/remove"
	done
}

case $CASE in
two-devices) two_devices ;;
lender-lost) lender_lost ;;
peer-to-peer) peer_to_peer ;;
*) fail "no case $CASE" ;;
esac
echo 1 >"/sys/bus/mdev/devices/$uuid/remove"
rmmod smartio_mdev smartio_lend smartio_ntb smartio
ntb_unload
