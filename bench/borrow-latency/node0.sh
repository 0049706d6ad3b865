#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: how long from `smartioctl borrow` to the borrowed NVMe's block
# device, against a local hot-add of the same model (remove, then rescan,
# to its block device), in turn, 5 times each after a round of warming
# up, and where the time goes: starting smartioctl at all, the request
# (lender round trips, shadow bus, driver bound), the driver's asynchronous
# probe, the fabric messages a borrow takes and what a round trip of them
# costs (about.md).
set -eu
# shellcheck source=../lib/result.sh
. /usr/local/lib/vmbench/result.sh
# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../lib/counters.sh
. /usr/local/lib/vmbench/counters.sh

reps=5
bench_smoke && reps=1
borrower_ready
own=$(nvme_bdf)
wait_until 30 nvme_ns_of "$own" >/dev/null || fail "no block device for $own"

# Times come from marks in the kernel log (microseconds, the clock of the
# kernel's own messages) written by the shell itself: starting a process
# to read a clock (now_ns runs awk) costs tens of milliseconds under TCG,
# more than some of the phases. Userspace writes there are rate-limited
# by default.
echo on >/proc/sys/kernel/printk_devkmsg
mark() {
	echo "borrow-latency: $1" >/dev/kmsg
}

# stamp NAME: the time of mark NAME in microseconds.
stamp() {
	dmesg | awk -v m="borrow-latency: $1" '
		{ t = $0; sub(/^\[ */, "", t); text = t; sub(/^[0-9.]*\] /, "", text) }
		text == m { us = sprintf("%.0f", t * 1000000) }
		END { if (us == "") exit 1; print us }' || fail "no mark \"$1\""
}

# since FROM TO: microseconds from mark FROM to mark TO.
since() {
	echo $(($(stamp "$2") - $(stamp "$1")))
}

# A FIFO nobody writes to: read -t on it naps without starting a process
# (busybox's sleep is one, and costs more than its 10 ms under TCG).
mkfifo /tmp/nap
exec 3<>/tmp/nap
nap() {
	# shellcheck disable=SC3045 # busybox's sh has read -t
	read -r -t 0.005 _ <&3 || true
}

# ready BDF: naps until BDF has a block device; fails after 60 s.
ready() {
	read -r t0 _ </proc/uptime
	until nvme_ns_of "$1" >/dev/null; do
		read -r t _ </proc/uptime
		[ "${t%.*}" -lt $((${t0%.*} + 60)) ] ||
			fail "no block device for $1 after 60 s"
		nap
	done
}

vmctl barrier available
# Round 0 warms up (the first I/O of a fresh NVMe image, the lender's
# first borrow), and is not counted.
for i in $(seq 0 "$reps"); do
	echo 1 >"/sys/bus/pci/devices/$own/remove"
	not_present "$own" || fail "$own not removed"
	mark "local $i"
	echo 1 >/sys/bus/pci/rescan
	mark "local $i scanned"
	ready "$own"
	mark "local $i ready"

	# What any smartioctl command costs before and after its work; three
	# times, as it varies most.
	for t in 1 2 3; do
		mark "tool $i.$t"
		out=$(smartioctl --version) || fail "smartioctl --version failed"
		mark "tool $i.$t done"
	done

	before=$(counters)
	mark "borrow $i"
	line=$(smartioctl borrow 20000) || fail "borrow failed"
	mark "borrow $i answered"
	shadow=${line##* as }
	ready "$shadow"
	mark "borrow $i ready"
	after=$(counters)
	smartioctl return 20000 || fail "return failed"
	# What one of those messages' round trips costs now.
	ping=$(smartioctl node ping 2 count 20) || fail "ping failed"
	rtt=$(echo "$ping" | sed -n 's/.*, rtt avg \([0-9.]*\) us$/\1/p')
	[ -n "$rtt" ] || fail "ping: $ping"

	echo "node$NODE: round $i: local $(since "local $i" "local $i ready") us," \
		"borrow $(since "borrow $i" "borrow $i ready") us" \
		"(smartioctl $(since "tool $i.1" "tool $i.1 done") us), $out"
	echo "local_us $(since "local $i" "local $i ready")
local_scan_us $(since "local $i" "local $i scanned")
local_probe_us $(since "local $i scanned" "local $i ready")
tool_us $(since "tool $i.1" "tool $i.1 done")
tool_us $(since "tool $i.2" "tool $i.2 done")
tool_us $(since "tool $i.3" "tool $i.3 done")
borrow_us $(since "borrow $i" "borrow $i ready")
request_us $(since "borrow $i" "borrow $i answered")
probe_us $(since "borrow $i answered" "borrow $i ready")
messages $(counter_delta "$before" "$after" messages)
rtt_us $rtt" >"/tmp/round.$i"
done

# median NAME: the median of NAME over the counted rounds, in ms
# (messages: as they are). A loaded host stalls a round now and then.
median() {
	for i in $(seq "$reps"); do
		awk -v n="$1" '$1 == n { print $2 }' "/tmp/round.$i"
	done | sort -n | awk -v n="$1" '{ v[NR] = $1 }
		END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			if (n ~ /_us$/) m /= 1000
			printf "%.1f\n", m
		}'
}
local_ms=$(median local_us)
borrow_ms=$(median borrow_us)
tool_ms=$(median tool_us)
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", (b > 0 ? a / b : 0) }'
}
result borrow-latency/local-hotadd-ms "$local_ms" ms
result borrow-latency/borrow-ms "$borrow_ms" ms
result borrow-latency/ratio "$(ratio "$borrow_ms" "$local_ms")" x
result borrow-latency/ratio-less-tool "$(ratio \
	"$(awk -v a="$borrow_ms" -v b="$tool_ms" 'BEGIN { print a - b }')" \
	"$local_ms")" x
result borrow-latency/local-scan-ms "$(median local_scan_us)" ms
result borrow-latency/local-probe-ms "$(median local_probe_us)" ms
result borrow-latency/tool-start-ms "$tool_ms" ms
result borrow-latency/borrow-request-ms "$(median request_us)" ms
result borrow-latency/borrow-probe-ms "$(median probe_us)" ms
result borrow-latency/messages-per-borrow "$(median messages)" messages
result borrow-latency/message-rtt-ms "$(median rtt_us)" ms
vmctl barrier returned
