# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the fabric tests: smartio_ntb's adapters and peers as its
# debugfs file shows them, and its kernel messages.

# shellcheck source=tests/vm/guest/ntb-clients.sh
. /usr/local/lib/vmtest/ntb-clients.sh

adapters=/sys/kernel/debug/smartio/adapters

# joined NODE: some adapter has a peer NODE that has joined.
joined() {
	grep -q "^  peer [0-9]* port [0-9]* node $1 joined\$" "$adapters"
}

not_joined() {
	! joined "$1"
}

# own_node ADAPTER NODE: adapter ADAPTER has node id NODE.
own_node() {
	grep -q "^adapter $1 port [0-9]* node $2 pci " "$adapters"
}

# log_count REGEX: how many kernel messages match REGEX.
log_count() {
	dmesg | grep -c "$1" || true
}

# log_more REGEX COUNT: more than COUNT kernel messages match REGEX.
log_more() {
	[ "$(log_count "$1")" -gt "$2" ]
}

# monitor_listening PID: the netlink socket of process PID (a smartioctl
# monitor) has joined its multicast group, so it misses no event from now
# on. Only groups 0-31 show in /proc/net/netlink.
monitor_listening() {
	awk -v pid="$1" '$3 == pid && $4 != "00000000" { found = 1 }
		END { exit !found }' /proc/net/netlink
}

# monitor_wait PID: waits until the monitor PID listens (10 s at most:
# the group may be one /proc/net/netlink does not show).
monitor_wait() {
	wait_until 10 monitor_listening "$1" ||
		echo "node$NODE: monitor $1 not seen listening after 10 s; going on"
}

show_adapters() {
	echo "node$NODE: $adapters:"
	cat "$adapters"
}

# expect_error ERRNO COMMAND...: COMMAND fails with exit status 1 and one
# line naming ERRNO; with EINVAL and ERANGE (policy violations) the line
# must carry the kernel's extended-ack message, not only strerror.
expect_error() {
	want=$1
	shift
	rc=0
	out=$("$@" 2>&1) || rc=$?
	echo "node$NODE: $*: $out"
	[ $rc = 1 ] || fail "$*: exit status $rc, not 1"
	[ "$(echo "$out" | wc -l)" = 1 ] || fail "$*: more than one line"
	echo "$out" | grep -q "($want)\$" || fail "$*: not $want"
	case $want in
	EINVAL | ERANGE)
		! echo "$out" | grep -qi ": \(invalid argument\|numerical result out of range\) ($want)\$" ||
			fail "$*: $want without an extended-ack message"
		;;
	esac
}

# expect_eperm COMMAND...: COMMAND, run as nobody, fails with EPERM.
expect_eperm() {
	rc=0
	out=$(as_nobody "$@" 2>&1) || rc=$?
	echo "node$NODE: as nobody: $*: $out"
	[ $rc = 1 ] || fail "$* as nobody: exit status $rc, not 1"
	echo "$out" | grep -qi "operation not permitted" ||
		fail "$* as nobody: not EPERM"
}

# ntb_unbind: this node's NTB leaves its hardware driver, its adapter
# with it; sets ntb, the NTB's PCI name. Neither the unbind nor any task
# may take more than 30 s, whatever the adapter's users were doing (the
# hung-task detector fails the node on a task blocked for 30 s).
ntb_unbind() {
	echo 30 >/proc/sys/kernel/hung_task_timeout_secs ||
		fail "cannot shorten the hung-task timeout"
	ntb=$(ntb_ports | head -n 1)
	start=$(date +%s)
	echo "$ntb" >"/sys/bus/pci/drivers/$NTB_DRIVER/unbind" ||
		fail "cannot unbind $ntb from $NTB_DRIVER"
	took=$(($(date +%s) - start))
	echo "node$NODE: $ntb unbound from $NTB_DRIVER in $took s"
	[ "$took" -le 30 ] || fail "unbinding $ntb took $took s"
	! grep -q "^adapter " "$adapters" || { show_adapters; fail "an adapter is left"; }
}

# ntb_bind NODE: the NTB ntb_unbind unbound is bound again, and node NODE
# joins again through it.
ntb_bind() {
	echo "$ntb" >"/sys/bus/pci/drivers/$NTB_DRIVER/bind" ||
		fail "cannot bind $ntb to $NTB_DRIVER again"
	wait_until 60 joined "$1" || { show_adapters; fail "node $1 did not join again"; }
	echo "node$NODE: $ntb bound again, node $1 joined"
}
