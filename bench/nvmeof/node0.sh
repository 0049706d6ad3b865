#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: node 2's NVMe read by node 1 through NVMe-oF/TCP (nvmet on
# node 2, nvme-tcp here, over the management network), then through
# lending, in the same run: fio 4 KiB random reads, sync engine at queue
# depth 1, then libaio at queue depth 32; IOPS, median and p99 latency,
# node 2's busy CPU time per I/O, and lending/NVMe-oF ratios (about.md).
set -eu
# shellcheck source=../lib/result.sh
. /usr/local/lib/vmbench/result.sh
# shellcheck source=../lib/fio.sh
. /usr/local/lib/vmbench/fio.sh
# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=./nvmeof.sh
. ./nvmeof.sh

secs=20
bench_smoke && secs=2

# counted NAME COMMAND...: COMMAND, its output in /tmp/NAME, while node 2
# counts its busy CPU time (node1.sh's count), left in /tmp/NAME.cpu.
counted() {
	vmctl barrier "start-$1"
	name=$1
	shift
	"$@" >"/tmp/$name"
	vmctl barrier "ran-$name"
	vmctl get "cpu-$name" >"/tmp/$name.cpu"
}

# run SIDE DEV: both workloads on DEV, through SIDE (nvmeof, lending):
# fio_measure's "IOPS P50_US P99_US IOS" of each in /tmp/SIDE-TAG, node 2's
# busy CPU time in /tmp/SIDE-TAG.cpu.
run() {
	for mode in $fio_modes; do
		tag=$(fio_tag "$mode")
		counted "$1-$tag" fio_measure "$1-$tag" "$2" "${mode%:*}" "${mode#*:}" "$secs"
	done
}

# per_io_us MS IOS: MS milliseconds over IOS I/Os, in us.
per_io_us() {
	ratio "$(($1 * 1000))" "$2"
}

mgmt_up "$initiator_addr"
vmctl barrier exported
wait_until 30 ping -c 1 -W 1 "$target_addr" >/dev/null ||
	fail "node 2 ($target_addr) unreachable on the management network"
ctrl=$(nvmf_connect)
wait_until 30 nvme_ctrl_ns "$ctrl" >/dev/null || fail "no block device for $ctrl"
run nvmeof "$(nvme_ctrl_ns "$ctrl")"
nvmf_disconnect "$ctrl"
vmctl barrier disconnected

borrower_ready
vmctl barrier available
shadow=$(borrow_bound 20000 nvme)
wait_until 30 nvme_ns_of "$shadow" >/dev/null || fail "no block device for $shadow"
# The baseline: node 2's CPU time over as long a span without I/O,
# counted the same way.
counted idle sleep "$secs"
run lending "$(nvme_ns_of "$shadow")"
smartioctl return 20000 || fail "return failed"
vmctl barrier returned

idle_ms=$(cat /tmp/idle.cpu)
for mode in $fio_modes; do
	tag=$(fio_tag "$mode")
	m=nvmeof/$tag
	nvmeof=$(cat "/tmp/nvmeof-$tag") lending=$(cat "/tmp/lending-$tag")
	fio_results "$m" nvmeof lending "$nvmeof" "$lending"
	nvmeof_ms=$(cat "/tmp/nvmeof-$tag.cpu") lending_ms=$(cat "/tmp/lending-$tag.cpu")
	result "$m-nvmeof-lender-cpu-ms" "$nvmeof_ms" ms
	result "$m-lending-lender-cpu-ms" "$lending_ms" ms
	# fio_measure's last number is the I/Os.
	nvmeof_us=$(per_io_us "$nvmeof_ms" "${nvmeof##* }")
	lending_us=$(per_io_us "$lending_ms" "${lending##* }")
	result "$m-nvmeof-lender-cpu-us-per-io" "$nvmeof_us" us
	result "$m-lending-lender-cpu-us-per-io" "$lending_us" us
	result "$m-lender-cpu-ratio" "$(ratio "$lending_us" "$nvmeof_us" 4)" x
	# The same with what node 2 spends anyway (idle) taken off both sides.
	nvmeof_us=$(per_io_us "$((nvmeof_ms - idle_ms))" "${nvmeof##* }")
	lending_us=$(per_io_us "$((lending_ms - idle_ms))" "${lending##* }")
	result "$m-lender-cpu-above-idle-ratio" "$(ratio "$lending_us" "$nvmeof_us" 4)" x
done
result nvmeof/lender-idle-cpu-ms "$idle_ms" ms
