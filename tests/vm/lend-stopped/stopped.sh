# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers of lend-stopped: a node's peer timeout (smartio_ntb's
# peer_timeout_ms) and the loss of a stopped node within it.

# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

timeout_param=/sys/module/smartio_ntb/parameters/peer_timeout_ms

# What this node logs when it loses node NODE that went silent.
silent_line() {
	echo "adapter [0-9]*: node $1 silent for [0-9]* ms, its link up: lost"
}

# stop_and_lose NODE VM: stops VM, node NODE (vmctl signal), and waits for
# this node to declare it lost within the documented timeout, its
# peer_timeout_ms, and a margin for the heartbeat's tick, the handling of
# the loss and an emulator on a shared CPU: a bound waited for, not a
# speed measured. The link stayed up: the peer is link-up, not down.
stop_and_lose() {
	ms=$(cat $timeout_param)
	[ "$ms" -gt 0 ] || fail "peer_timeout_ms is 0: no heartbeat"
	before=$(log_count "$(silent_line "$1")")
	vmctl signal "$2" STOP
	echo "node$NODE: node $1's VM stopped"
	wait_until $((ms / 1000 + 15)) log_more "$(silent_line "$1")" "$before" ||
		fail "node $1 not declared lost within peer_timeout_ms ($ms) and 15 s"
	dmesg | grep "$(silent_line "$1")" | tail -n 1
	grep -q "^  peer 0 port [0-9]* node 0 link-up\$" "$adapters" ||
		{ show_adapters; fail "the peer that was node $1 is not link-up"; }
}

# lent_is FDID BDF STATE: this node's device list is its NVMe BDF alone, as
# FDID, in STATE (lent_listed's predicate).
lent_is() {
	[ "$(smartioctl device list)" = "$1: $2 [1b36:0010] class 010802 node 2 $3" ]
}

# no_hung_task: the kernel's hung-task detector looks every 10 s, so that a
# task stuck for 10 s fails this node (the runner reads its report).
no_hung_task() {
	echo 10 >/proc/sys/kernel/hung_task_timeout_secs ||
		fail "cannot shorten the hung-task timeout"
}
