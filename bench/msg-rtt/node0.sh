#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: round trips per second and mean latency of the kernels'
# messaging channel between two VMs, one request at a time and with four
# streams in parallel, for empty payloads and full ones (4072 bytes: one
# 4 KiB message). Prints "result:" lines; fails only if a round trip fails.
set -eu
# shellcheck source=bench.sh
. ./bench.sh

fabric_up 2

count=20000
bench_smoke && count=200
for size in 0 4072; do
	# 1 stream: the kernel times it.
	out=$(smartioctl node ping 2 count "$count" size "$size") ||
		fail "ping failed"
	echo "node$NODE: $out"
	rate=$(echo "$out" | sed -n 's/.*, \([0-9]*\) round trips\/s.*/\1/p')
	rtt=$(echo "$out" | sed -n 's/.*rtt avg \([0-9.]*\) us.*/\1/p')
	{ [ -n "$rate" ] && [ -n "$rtt" ]; } || fail "no rate in: $out"
	result "msg-rtt/payload${size}-1stream-rtt-per-s" "$rate" 1/s
	result "msg-rtt/payload${size}-1stream-rtt-us" "$rtt" us
	# 4 streams: wall time of all four.
	start=$(now_ns)
	pids=""
	for i in 1 2 3 4; do
		smartioctl node ping 2 count "$count" size "$size" >/tmp/p.$i &
		pids="$pids $!"
	done
	for pid in $pids; do
		wait "$pid" || fail "parallel ping failed"
	done
	ns=$(($(now_ns) - start))
	result "msg-rtt/payload${size}-4streams-rtt-per-s" \
		"$((4 * count * 1000000000 / ns))" 1/s
done
vmctl barrier finished
