# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The fuzzing of node0.sh and node1.sh, by the case (test.conf):
# "requests", node 1 fuzzes, then node 2, every request answered, those a
# signal interrupts too (tests/tools/nl-fuzz.c); the pending "concurrent",
# both nodes at once (a return and a reclaim of the same device cross).

# nl_fuzz PCI_NAME...: this node's turn: smartio-nl-fuzz as root and as
# nobody, its values drawn from the cluster's fdids and node ids, and
# from the PCI names given.
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
	inputs=$(fuzz_inputs 100000)
	seed=$(fuzz_seed "$NODE_ID")
	# shellcheck disable=SC2086 # options, split on purpose
	set -- smartio-nl-fuzz -l "$FUZZ_LAST" -f 0x20000 -f 0x20001 \
		-f 0x10000 -N 1 -N 2 $names
	[ -n "$together" ] || [ "$NODE_ID" = 1 ] || vmctl barrier turn
	fuzz_as root "$seed" $((inputs * 4 / 5)) "$@" -b 100
	fuzz_as nobody $((seed + 100)) $((inputs / 5)) "$@"
	[ -n "$together" ] || [ "$NODE_ID" = 2 ] || vmctl barrier turn
	vmctl barrier fuzzed
}
