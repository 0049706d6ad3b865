#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A hostile peer: node 1 loads smartio_hostile_peer, which sends node 2
# random and malformed messages of every op over the messaging channel
# (random ops, payloads, lengths and headers, as requests, events and raw
# records with broken framing, sequence numbers and lengths), and valid
# ones out of order, with node 2's real state in them:
# the NVMe node 2 lends (20000), the one it borrowed from node 1 (10000),
# the segment it exported to node 1 (7). Every answer the scenario knows
# must come. At least a third of the inputs must reach node 2's decoder
# broken, and a fortieth each op's handler (the report's counts); node 2
# must have dropped as malformed exactly the records the decoder must
# refuse. Node 2 must log no fault and leak nothing (node1.sh), and
# both must lend and borrow afterwards: node 1 borrows node 2's NVMe and
# writes to it, node 2 reads it back; node 2 borrows node 1's and writes
# to it, node 1 reads it back.
#
# Cases: "wire", and "config", in which the random config writes reach
# node 2's NVMe while node 1 holds it; and "ring" (ring_case below).
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../guest/fuzz.sh
. /usr/local/lib/vmtest/fuzz.sh

# ring_case: the ring's framing broken, one way at a time: node 1 sends
# node 2 a record whose ring header breaks the scheme (the hostile peer's
# ring file); node 2 reads nothing more from us, loses us when we have
# been silent to it for its peer_timeout_ms, and we join again. Each time
# a segment node 2 exports to us then takes our writes: messages flow
# both ways again.
ring_case() {
	borrower_ready
	modprobe smartio_hostile_peer
	vmctl barrier exported
	joins=1
	for kind in type pad huge short; do
		wait_until 10 sh -c "echo '2 $kind' >/sys/kernel/debug/smartio_hostile_peer/ring" ||
			fail "cannot send node 2 a record of broken framing ($kind)"
		vmctl barrier "broken-$kind"
		joins=$((joins + 1))
		wait_until 60 log_more ": node 2 joined " $((joins - 1)) ||
			fail "node 2 did not join us again after our $kind record"
		wait_until 30 joined 2 || fail "node 2 left again after our $kind record"
		smartio-seg fill 2 7 "0x$joins" >/dev/null ||
			fail "cannot fill node 2's segment 7 after our $kind record"
		vmctl barrier "rejoined-$kind"
	done
	rmmod smartio_hostile_peer
	vmctl barrier finished
	rmmod smartio_lend smartio_ntb smartio
	ntb_unload
}

case $CASE in
wire) config=0 ;;
config) config=1 ;;
ring) ring_case; exit 0 ;;
*) fail "no case $CASE" ;;
esac

borrower_ready
bdf=$(nvme_bdf)
lend_function "$bdf" >/dev/null
vmctl barrier lent
vmctl barrier ready

report=/sys/kernel/debug/smartio_hostile_peer/report
inputs=$(fuzz_inputs 300000)
seed=$(fuzz_seed 3)
modprobe smartio_hostile_peer
start=$(date +%s)
rc=0
# shellcheck disable=SC2320 # the write's status is echo's
echo "2 $seed $inputs 20000 10000 7 24 $config" \
	>/sys/kernel/debug/smartio_hostile_peer/run || rc=$?
echo "node$NODE: $inputs inputs in $(($(date +%s) - start)) s"
cat "$report" >/tmp/report || fail "no report"
fuzz_report /tmp/report
[ $rc = 0 ] || fail "the run failed (seed $seed)"
grep -qx "violations 0" /tmp/report || fail "violations (seed $seed)"
grep -q "^seed $seed node 2 inputs $inputs " /tmp/report ||
	fail "fewer than $inputs inputs sent"
# The fuzzing reaches the decoder and every handler, not only the checks
# in front of them: at least a third of the inputs are broken records
# that reach the decoder, and a fortieth reach each op's handler
# (100,000 and 7,500 of the default 300,000, whose nine tenths go to the
# 17 ops with a handler, each reaching it unless broken on the way).
fuzz_at_least "$(awk '/^decoder records / { print $3 }' /tmp/report)" \
	$((inputs / 3)) "broken records reached the decoder"
awk '/^handler: / { print $2, $3 }' /tmp/report >/tmp/handlers
[ "$(wc -l </tmp/handlers)" -ge 17 ] || fail "the report names fewer than 17 handlers"
while read -r op n; do
	fuzz_at_least "$n" $((inputs / 40)) "records reached the $op handler"
done </tmp/handlers
vmctl put refused "$(awk '/^decoder records / { print $5 }' /tmp/report)"
rmmod smartio_hostile_peer
vmctl barrier fuzzed

vmctl barrier restored
sum=$(write_borrowed 20000)
vmctl put sum "$sum"
vmctl barrier written
sum=$(vmctl get sum2)
check_written 10000 "$bdf" "$sum"
smartioctl device remove 10000
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
