# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for tests of the emulated NTB, sourced by node scripts.

# shellcheck source=../guest/testlib.sh
. /usr/local/lib/vmtest/testlib.sh

# The PCI names of the emulated NTB ports on this node, one per line.
ntb_ports() {
	for d in $(pci_devices 0x1234 0x4e54); do
		basename "$d"
	done
}

# The network interface ntb_netdev made for PORT (its device is a transport
# client below the port in sysfs).
ntb_netdev_if() {
	for n in /sys/class/net/*; do
		case $(readlink -f "$n/device") in
		*/"$1"/*) basename "$n"; return 0 ;;
		esac
	done
	return 1
}

has_carrier() {
	[ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]
}

no_carrier() {
	! has_carrier "$1"
}
