#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: how long from `smartioctl borrow` to the borrowed NVMe's block
# device, against a local hot-add of the same model (remove, then rescan,
# to its block device), in turn, 5 times each (about.md).
set -eu
# shellcheck source=../lib/result.sh
. ./result.sh
. ./lend.sh
# shellcheck source=../lib/borrow.sh
. ./borrow.sh

reps=5
bench_smoke && reps=1
borrower_ready
own=$(nvme_bdf)
wait_until 30 nvme_ns_of "$own" >/dev/null || fail "no block device for $own"
vmctl barrier available

local_ms=0 borrow_ms=0
for i in $(seq "$reps"); do
	echo 1 >"/sys/bus/pci/devices/$own/remove"
	not_present "$own" || fail "$own not removed"
	start=$(now_ns)
	echo 1 >/sys/bus/pci/rescan
	ms=$(ready_after "$start" "$own")
	local_ms=$((local_ms + ms))
	echo "node$NODE: local hot-add $i: $ms ms"

	start=$(now_ns)
	line=$(smartioctl borrow 20000) || fail "borrow failed"
	shadow=${line##* as }
	ms=$(ready_after "$start" "$shadow")
	borrow_ms=$((borrow_ms + ms))
	echo "node$NODE: borrow $i: $ms ms"
	smartioctl return 20000 || fail "return failed"
done
result borrow-latency/local-hotadd-ms $((local_ms / reps)) ms
result borrow-latency/borrow-ms $((borrow_ms / reps)) ms
result borrow-latency/ratio "$(awk -v a="$borrow_ms" -v b="$local_ms" \
	'BEGIN { printf "%.2f\n", (b > 0 ? a / b : 0) }')" x
vmctl barrier returned
