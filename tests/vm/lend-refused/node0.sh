#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What a node may not lend is refused at "device add", with one message
# and no change to anyone's device list: its NTB adapter, a bridge, the
# shadow of a function it borrowed, a function without MSI or MSI-X, and
# a virtio function without VIRTIO_F_ACCESS_PLATFORM. A modern virtio
# function that offers it is accepted.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

# refused BDF WHY: "device add BDF" fails with one line saying WHY, and the
# device list is as it was.
refused() {
	before=$(smartioctl device list)
	if out=$(smartioctl device add "$1" 2>&1); then
		fail "device add $1 succeeded: $out"
	fi
	echo "node$NODE: device add $1: $out"
	[ "$(echo "$out" | wc -l)" = 1 ] || fail "more than one line for $1: $out"
	echo "$out" | grep -q "$2" || fail "device add $1 refused without '$2': $out"
	[ "$(smartioctl device list)" = "$before" ] ||
		fail "the device list changed after the refused add of $1"
}

borrower_ready
vmctl barrier available
shadow=$(borrow_bound 20000 nvme)

refused "$(ntb_ports | head -n 1)" "an NTB adapter of this node"
refused "$(pci_name_of 0x1b36 0x000c "PCIe root port")" "a bridge cannot be lent"
refused "$shadow" "a borrowed function cannot be lent"
refused "$(pci_name_of 0x1b36 0x0005 "pci-testdev")" "without MSI or MSI-X"
refused "$(pci_name_of 0x1af4 0x1005 "transitional virtio-rng")" "VIRTIO_F_ACCESS_PLATFORM"

modern=$(pci_name_of 0x1af4 0x1044 "modern virtio-rng")
line=$(smartioctl device add "$modern") ||
	fail "a virtio function with VIRTIO_F_ACCESS_PLATFORM refused: $line"
echo "node$NODE: $line"
smartioctl device remove "${line%%:*}"

smartioctl return 20000 || fail "return 20000 failed"
vmctl barrier returned
rmmod smartio_lend smartio_ntb smartio
ntb_unload
