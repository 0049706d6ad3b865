# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# What the benchmarks count on a node (datapath, borrow-latency, nvmeof),
# as "NAME VALUE" lines: fabric control messages (sent and received, all
# peers: smartio_ntb's counters), interrupts of the NTB's vectors, all
# device interrupts (numbered lines of /proc/interrupts, on every CPU) but
# the rig's vmctl port's (ttyS1: each vmctl reply to the node raises one,
# six in a benchmark's span, which is the harness talking, not the node),
# and busy CPU time (every state but idle and iowait) in ms.
counters() {
	awk '/^    messages sent/ { m += $3 + $5 } END { print "messages", m + 0 }' \
		/sys/kernel/debug/smartio/adapters
	awk 'NR > 1 && $1 ~ /^[0-9]+:$/ {
		n = 0
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i
		if ($NF != "ttyS1") all += n
		if ($NF ~ /-(db[0-9]+|link)$/) ntb += n
	} END { print "ntb_irqs", ntb + 0; print "device_irqs", all + 0 }' /proc/interrupts
	echo "cpu_ms $(cpu_ms)"
}

# cpu_ms: busy CPU time since boot, all CPUs, in ms (every state but idle
# and iowait; USER_HZ is 100, so its resolution is 10 ms). Shell builtins
# only: under TCG a process start costs tens of milliseconds, which would
# count as busy time in the span being measured.
cpu_ms() {
	read -r _ cpu_user cpu_nice cpu_system _ _ cpu_irq cpu_softirq cpu_steal _ </proc/stat
	echo $(((cpu_user + cpu_nice + cpu_system + cpu_irq + cpu_softirq + cpu_steal) * 10))
}

# counter_delta BEFORE AFTER NAME: how much counter NAME grew.
counter_delta() {
	b=$(echo "$1" | awk -v n="$3" '$1 == n { print $2 }')
	a=$(echo "$2" | awk -v n="$3" '$1 == n { print $2 }')
	echo $((a - b))
}

# lender_counts: the lender's side of a benchmark that counts what it does
# while node 1 runs the I/O, between node 1's barriers "start" and "ran":
# publishes the deltas as lender_messages, lender_ntb_irqs,
# lender_device_irqs and lender_cpu_ms (vmctl put), then meets "counted".
lender_counts() {
	before=$(counters)
	cp /proc/interrupts /tmp/interrupts.before
	vmctl barrier start
	vmctl barrier ran
	after=$(counters)
	irqs_grown /tmp/interrupts.before /proc/interrupts
	for c in messages ntb_irqs device_irqs cpu_ms; do
		vmctl put "lender_$c" "$(counter_delta "$before" "$after" "$c")"
	done
	vmctl barrier counted
}

# irqs_grown BEFORE AFTER: prints, for the log, each numbered interrupt of
# /proc/interrupts that grew between the two copies: "lender: irq N
# (its name): +COUNT", so that what device_irqs counts can be told apart.
irqs_grown() {
	awk 'function total(   i, n) {
		n = 0
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i
		return n
	}
	FNR == 1 { file++ }
	$1 ~ /^[0-9]+:$/ {
		if (file == 1) { was[$1] = total(); next }
		grew = total() - was[$1]
		irq = $1
		sub(/:$/, "", irq)
		if (grew > 0) print "lender: irq " irq " (" $NF "): +" grew
	}' "$1" "$2"
}
