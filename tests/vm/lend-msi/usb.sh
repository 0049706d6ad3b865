# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the MSI lending test: the USB 3 host controller (QEMU's
# nec-usb-xhci with MSI-X off: an MSI capability only) with a USB tablet
# behind it, and their driver.

# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

load_usb() {
	modprobe xhci_pci
}

# xhci_bdf: PCI name of this node's xHCI controller.
xhci_bdf() {
	pci_name_of 0x1033 0x0194 "xHCI controller"
}

# tablet_of BDF: the sysfs directory of the USB tablet (0627:0001) behind
# controller BDF, once it is configured.
tablet_of() {
	for d in /sys/bus/pci/devices/"$1"/usb*/*-*; do
		[ "$(cat "$d/idVendor" 2>/dev/null)" = 0627 ] &&
			[ "$(cat "$d/idProduct")" = 0001 ] &&
			[ "$(cat "$d/bConfigurationValue")" = 1 ] &&
			echo "$d" && return 0
	done
	return 1
}

# usb_sum DIR: checksum of what the host read from USB device DIR: its
# descriptors, as the device wrote them into memory, and its strings.
usb_sum() {
	cat "$1/descriptors" "$1/manufacturer" "$1/product" "$1/serial" | md5sum
}

# xhci_errors: kernel messages of xHCI commands or transfers that never
# completed (their completion is an interrupt).
xhci_errors() {
	dmesg | grep -i 'command timeout\|abort failed\|descriptor read.*error\|not accepting address'
}

# config_byte BDF OFFSET: byte OFFSET of the config space of BDF.
config_byte() {
	od -An -tu1 -j "$2" -N 1 "/sys/bus/pci/devices/$1/config" | tr -d ' '
}

# msi_on BDF: the MSI capability of BDF has MSI enabled.
msi_on() {
	cap=$(config_byte "$1" 52)
	while [ "$cap" != 0 ]; do
		if [ "$(config_byte "$1" "$cap")" = 5 ]; then
			[ $(($(config_byte "$1" $((cap + 2))) & 1)) = 1 ]
			return
		fi
		cap=$(config_byte "$1" $((cap + 1)))
	done
	return 1
}
