# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The fuzzing of node0.sh and node1.sh, by the case (test.conf):
# "requests", node 1 fuzzes, then node 2, every request answered, those a
# signal interrupts too (tests/tools/nl-fuzz.c); the pending "concurrent",
# both nodes at once (a return and a reclaim of the same device cross).

# edu_functions: the PCI names of this node's edu functions (1234:11e8).
edu_functions() {
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor"):$(cat "$d/device")" = 0x1234:0x11e8 ] &&
			echo "${d##*/}"
	done
	return 0
}

# nl_fuzz PCI_NAME...: this node's turn: smartio-nl-fuzz as root and as
# nobody, its values drawn from the cluster's fdids and node ids, and
# from the PCI names given; as root, half its requests walk this node's
# edu functions through their states (-c) while a second process returns,
# reclaims, makes unavailable and removes them (-k): at least a tenth of
# the inputs (10,000 of the default 100,000) must change state. The
# console shows warnings and worse meanwhile, not the lender's line per
# state change (the kernel's log keeps them).
nl_fuzz() {
	together=
	case $CASE in
	requests) ;;
	concurrent) together=1 ;;
	*) fail "no case $CASE" ;;
	esac
	names=
	for name in "$@"; do
		names="$names -p $name"
	done
	cheap=
	for name in $(edu_functions); do
		cheap="$cheap -c $name"
	done
	[ -n "$cheap" ] || fail "no edu function to walk"
	inputs=$(fuzz_inputs 100000)
	seed=$(fuzz_seed "$NODE_ID")
	# shellcheck disable=SC2086 # options, split on purpose
	set -- smartio-nl-fuzz -l "$FUZZ_LAST" -f 0x20000 -f 0x20001 \
		-f 0x10000 -N 1 -N 2 $names
	[ -n "$together" ] || [ "$NODE_ID" = 1 ] || vmctl barrier turn
	# Not the shell's read: a sysctl file reads as ended past its first byte.
	level=$(cut -f 1 /proc/sys/kernel/printk)
	echo 5 >/proc/sys/kernel/printk
	# shellcheck disable=SC2086 # options, split on purpose
	fuzz_as root "$seed" $((inputs * 4 / 5)) "$@" -b 100 -k $cheap
	echo "$level" >/proc/sys/kernel/printk
	fuzz_changed $((inputs / 10))
	fuzz_as nobody $((seed + 100)) $((inputs / 5)) "$@"
	[ -n "$together" ] || [ "$NODE_ID" = 2 ] || vmctl barrier turn
	vmctl barrier fuzzed
}
