# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The fuzzing of node0.sh and node1.sh, by the case (test.conf):
# "requests", node 1 fuzzes, then node 2, every request answered, those a
# signal interrupts too (tests/tools/nl-fuzz.c); "concurrent", both nodes
# at once (returns and reclaims of the same device cross at random);
# "crossing", no fuzzing but the one crossing made on purpose (below).

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
# reclaims, makes unavailable and removes them (-k): at least a quarter
# of the inputs (10,000 of the default 40,000) must change state, and
# about half of root's 32,000 do. The console shows warnings and worse
# meanwhile, not the lender's line per state change (the kernel's log
# keeps them).
nl_fuzz() {
	together=
	case $CASE in
	requests) ;;
	concurrent) together=1 ;;
	crossing)
		nl_crossing
		return
		;;
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
	inputs=$(fuzz_inputs 40000)
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
	fuzz_changed $((inputs / 4))
	fuzz_as nobody $((seed + 100)) $((inputs / 5)) "$@"
	[ -n "$together" ] || [ "$NODE_ID" = 2 ] || vmctl barrier turn
	vmctl barrier fuzzed
}

# nl_crossing: node 2 reclaims the NVMe (fdid 20000) while node 1's
# return of it is under way: announced to node 2, and held there by the
# test hook (lend/borrower.c, test_return_hold) before node 1's nvme
# driver lets go. The reclaim must wait for the return with the function
# running, not stop it: node 1's driver then shuts the device down as in
# any return, and neither node logs a fault (a driver waiting for a
# stopped device, its late reads faulting in node 2's IOMMU once the
# reclaim gave up waiting).
nl_crossing() {
	hold=/sys/module/smartio_lend/parameters/test_return_hold
	if [ "$NODE_ID" = 1 ]; then
		echo 1 >"$hold"
		smartioctl return 20000 &
		pid=$!
		wait_until 60 sh -c 'dmesg | grep -q "fdid 20000: test hook: the return holds"' ||
			fail "the return was not announced"
		vmctl barrier announced
		vmctl barrier reclaiming
		echo 0 >"$hold"
		wait "$pid" || fail "the return failed"
		! dmesg | grep "as of a device gone" ||
			fail "the return was taken for a surprise removal"
	else
		vmctl barrier announced
		dmesg | grep -q "node 1 announces its return" ||
			fail "node 1's return was not announced here"
		smartioctl device reclaim 20000 &
		pid=$!
		wait_until 60 sh -c 'dmesg | grep -q "fdid 20000: reclaiming from node 1, which is returning it: waiting for its return"' ||
			fail "the reclaim did not wait for the announced return"
		vmctl barrier reclaiming
		wait "$pid" || fail "the reclaim failed"
		! dmesg | grep "did not let go of it" ||
			fail "the reclaim took the device before its return"
		dmesg | grep -q "returned by node 1" ||
			fail "node 1 did not return the device"
	fi
	vmctl barrier fuzzed
}
