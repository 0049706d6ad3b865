# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the lending tests: the modules, the node's NVMe function,
# and what its driver binding is.

# shellcheck source=../fabric-nodes/fabric.sh
. ./fabric.sh

load_lend() {
	modprobe nvme
	modprobe ntb_hw_smartio use_lut_mws=1
	modprobe smartio_ntb
	modprobe smartio_lend
}

# nvme_bdf: PCI name of this node's (QEMU) NVMe function.
nvme_bdf() {
	d=$(pci_devices 0x1b36 0x0010 | head -n 1)
	[ -n "$d" ] || fail "no NVMe function"
	basename "$d"
}

# driver_of BDF: the driver bound to BDF, or "none".
driver_of() {
	if [ -e "/sys/bus/pci/devices/$1/driver" ]; then
		basename "$(readlink "/sys/bus/pci/devices/$1/driver")"
	else
		echo none
	fi
}

# not_present BDF: no PCI function BDF.
not_present() {
	[ ! -e "/sys/bus/pci/devices/$1" ]
}

# nvme_sum DEV: checksum of the first 64 MiB of an NVMe namespace.
nvme_sum() {
	dd if="$1" bs=1M count=64 iflag=direct 2>/dev/null | md5sum
}

# borrower_ntb_identity: inbound accesses through the NTB reach memory
# untranslated (the borrower's DMA window covers its RAM), so the NTB's
# IOMMU group must be of type identity; set before its driver binds.
borrower_ntb_identity() {
	ntb=$(pci_devices 0x1234 0x4e54 | head -n 1)
	[ -n "$ntb" ] || fail "no NTB"
	echo identity >"$ntb/iommu_group/type" ||
		fail "cannot make the NTB's IOMMU group identity"
}
