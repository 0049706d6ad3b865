# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# How a benchmark's nodes report (bench/run collects the lines), and what
# they need to size and time themselves. Linked into each bench/NAME/.

# bench_smoke: true in a smoke run (bench/run --smoke), whose sizes and
# durations are tiny: it proves the benchmark works, not how fast.
bench_smoke() {
	grep -qw 'bench.smoke=1' /proc/cmdline
}

# result NAME/METRIC VALUE UNIT: one measurement.
result() {
	echo "result: $1 $2 $3"
}

# now_ns: wall time in nanoseconds (since boot, 10 ms resolution).
now_ns() {
	awk '{ printf "%.0f\n", $1 * 1e9 }' /proc/uptime
}
