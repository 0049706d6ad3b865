# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# How a benchmark's nodes report (bench/run collects the lines), and what
# they need to size and time themselves. In every node's image, as
# /usr/local/lib/vmbench/result.sh (tests/vm/mkinitramfs).

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

# ratio A B [DIGITS]: A / B with DIGITS decimals (3), 0 when B is 0.
ratio() {
	awk -v a="$1" -v b="$2" -v f="%.${3:-3}f\n" \
		'BEGIN { printf f, (b > 0 ? a / b : 0) }'
}
