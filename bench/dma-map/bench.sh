# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# What both nodes of the DMA-map benchmark need: the lending modules and
# helpers (lend.sh), how to report, and the benchmark module's debugfs
# file.

# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../lib/result.sh
. /usr/local/lib/vmbench/result.sh

bench_file=/sys/kernel/debug/smartio_dma_bench/run

# dma_bench BDF KIND COUNT: the median ns of a map+unmap of KIND (page,
# sg64k) through BDF's DMA ops, over COUNT iterations
# (smartio_dma_bench.c: the host's load moves it much less than the
# mean); the module's whole line goes to stderr.
dma_bench() {
	echo "$1 $2 $3" >"$bench_file" || fail "dma_bench $*: failed"
	line=$(cat "$bench_file")
	echo "node$NODE: $2 $1: $line" >&2
	ns=$(echo "$line" | sed -n 's/.* median_ns \([0-9]*\) .*/\1/p')
	[ -n "$ns" ] || fail "dma_bench $*: no result in '$line'"
	echo "$ns"
}

# median N...: the median of numbers (the lower middle one of an even
# count).
median() {
	printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"
}

