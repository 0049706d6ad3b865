#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: node 2's NVMe through a mediated device against the same NVMe
# borrowed by this node's kernel, side by side in one run: 4 KiB random
# reads, one at a time. The kernel's nvme driver on the borrowed shadow
# runs fio (sync, queue depth 1); then smartio-vfio nvme-bench drives the
# NVMe from userspace through the mdev (queues in its memory, doorbells
# through the mapped BAR, completions on MSI-X eventfds), as a VM's driver
# would through QEMU. Node 2 counts its fabric messages, interrupts and
# CPU time during the mdev's reads alone (about.md).
set -eu
# shellcheck source=../lib/result.sh
. /usr/local/lib/vmbench/result.sh
# shellcheck source=../lib/fio.sh
. /usr/local/lib/vmbench/fio.sh
# shellcheck source=../lib/counters.sh
. /usr/local/lib/vmbench/counters.sh
# shellcheck source=../../tests/vm/guest/mdev.sh
. /usr/local/lib/vmtest/mdev.sh

secs=20
bench_smoke && secs=2
borrower_ready
mdev_load
vmctl barrier available

shadow=$(borrow_bound 20000 nvme)
wait_until 30 nvme_ns_of "$shadow" >/dev/null || fail "no block device for $shadow"
kernel=$(fio_measure borrowed-sync-qd1 "$(nvme_ns_of "$shadow")" sync 1 "$secs")
smartioctl return 20000 || fail "return failed"
wait_until 30 listed_available 20000 || fail "20000 not available after its return"

uuid=5a3a0d2e-1c1b-4b0e-9a59-000000020000
mdev_create "$uuid" 20000
# The client waits on its stdin before its first read and after its last
# (smartio-vfio nvme-bench), so that node 2 counts around the reads alone.
mkfifo /tmp/go
smartio-vfio nvme-bench "$uuid" "$secs" </tmp/go >/tmp/bench.out 2>&1 &
client=$!
exec 3>/tmp/go
wait_until 60 grep -q '^nvme-bench: started$' /tmp/bench.out ||
	{ cat /tmp/bench.out; fail "smartio-vfio nvme-bench did not start"; }
# Opened, borrowed, its memory mapped, the controller up: node 2 counts
# from here (datapath's lender, linked, takes its "before" now).
vmctl barrier borrowed
before=$(counters)
vmctl barrier start
echo >&3
wait_until $((secs + 120)) grep -q '^nvme-bench: done$' /tmp/bench.out ||
	{ cat /tmp/bench.out; fail "smartio-vfio nvme-bench did not finish"; }
after=$(counters)
vmctl barrier ran
# Node 2 counts as it leaves "ran": the client closes the mdev (which
# returns the device: messages) only once node 2 has its counts.
vmctl barrier counted
echo >&3
exec 3>&-
wait "$client" || { cat /tmp/bench.out; fail "smartio-vfio nvme-bench failed"; }
cat /tmp/bench.out

# "IOPS P50_US P99_US IOS", as fio_measure prints them.
mdev=$(awk '/^nvme-bench: ios / {
	gsub(",", ""); printf "%.0f %.1f %.1f %d\n", $3 / $5, $7 / 1000, $9 / 1000, $3
}' /tmp/bench.out)
[ -n "$mdev" ] || fail "no results from smartio-vfio nvme-bench"
ios=${mdev##* }
fio_results mdev/sync-qd1 borrowed mdev "$kernel" "$mdev"
counts=$(sed -n 's/^nvme: completions \([0-9]*\), interrupts \([0-9]*\)$/\1 \2/p' /tmp/bench.out)
result mdev/interrupts-per-completion "$(ratio "${counts#* }" "${counts% *}")" 1/completion
per_io() {
	ratio "$1" "$ios" 6
}
result mdev/borrower-messages-per-io "$(per_io "$(counter_delta "$before" "$after" messages)")" 1/I/O
result mdev/lender-messages-per-io "$(per_io "$(vmctl get lender_messages)")" 1/I/O
result mdev/lender-ntb-irqs-per-io "$(per_io "$(vmctl get lender_ntb_irqs)")" 1/I/O
result mdev/lender-device-irqs-per-io "$(per_io "$(vmctl get lender_device_irqs)")" 1/I/O
result mdev/lender-cpu-us-per-io "$(per_io "$(($(vmctl get lender_cpu_ms) * 1000))")" us
echo 1 >"/sys/bus/mdev/devices/$uuid/remove"
vmctl barrier returned
