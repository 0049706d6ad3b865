#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1 across an NTB that forwards only listed
# requesters (the emulated NTB's requester-ID table, its size read from the
# device). While lent, the table toward node 1 holds the NVMe's requester
# ID; returning it frees the entry. A table filled to its size (with dummy
# IDs, by hand) makes the borrow fail with one message naming the table and
# its size. With the NVMe borrowed again, its entry is removed by hand: the
# NVMe's DMA no longer crosses, and node 1's reads of it fail.
#
# The lender's QEMU logs the NVMe's dropped requests (test.conf).
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
. ./requester.sh

lend_nvme
bdf=$(nvme_bdf)
size=$(table_size 1)
[ "$size" != none ] || { show_requesters; fail "the NTB has no requester-ID table"; }
echo "node$NODE: requester-ID table toward node 1: $size entries"
[ "$(users_of 1 "$bdf")" = none ] || { show_requesters; fail "$bdf listed before it is lent"; }
# Bad input changes nothing.
expect_knob_error add 1 "$bdf" extra
expect_knob_error add 0 "$bdf"
expect_knob_error add 1 00:1f.8
expect_knob_error add 1 0001:00:01.0
expect_knob_error list 1 "$bdf"
expect_knob_error remove 1 "$bdf"
[ "$(users_of 1 "$bdf")" = none ] || { show_requesters; fail "bad input listed $bdf"; }
vmctl barrier ready

vmctl barrier borrowed
show_requesters
[ "$(users_of 1 "$bdf")" = 1 ] || fail "the lent $bdf is not listed once toward node 1"
vmctl barrier returned
[ "$(users_of 1 "$bdf")" = none ] || { show_requesters; fail "$bdf still listed after its return"; }

# Fill the table with dummy IDs (bus f0) until it says it is full: the
# driver's two entries (root complex, the NTB) and these are its size.
dummies=0
while requester_knob add 1 "$(printf '0000:f0:%02x.%d' $((dummies / 8)) $((dummies % 8)))" 2>/tmp/knob.err; do
	dummies=$((dummies + 1))
	[ $dummies -lt 256 ] || fail "256 dummy IDs listed in a table of $size"
done
grep -q "No space left on device" /tmp/knob.err || { cat /tmp/knob.err; fail "the full table did not answer ENOSPC"; }
echo "node$NODE: table full after $dummies dummy IDs"
[ $((dummies + 2)) = "$size" ] ||
	fail "$dummies dummy IDs and the driver's 2 fill a table of $size entries"
log_more "requester table full ($size entries): cannot let 0000:f0:" 0 ||
	fail "no table-full message for the dummy that did not fit"
vmctl barrier full
vmctl barrier tried
log_more "requester table full ($size entries): cannot let $bdf reach node 1" 0 ||
	fail "no table-full message naming $bdf"
[ "$(users_of 1 "$bdf")" = none ] || { show_requesters; fail "$bdf listed after a failed borrow"; }
requester_knob remove 1 0000:f0:00.0 || fail "cannot remove a dummy ID"
vmctl barrier room

vmctl barrier borrowed_again
[ "$(users_of 1 "$bdf")" = 1 ] || { show_requesters; fail "$bdf not listed after the second borrow"; }
requester_knob remove 1 "$bdf" || fail "cannot remove $bdf's entry by hand"
[ "$(users_of 1 "$bdf")" = none ] || { show_requesters; fail "$bdf still listed"; }
vmctl barrier unlisted
vmctl barrier failed

vmctl barrier returned_again
[ "$(users_of 1 "$bdf")" = none ] || { show_requesters; fail "$bdf listed after the return"; }
d=1
while [ $d -lt "$dummies" ]; do
	requester_knob remove 1 "$(printf '0000:f0:%02x.%d' $((d / 8)) $((d % 8)))" ||
		fail "cannot remove dummy $d"
	d=$((d + 1))
done
[ "$(grep -c "^  " "$requesters")" = 0 ] || { show_requesters; fail "entries left"; }
smartioctl device unavailable 20000
smartioctl device remove 20000
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
