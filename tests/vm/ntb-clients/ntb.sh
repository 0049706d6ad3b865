# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for tests of the emulated NTB, sourced by node scripts.

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# The PCI names of the emulated NTB ports on this node, one per line.
ntb_ports() {
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = 0x1234 ] &&
			[ "$(cat "$d/device")" = 0x4e54 ] && basename "$d"
	done
	return 0
}

# wait_until SECONDS COMMAND...: polls COMMAND every 0.2 s; fails when it
# has not succeeded in time.
wait_until() {
	limit=$(($1 * 5))
	shift
	while ! "$@"; do
		limit=$((limit - 1))
		[ $limit -gt 0 ] || return 1
		sleep 0.2
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
