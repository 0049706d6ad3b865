# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the tests that lend a NIC cabled to a peer NIC of the
# lender's own (lend-kinds, mdev-guest; their qemu files): the lent one,
# found by its PCI address or ids, and its peer, found by its MAC
# (PEER_MAC), a NIC of another kind so that the two never share a driver.
# The peer sits in a network namespace of its own: the lender's traffic
# between its own NIC and the peer crosses the wire, it is not routed
# locally. Namespaces are named by a process in them: 1 for the initial
# one.

# shellcheck source=tests/vm/guest/testlib.sh
. /usr/local/lib/vmtest/testlib.sh

# The peer's MAC, and the addresses of the borrower's interface on the
# lent NIC, the peer's, and the lender's own on the lent NIC.
# shellcheck disable=SC2034 # the sourcing test's
PEER_MAC=52:54:00:5a:00:02 BORROWER_IP=10.0.0.1 PEER_IP=10.0.0.2 LENDER_IP=10.0.0.3

# in_ns NS COMMAND...: COMMAND in the network namespace of process NS.
in_ns() {
	ns=$1
	shift
	nsenter -t "$ns" -n "$@"
}

# listening NS PORT: something listens on TCP PORT in namespace NS.
listening() {
	in_ns "$1" netstat -ltn | grep -q ":$2 "
}

# netif_with_mac MAC: the network interface whose address is MAC.
netif_with_mac() {
	for n in /sys/class/net/*; do
		[ "$(cat "$n/address")" = "$1" ] && basename "$n" && return 0
	done
	return 1
}

# netns_own PID: process PID has a network namespace other than init's.
netns_own() {
	[ "$(readlink "/proc/$1/ns/net")" != "$(readlink /proc/1/ns/net)" ]
}

# peer_carrier IFNAME: the peer's interface IFNAME has its link up (its
# namespace's sysfs is not ours to read).
peer_carrier() {
	in_ns "$peer_ns" ip link show "$1" | grep -q LOWER_UP
}

# peer_up (node 2): the peer NIC goes into a namespace of its own (held
# by a sleeping process, peer_ns) as PEER_IP.
peer_up() {
	wait_until 30 netif_with_mac $PEER_MAC >/dev/null || fail "no peer NIC ($PEER_MAC)"
	peer=$(netif_with_mac $PEER_MAC)
	unshare -n sleep 100000 &
	peer_ns=$!
	wait_until 10 netns_own "$peer_ns" ||
		fail "no network namespace for the peer NIC"
	ip link set "$peer" netns "$peer_ns"
	in_ns "$peer_ns" ip link set lo up
	in_ns "$peer_ns" ip link set "$peer" up
	in_ns "$peer_ns" ip addr add "$PEER_IP/24" dev "$peer"
	# An e1000e's link comes up seconds after the interface does, and
	# pings sent before it would be lost.
	wait_until 30 peer_carrier "$peer" || fail "no carrier on the peer NIC ($peer)"
	echo "node$NODE: peer NIC $peer ($PEER_MAC) is $PEER_IP in namespace $peer_ns"
}
