# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The NVMe benchmarks' workload (nvme, nvmeof): fio 4 KiB random reads,
# direct, between 64 and 192 MiB of a block device, and what they read
# from fio's JSON. Needs testlib.sh's fail and result.sh.

# json_first KEY: the first number of "KEY" : N in fio's JSON (the read
# side's, which fio prints first).
json_first() {
	sed -n "s/^ *\"$1\" : \([0-9.]*\),*\$/\1/p" | head -n 1
}

# fio_measure NAME DEV ENGINE DEPTH SECONDS: one fio run; prints
# "IOPS P50_US P99_US IOS" (IOS: the I/Os it completed). Fails on any I/O
# error.
fio_measure() {
	out=$(fio --name="$1" --filename="$2" --rw=randread --bs=4k --direct=1 \
		--ioengine="$3" --iodepth="$4" --offset=64M --size=128M \
		--time_based --runtime="$5" --output-format=json 2>&1) ||
		{ echo "$out" >&2; fail "fio $1 failed"; }
	echo "$out" | grep -q '"error" : 0,' || { echo "$out" >&2; fail "fio $1: errors"; }
	iops=$(echo "$out" | json_first iops)
	p50=$(echo "$out" | json_first 50.000000)
	p99=$(echo "$out" | json_first 99.000000)
	ios=$(echo "$out" | json_first total_ios)
	[ "${ios:-0}" -gt 0 ] || { echo "$out" >&2; fail "fio $1 did no I/O"; }
	echo "$iops $p50 $p99 $ios" |
		awk '{ printf "%.0f %.1f %.1f %d\n", $1, $2 / 1000, $3 / 1000, $4 }'
}

# fio_results PREFIX A B "A's" "B's": IOPS, median and p99 latency of
# two fio_measure outputs, sides A and B (local, borrowed...), as metrics
# PREFIX-A-iops, PREFIX-B-iops, PREFIX-iops-ratio (B over A), and so on
# for p50-us and p99-us.
fio_results() {
	prefix=$1 side_a=$2 side_b=$3
	# shellcheck disable=SC2086 # four numbers each
	set -- $4 $5
	echo "node$NODE: $prefix: $side_a $1 IOPS p50 $2 us p99 $3 us; $side_b $5 IOPS p50 $6 us p99 $7 us"
	result "$prefix-$side_a-iops" "$1" 1/s
	result "$prefix-$side_b-iops" "$5" 1/s
	result "$prefix-iops-ratio" "$(ratio "$5" "$1")" x
	result "$prefix-$side_a-p50-us" "$2" us
	result "$prefix-$side_b-p50-us" "$6" us
	result "$prefix-p50-ratio" "$(ratio "$6" "$2")" x
	result "$prefix-$side_a-p99-us" "$3" us
	result "$prefix-$side_b-p99-us" "$7" us
	result "$prefix-p99-ratio" "$(ratio "$7" "$3")" x
}

# The two workloads, as ENGINE:DEPTH: the sync engine at queue depth 1 (a
# DMA map and an interrupt per I/O, as in the SmartIO papers), then libaio
# at queue depth 32.
# shellcheck disable=SC2034 # for the scripts that source this
fio_modes="sync:1 libaio:32"

# fio_tag MODE: how metric names call workload MODE: ENGINE-qdDEPTH.
fio_tag() {
	echo "${1%:*}-qd${1#*:}"
}
