#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: round trips per second of the messaging channel between two
# VMs, one request at a time and with four in parallel, for empty and 1 KiB
# payloads. Prints "bench: ..." lines; fails only if a round trip fails.
set -eu
# shellcheck source=bench.sh
. ./bench.sh

fabric_up 2

count=${BENCH_COUNT:-20000}
for size in 0 1024; do
	out=$(smartioctl node ping 2 count "$count" size "$size") ||
		fail "ping failed"
	echo "bench: msg-rtt: 1 stream, size $size: $out"
	start=$(date +%s)
	pids=""
	for i in 1 2 3 4; do
		smartioctl -j node ping 2 count "$count" size "$size" >/tmp/p.$i &
		pids="$pids $!"
	done
	for pid in $pids; do
		wait "$pid" || fail "parallel ping failed"
	done
	secs=$(($(date +%s) - start))
	echo "bench: msg-rtt: 4 streams, size $size: $((4 * count)) round trips in ${secs}s, $((4 * count / (secs > 0 ? secs : 1))) round trips/s"
done
vmctl barrier finished
