# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for tests of the emulated NTB: the upstream NTB clients
# ntb_netdev and ntb_tool, with testlib.sh (fabric.sh builds on this).

# shellcheck source=tests/vm/guest/testlib.sh
. /usr/local/lib/vmtest/testlib.sh

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

# ntb_netdev_up PORT ADDRESS: loads ntb_netdev, brings up its interface for
# PORT with ADDRESS (link-local: the link is the emulated NTB, nothing
# else) and prints the interface's name. Does not wait for a carrier.
# ntb_transport gets one queue pair, the one ntb_netdev uses: at link up
# it sets up receive entries for every queue pair, and (6.1) frees them
# only for those a client created, a leak the debug kernel's kmemleak
# reports (make check-debug).
ntb_netdev_up() {
	modprobe ntb_transport max_num_clients=1
	modprobe ntb_netdev
	wait_until 30 ntb_netdev_if "$1" >/dev/null || fail "ntb_netdev made no interface"
	ifname=$(ntb_netdev_if "$1")
	ip link set "$ifname" up
	ip addr add "$2/24" dev "$ifname"
	echo "$ifname"
}

# ntb_tool_up: loads ntb_tool on this node's one NTB port, brings the link
# up (ntb_tool leaves it to us) and waits for the peer's; sets tool, the
# port's ntb_tool debugfs directory.
ntb_tool_up() {
	modprobe ntb_tool
	tool=/sys/kernel/debug/ntb_tool/$(ntb_ports)
	echo Y >"$tool/link"
	wait_until 60 grep -q Y "$tool/peer0/link" || fail "link never came up"
}
