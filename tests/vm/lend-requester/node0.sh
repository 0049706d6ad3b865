#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's NVMe across NTBs with requester-ID tables (see
# node1.sh): it works and is returned; a borrow while node 2's table is
# full fails with ENOSPC and borrows nothing; borrowed again, once node 2
# has unlisted the NVMe's requester ID, reads of it fail with I/O errors
# (its DMA into our memory no longer crosses node 2's NTB), and it can
# still be returned.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

borrower_ready
vmctl barrier ready

shadow=$(borrow_bound 20000 nvme)
wait_until 30 nvme_ns_of "$shadow" >/dev/null || fail "no block device for the borrowed NVMe"
dev=$(nvme_ns_of "$shadow")
dd if=/dev/urandom of=/tmp/data bs=1M count=8 2>/dev/null
dd if=/tmp/data of="$dev" bs=1M oflag=direct 2>/dev/null || fail "cannot write $dev"
[ "$(dd if="$dev" bs=1M count=8 iflag=direct 2>/dev/null | md5sum)" = "$(md5sum </tmp/data)" ] ||
	fail "$dev reads back other data"
echo "node$NODE: 8 MiB written to and read back from the borrowed $dev"
vmctl barrier borrowed
smartioctl return 20000 || fail "return 20000 failed"
vmctl barrier returned

vmctl barrier full
expect_error ENOSPC smartioctl borrow 20000
smartioctl device list | grep -q "^20000: .* available$" || fail "not available after the failed borrow"
vmctl barrier tried
vmctl barrier room

shadow=$(borrow_bound 20000 nvme)
wait_until 30 nvme_ns_of "$shadow" >/dev/null || fail "no block device after borrowing again"
dev=$(nvme_ns_of "$shadow")
vmctl barrier borrowed_again
vmctl barrier unlisted
rc=0
out=$(dd if="$dev" of=/dev/null bs=4k count=16 skip=1024 iflag=direct 2>&1) || rc=$?
echo "node$NODE: dd of $dev: $out"
[ $rc != 0 ] || fail "$dev still reads with its requester ID unlisted"
echo "$out" | grep -q "Input/output error" || fail "dd of $dev failed, but not with an I/O error"
vmctl barrier failed
smartioctl return 20000 || fail "return 20000 of the dead NVMe failed"
not_present "$shadow" || fail "shadow device $shadow still there"
vmctl barrier returned_again
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
