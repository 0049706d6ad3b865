#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe (20000) and its e1000e (20001), cabled to a peer
# NIC of its own (tests/vm/guest/nic.sh), to node 1's nested guest
# (node0.sh), whose pings the peer answers. Once node 1 is done, node 2
# takes the NVMe back, and its own nvme driver reads what the guest wrote
# (node 1 puts its checksum and size in MiB as "written"). In the
# lender-lost case it lends the NVMe until node 1 kills its VM, and, booted
# again, lends it again (as mdev-lost's). In peer-to-peer it lends its edu
# (20001) and its NVMe with a controller memory buffer (20002) instead.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../guest/nic.sh
. /usr/local/lib/vmtest/nic.sh

lend_nvme
bdf=$(nvme_bdf)
if [ "$CASE" = lender-lost ]; then
	if [ "$BOOT" = 1 ]; then
		vmctl barrier available
		sleep 100000	# until node 1 kills this VM
		exit 1
	fi
	vmctl barrier rebooted
	vmctl barrier finished
	smartioctl device unavailable 20000
	smartioctl device remove 20000
	rmmod smartio_lend smartio_ntb smartio
	ntb_unload
	exit 0
fi
if [ "$CASE" = peer-to-peer ]; then
	lend_edu
	# The NVMe with a buffer (BAR 2), not the rig's.
	cmb=
	for d in $(nvme_bdfs); do
		[ "$(sed -n 3p "/sys/bus/pci/devices/$d/resource" | cut -d' ' -f1)" = 0x0000000000000000 ] ||
			cmb=$d
	done
	[ -n "$cmb" ] || fail "no NVMe with a controller memory buffer"
	[ "$(lend_function "$cmb")" = 20002 ] || fail "the buffer's NVMe is not 20002"
	vmctl barrier available
	vmctl barrier p2p-done
	# The edu's requests reached the buffer through its domain, at the
	# guest's address, mapped once.
	dmesg | grep -q "$edu: reaches BAR 2 of $cmb, lent to node 1 too, at device addresses " ||
		fail "the edu was not given the buffer at the guest's address"
	for f in 20002 20001 20000; do
		smartioctl device unavailable $f
		smartioctl device remove $f
	done
	rmmod smartio_lend smartio_ntb smartio
	ntb_unload
	exit 0
fi
nic=$(pci_name_of 0x8086 0x10d3 e1000e)
[ "$(lend_function "$nic")" = 20001 ] || fail "the e1000e is not 20001"
modprobe virtio_pci
modprobe virtio_net
peer_up
vmctl barrier available
vmctl barrier written
written=$(vmctl get written)
check_written 20000 "$bdf" "${written% *}" "${written##* }"
echo "node$NODE: the ${written##* } MiB node 1's guest wrote read back here the same"
vmctl barrier checked
smartioctl device unavailable 20001
smartioctl device remove 20001
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
