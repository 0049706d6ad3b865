#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: a borrowed NVMe against a local one, the same emulated model in
# the same VM (pair.sh: lent by another VM or, in nvme-loopback, by this
# one through a loopback cable), side by side: fio 4 KiB random reads,
# sync engine at queue depth 1 (a DMA map per I/O), then libaio at queue
# depth 32, each on the local and on the borrowed controller in turn;
# IOPS, median and p99 completion latency, and borrowed/local ratios
# (about.md).
set -eu
# shellcheck source=../lib/result.sh
. /usr/local/lib/vmbench/result.sh
# shellcheck source=../lib/fio.sh
. /usr/local/lib/vmbench/fio.sh
# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
. ./pair.sh

secs=20
bench_smoke && secs=2
nvme_pair

for mode in $fio_modes; do
	engine=${mode%:*} depth=${mode#*:}
	tag=$(fio_tag "$mode")
	l=$(fio_measure "local-$tag" "$local_dev" "$engine" "$depth" "$secs")
	b=$(fio_measure "borrowed-$tag" "$borrowed_dev" "$engine" "$depth" "$secs")
	fio_results "$bench/$tag" local borrowed "$l" "$b"
done

nvme_unpair
