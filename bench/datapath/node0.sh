#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: is software in the data path? Node 1 borrows node 2's NVMe
# and runs fio, 4 KiB random reads for 30 s; both nodes count the fabric
# control messages, interrupts and busy CPU time meanwhile (about.md).
# Prints "result:" lines; fails only if borrowing or the I/O fails.
set -eu
# shellcheck source=../lib/result.sh
. /usr/local/lib/vmbench/result.sh
# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../lib/counters.sh
. /usr/local/lib/vmbench/counters.sh

secs=30
bench_smoke && secs=3
borrower_ready
vmctl barrier available
shadow=$(borrow_bound 20000 nvme)
wait_until 30 nvme_ns_of "$shadow" >/dev/null || fail "no block device for $shadow"
dev=$(nvme_ns_of "$shadow")
vmctl barrier borrowed

before=$(counters)
vmctl barrier start
out=$(fio --name=datapath --filename="$dev" --rw=randread --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=16 --offset=64M --size=128M \
	--time_based --runtime="$secs" --output-format=json 2>&1) ||
	{ echo "$out"; fail "fio failed"; }
vmctl barrier ran
after=$(counters)
echo "$out" | grep -q '"error" : 0,' || { echo "$out"; fail "fio: I/O errors"; }
ios=$(echo "$out" | sed -n 's/^ *"total_ios" : \([0-9]*\),$/\1/p' | head -n 1)
[ "${ios:-0}" -gt 0 ] || { echo "$out"; fail "fio did no I/O"; }
vmctl barrier counted

messages=$(counter_delta "$before" "$after" messages)
lender_messages=$(vmctl get lender_messages)
lender_ntb_irqs=$(vmctl get lender_ntb_irqs)
lender_irqs=$(vmctl get lender_device_irqs)
lender_cpu_ms=$(vmctl get lender_cpu_ms)
per_io() {
	ratio "$1" "$ios" 6
}
result datapath/ios "$ios" I/Os
result datapath/iops $((ios / secs)) 1/s
result datapath/borrower-messages "$messages" messages
result datapath/lender-messages "$lender_messages" messages
result datapath/messages-per-io "$(per_io "$messages")" 1/I/O
result datapath/lender-ntb-irqs "$lender_ntb_irqs" interrupts
result datapath/lender-ntb-irqs-per-io "$(per_io "$lender_ntb_irqs")" 1/I/O
result datapath/lender-device-irqs "$lender_irqs" interrupts
result datapath/lender-device-irqs-per-io "$(per_io "$lender_irqs")" 1/I/O
result datapath/lender-cpu-ms "$lender_cpu_ms" ms
result datapath/lender-cpu-us-per-io "$(per_io "$((lender_cpu_ms * 1000))")" us
result datapath/borrower-cpu-ms "$(counter_delta "$before" "$after" cpu_ms)" ms

smartioctl return 20000 || fail "return failed"
vmctl barrier returned
