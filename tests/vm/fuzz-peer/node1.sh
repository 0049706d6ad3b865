#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The target of a hostile peer (see node0.sh): node 2 lends its NVMe,
# exports segment 7 to node 1 and borrows node 1's NVMe; node 1 then sends
# it random and malformed messages. Afterwards node 2 lends the same and,
# once it borrows node 1's NVMe again if the peer took it back, holds the
# same windows and pages as before and no more kmalloc objects from any
# allocating site (fuzz.sh, no_leak); then it lends and borrows.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../guest/fuzz.sh
. /usr/local/lib/vmtest/fuzz.sh

# ring_case: node 2's side of node0.sh's: after each record of broken
# framing, our receiver stopped at it (its one line), node 1 went silent
# to us and was lost, and joined again.
ring_case() {
	lender_ready
	smartio-seg create 7 1M
	smartio-seg export 7 1
	vmctl barrier exported
	n=0
	for kind in type pad huge short; do
		vmctl barrier "broken-$kind"
		n=$((n + 1))
		wait_until 30 log_more "node 1: receive ring corrupt (-74) at " $((n - 1)) ||
			fail "node 1's $kind record did not stop our receiver"
		wait_until 30 log_more ": node 1 silent for [0-9]* ms, its link up: lost$" $((n - 1)) ||
			fail "node 1 was not lost after its $kind record"
		wait_until 60 log_more ": node 1 joined " $n ||
			fail "node 1 did not join again after its $kind record"
		vmctl barrier "rejoined-$kind"
	done
	[ "$(log_count "receive ring corrupt")" = 4 ] ||
		fail "our receiver stopped $(log_count "receive ring corrupt") times, not 4"
	vmctl barrier finished
	smartio-seg remove 7 force
	rmmod smartio_lend smartio_ntb smartio
	ntb_unload
}

[ "$CASE" != ring ] || { ring_case; exit 0; }

# borrow_nvme FDID: borrows FDID, an NVMe, and waits for its block device.
borrow_nvme() {
	line=$(smartioctl borrow "$1") || fail "cannot borrow $1"
	echo "node$NODE: $line"
	wait_until 30 nvme_ns_of "${line##* as }" >/dev/null ||
		fail "no block device on ${line##* as }"
}

lender_ready
bdf=$(nvme_bdf)
lend_function "$bdf" >/dev/null
smartio-seg create 7 1M
smartio-seg export 7 1
vmctl barrier lent
borrow_nvme 10000
leak_mark
malformed=$(received_malformed)
vmctl barrier ready

vmctl barrier fuzzed
# Every record the hostile peer broke so that the decoder must refuse it
# reached the decoder, and was refused: no more, no fewer.
refused=$(vmctl get refused)
malformed=$(($(received_malformed) - malformed))
echo "node$NODE: $malformed malformed messages dropped, $refused sent"
[ "$malformed" = "$refused" ] ||
	fail "$malformed messages dropped as malformed, the hostile peer sent $refused"
smartioctl device list
[ "$(local_devices)" = "20000 $bdf available" ] ||
	fail "node 2 does not lend its NVMe alone, available, after the fuzzing"
if smartioctl device list | grep -q "^10000: .* borrowed by 2 as "; then
	echo "node$NODE: node 1's NVMe is still borrowed"
else
	dmesg | grep "fdid 10000 lost: its lender reclaimed it" ||
		fail "node 1's NVMe is gone, not by a RECLAIMED"
	borrow_nvme 10000
fi
# Node 1 asked where segment 7 is, and never said it let go: its
# connections, which smartio keeps until then, go with the segment,
# removed by force, and the segment is made again as it was.
smartio-seg remove 7 force
smartio-seg create 7 1M
smartio-seg export 7 1
no_leak
vmctl barrier restored

vmctl barrier written
sum=$(vmctl get sum)
check_written 20000 "$bdf" "$sum"
smartioctl return 10000 || fail "cannot return 10000"
sum=$(write_borrowed 10000)
vmctl put sum2 "$sum"
smartioctl device remove 20000
smartio-seg remove 7
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
