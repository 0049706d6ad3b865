#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: how many functions one node borrows at once. Node 1 borrows
# node 2's NVMe virtual functions one after another, each until its block
# device is there, and keeps them all; then reads a block of every one,
# and returns them all (about.md). Prints "result:" lines; fails if a
# borrow, a read or a return fails.
set -eu
. ./functions.sh

borrower_ready
vmctl barrier available
mem0=$(meminfo MemAvailable) slab0=$(meminfo Slab)
lut0=$(lut_slots) iova0=$(iova_pages_all)

total_ms=0
shadows=
for n in $(seq "$count"); do
	fdid=$(fdid_of "$n")
	start=$(now_ns)
	line=$(smartioctl borrow "$fdid") || {
		result scale-functions/functions $((n - 1)) functions
		fail "borrow $n ($fdid) failed"
	}
	shadow=${line##* as }
	ms=$(ready_after "$start" "$shadow")
	total_ms=$((total_ms + ms))
	shadows="$shadows $shadow"
	echo "node$NODE: borrow $n: $fdid as $shadow, $(nvme_ns_of "$shadow") in $ms ms;" \
		"MemAvailable $(meminfo MemAvailable) KiB, Slab $(meminfo Slab) KiB"
	# The latency at 1, 2, 4, 8... borrowed, and at the last.
	if [ $((n & (n - 1))) = 0 ] || [ "$n" = "$count" ]; then
		result scale-functions/borrow-ms-at-"$n" "$ms" ms
	fi
done
show_adapters
vmctl barrier borrowed
mem1=$(meminfo MemAvailable) slab1=$(meminfo Slab)
lut1=$(lut_slots) iova1=$(iova_pages_all)

# shellcheck disable=SC2086 # one word each
read_each $shadows

result scale-functions/functions "$count" functions
result scale-functions/borrow-ms-mean $((total_ms / count)) ms
result scale-functions/mem-kib-per-function "$(ratio $((mem0 - mem1)) "$count" 1)" KiB
result scale-functions/slab-kib-per-function "$(ratio $((slab1 - slab0)) "$count" 1)" KiB
result scale-functions/iova-kib-per-function "$(ratio $(((iova1 - iova0) * 4)) "$count" 1)" KiB
result scale-functions/borrower-lut-slots $((lut1 - lut0)) slots
result scale-functions/lender-lut-slots "$(vmctl get lender_lut_slots)" slots
result scale-functions/lender-mem-kib-per-function \
	"$(ratio "$(vmctl get lender_mem_kib)" "$count" 1)" KiB

start=$(now_ns)
for n in $(seq "$count"); do
	smartioctl return "$(fdid_of "$n")" || fail "return $(fdid_of "$n") failed"
done
result scale-functions/return-ms-mean $((($(now_ns) - start) / 1000000 / count)) ms
for shadow in $shadows; do
	not_present "$shadow" || fail "$shadow still there after its return"
done
if [ "$(iova_pages_all)" != "$iova0" ] || [ "$(lut_slots)" != "$lut0" ]; then
	show_adapters
	fail "windows or IOVA pages left after the returns"
fi
vmctl barrier returned
