#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: a borrowed NVMe against a local one, the same emulated model in
# the same VM (pair.sh: lent by another VM or, in nvme-loopback, by this
# one through a loopback cable), side by side: fio 4 KiB random reads, sync engine at queue
# depth 1 (a DMA map per I/O), then libaio at queue depth 32, each on the
# local and on the borrowed controller in turn; IOPS, median and p99
# completion latency, and borrowed/local ratios (about.md).
set -eu
# shellcheck source=../lib/result.sh
. ./result.sh
. ./lend.sh
. ./pair.sh

secs=20
bench_smoke && secs=2
nvme_pair

# json_first KEY: the first number of "KEY" : N in fio's JSON (the read
# side's, which fio prints first).
json_first() {
	sed -n "s/^ *\"$1\" : \([0-9.]*\),*\$/\1/p" | head -n 1
}

# measure NAME DEV ENGINE DEPTH: one fio run; prints "IOPS P50_US P99_US".
measure() {
	out=$(fio --name="$1" --filename="$2" --rw=randread --bs=4k --direct=1 \
		--ioengine="$3" --iodepth="$4" --offset=64M --size=128M \
		--time_based --runtime="$secs" --output-format=json 2>&1) ||
		{ echo "$out" >&2; fail "fio $1 failed"; }
	echo "$out" | grep -q '"error" : 0,' || { echo "$out" >&2; fail "fio $1: errors"; }
	iops=$(echo "$out" | json_first iops)
	p50=$(echo "$out" | json_first 50.000000)
	p99=$(echo "$out" | json_first 99.000000)
	echo "$iops $p50 $p99" | awk '{ printf "%.0f %.1f %.1f\n", $1, $2 / 1000, $3 / 1000 }'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }'
}

for mode in sync:1 libaio:32; do
	engine=${mode%:*} depth=${mode#*:}
	tag=$engine-qd$depth
	l=$(measure "local-$tag" "$local_dev" "$engine" "$depth")
	b=$(measure "borrowed-$tag" "$borrowed_dev" "$engine" "$depth")
	# shellcheck disable=SC2086 # three numbers each
	set -- $l $b
	echo "node$NODE: $tag: local $1 IOPS p50 $2 us p99 $3 us; borrowed $4 IOPS p50 $5 us p99 $6 us"
	result "$bench/$tag-local-iops" "$1" 1/s
	result "$bench/$tag-borrowed-iops" "$4" 1/s
	result "$bench/$tag-iops-ratio" "$(ratio "$4" "$1")" x
	result "$bench/$tag-local-p50-us" "$2" us
	result "$bench/$tag-borrowed-p50-us" "$5" us
	result "$bench/$tag-p50-ratio" "$(ratio "$5" "$2")" x
	result "$bench/$tag-local-p99-us" "$3" us
	result "$bench/$tag-borrowed-p99-us" "$6" us
	result "$bench/$tag-p99-ratio" "$(ratio "$6" "$3")" x
done

nvme_unpair
