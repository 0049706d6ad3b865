# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the fuzzers' tests (fuzz-netlink, fuzz-dev, fuzz-peer): the
# seed and input count, the leak check (leak.sh, sourced here: what the
# node holds, compared before and after) and its devices put back as they
# were.
#
# A run's seed and input count are fixed, printed, and can be given on
# the kernel command line to repeat or stretch a run:
#
#	SMARTIO_VM_APPEND="fuzz.seed=42 fuzz.inputs=500000" tests/vm/run tests/vm/fuzz-dev
#
# or to scale every fuzzer's default count by a percentage (fuzz.share=25).

# shellcheck source=tests/vm/guest/leak.sh
. /usr/local/lib/vmtest/leak.sh

# fuzz_param NAME DEFAULT: fuzz.NAME=VALUE from the kernel command line,
# else DEFAULT.
fuzz_param() {
	read -r cmdline </proc/cmdline
	for arg in $cmdline; do
		case $arg in
		fuzz."$1"=*) echo "${arg#*=}"; return ;;
		esac
	done
	echo "$2"
}

# fuzz_seed DEFAULT: the seed of this node's run: fuzz.seed plus the node's
# number (each node draws its own inputs), else DEFAULT.
fuzz_seed() {
	seed=$(fuzz_param seed "")
	if [ -n "$seed" ]; then
		echo "$((seed + NODE))"
	else
		echo "$1"
	fi
}

# fuzz_inputs DEFAULT: inputs of this node's run: fuzz.inputs, else
# fuzz.share percent of DEFAULT (100). The fuzzers' floors are shares of
# their inputs, so a smaller run asks as much of each input. make
# check-debug runs a quarter (tests/check, suite_debug): under the bug
# finders, fuzz-netlink's 40,000 requests a node took over 24 minutes.
fuzz_inputs() {
	fuzz_param inputs $(($1 * $(fuzz_param share 100) / 100))
}

# fuzz_report FILE: a fuzzer's output.
fuzz_report() {
	sed "s/^/node$NODE: /" "$1"
}

# received_malformed: messages from peers that this node's decoder
# refused (ntb/msg.c), all peers together.
received_malformed() {
	awk '/^    received malformed / { n += $3 } END { print n + 0 }' "$adapters"
}

# fuzz_at_least COUNT MIN WHAT: a fuzzer's COUNT of WHAT is at least MIN
# (printed either way): fails when fewer inputs got through than they must.
fuzz_at_least() {
	echo "node$NODE: ${1:-0} $3 (at least $2)"
	[ "${1:-0}" -ge "$2" ] || fail "only ${1:-0} $3, fewer than $2"
}

# fuzz_changed MIN: the last run as root (fuzz_as) changed state with at
# least MIN inputs ("state changes N" in its fuzzer's report).
fuzz_changed() {
	fuzz_at_least "$(sed -n 's/^.*: state changes \([0-9]*\).*$/\1/p' /tmp/fuzz-root.out)" \
		"$1" "inputs changed state"
}

# local_devices: "FDID BDF STATE" of every device this node lends.
local_devices() {
	smartioctl device list | awk -v node="$NODE_ID" '$7 == node {
		sub(":$", "", $1); print $1, $2, $8 }'
}

# devices_reset [BDF]: this node lends BDF alone (or nothing), available
# (registered anew if it was removed), whatever a fuzzer left: every other
# device is taken back and removed. Prints BDF's fdid.
# shellcheck disable=SC2120 # BDF is optional
devices_reset() {
	local_devices | while read -r fdid bdf state; do
		case $state in
		borrowed | returning) smartioctl device reclaim "$fdid" >&2 || true ;;
		esac
		[ "$bdf" = "${1:-}" ] && continue
		smartioctl device unavailable "$fdid" >/dev/null 2>&1 || true
		smartioctl device remove "$fdid" >&2 || fail "cannot remove $fdid ($bdf)"
	done || exit 1
	[ -n "${1:-}" ] || return 0
	fdid=$(local_devices | awk -v bdf="$1" '$2 == bdf { print $1 }')
	if [ -z "$fdid" ]; then
		fdid=$(lend_function "$1")
	elif ! local_devices | grep -q "^$fdid $1 available$"; then
		smartioctl device available "$fdid" >&2 || fail "cannot make $fdid available"
	fi
	echo "$fdid"
}

# Where smartio-nl-fuzz -l keeps the request it is sending (nobody too
# may write there).
FUZZ_LAST=/dev/shm/fuzz.last

# fuzz_stuck PROGRAM: what PROGRAM, running too long, waits for: its
# kernel stacks, every blocked task's (sysrq w, in the kernel log), and
# the request it sent last (FUZZ_LAST).
fuzz_stuck() {
	for pid in $(pidof "$1"); do
		echo "node$NODE: $1 ($pid) in the kernel:"
		cat "/proc/$pid/stack" || true
	done
	echo w >/proc/sysrq-trigger
	if [ -s "$FUZZ_LAST" ]; then
		echo "node$NODE: request $(fuzz_sent), sent last:"
		od -An -tx1 -j8 -N$(($(od -An -tu4 -j4 -N4 "$FUZZ_LAST"))) "$FUZZ_LAST"
	fi
}

# fuzz_sent: the number of the request smartio-nl-fuzz -l is sending, or
# nothing when no fuzzer keeps one.
fuzz_sent() {
	[ -s "$FUZZ_LAST" ] && echo $(($(od -An -tu4 -N4 "$FUZZ_LAST")))
}

# fuzz_as WHO SEED COUNT PROGRAM ARGS...: runs PROGRAM -s SEED -n COUNT
# ARGS... as WHO (root, or nobody: without privileges), prints its report
# and how long it took; fails when the fuzzer does (a violation, a request
# unanswered), hangs or sends fewer than COUNT inputs. A hang is no
# progress for fuzz.hang seconds (240 by default; make check-debug
# stretches it as it does the tests' timeouts; see fuzz_stuck): no new
# request, when the fuzzer numbers them (smartio-nl-fuzz -l), else no end.
# Not a bound on how long all its inputs take: how fast a node serves them
# is bench/'s concern, and a loaded TCG host serves them slower.
fuzz_as() {
	hang=$(fuzz_param hang 240)
	who=$1
	seed=$2
	count=$3
	shift 3
	out=/tmp/fuzz-$who.out
	rm -f "$FUZZ_LAST"
	start=$(date +%s)
	if [ "$who" = nobody ]; then
		as_nobody "$* -s $seed -n $count" >"$out" 2>&1 &
	else
		"$@" -s "$seed" -n "$count" >"$out" 2>&1 &
	fi
	pid=$!
	moved=$start
	last=
	while kill -0 "$pid" 2>/dev/null; do
		now=$(date +%s)
		sent=$(fuzz_sent) || true
		if [ -n "$sent" ] && [ "$sent" != "$last" ]; then
			last=$sent
			moved=$now
		fi
		if [ $((now - moved)) -gt "$hang" ]; then
			fuzz_report "$out"
			fuzz_stuck "$(basename "$1")"
			fail "$1 as $who made no progress for $hang s (seed $seed)"
		fi
		sleep 1
	done
	rc=0
	wait "$pid" || rc=$?
	fuzz_report "$out"
	echo "node$NODE: $1 as $who: $count inputs in $(($(date +%s) - start)) s, exit status $rc"
	[ $rc = 0 ] || fail "$1 as $who failed (seed $seed)"
	grep -qE ": seed $seed: $count (inputs|requests sent)," "$out" ||
		fail "$1 as $who did not send its $count inputs"
}

