# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the messaging tests: round trips with smartioctl node ping,
# and the checks that a lost peer fails what is pending on it.

# shellcheck source=tests/vm/guest/fabric.sh
. /usr/local/lib/vmtest/fabric.sh

# json_num KEY: the number KEY has in the JSON object on stdin.
json_num() {
	sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"
}

# ping_ok NODE COUNT: COUNT round trips to NODE, every one answered, none
# lost or out of order on the way.
ping_ok() {
	out=$(smartioctl -j node ping "$1" count "$2" size 64) ||
		fail "node ping $1 count $2 failed"
	echo "node$NODE: $out"
	[ "$(echo "$out" | json_num received)" = "$2" ] ||
		fail "node ping $1: not all $2 round trips answered"
	! dmesg | grep 'smartio_ntb.*expected$' ||
		fail "messages lost or out of order"
}

# pings_start NODE N: N endless pings to NODE in the background, so that
# requests are pending at any time; their output goes to /tmp/ping.N.
pings_start() {
	pings=""
	i=0
	while [ $i -lt "$2" ]; do
		smartioctl node ping "$1" count 1000000 >/tmp/ping.$i 2>&1 &
		pings="$pings $!"
		i=$((i + 1))
	done
	# They must be under way: a round trip takes well under a second.
	sleep 2
	for pid in $pings; do
		kill -0 "$pid" 2>/dev/null || { cat /tmp/ping.*; fail "a ping ended early"; }
	done
}

pings_running() {
	for pid in $pings; do
		kill -0 "$pid" 2>/dev/null && return 0
	done
	return 1
}

pings_done() {
	! pings_running
}

# pings_failed_notconn NODE: every background ping ended, each with one
# line telling that NODE left (ENOTCONN) and exit status 1; the kernel
# closed the channel to NODE, failing what was pending on it, because the
# link went down: after it, and not for the heartbeat's silence (a pending
# request would have timed out by then). How long it took is printed, for
# reading: speed is bench/'s. (A round trip answered just before the link
# went down may not be pending any more: its ping fails on the next.)
pings_failed_notconn() {
	wait_until 10 pings_done || fail "pings still running 10 s after the peer was lost"
	for pid in $pings; do
		rc=0
		wait "$pid" || rc=$?
		[ $rc = 1 ] || { cat /tmp/ping.*; fail "a ping exited with $rc, not 1"; }
	done
	for f in /tmp/ping.*; do
		echo "node$NODE: $f: $(cat "$f")"
		grep -q "ENOTCONN" "$f" || fail "$f: no ENOTCONN"
	done
	dmesg | grep -E 'link down|node '"$1"' left' | tail -3
	# From the last link down before the node left to its leaving.
	delay=$(dmesg | awk -v n="$1" -v linkdown="$NTB_LINK_DOWN" '
		$0 ~ linkdown { down = $0 }
		$0 ~ "smartio_ntb: adapter [0-9]+: node " n " left" {
			left = $0; from = down
		}
		END {
			if (left == "" || from == "")
				exit
			sub(/^\[ */, "", left); sub(/^\[ */, "", from)
			printf "%.6f", left - from
		}')
	[ -n "$delay" ] || fail "no link down before node $1 left"
	echo "node$NODE: pending requests failed ${delay} s after the link went down"
	awk -v d="$delay" 'BEGIN { exit !(d >= 0) }' ||
		fail "node $1 left before its link went down"
	! dmesg | grep -E "node $1 silent for [0-9]+ ms" ||
		fail "node $1 was lost to the heartbeat, not to its link going down"
}
