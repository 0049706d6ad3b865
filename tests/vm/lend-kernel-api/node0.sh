#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A kernel user borrows node 2's NVMe through smartio_lend's borrowing
# API (include/smartio/borrow.h), as the mdev driver will: the test
# driver smartio_borrow_test. With no driver: the shadow is there, reads
# as the NVMe, nothing binds to it, smartioctl cannot return it (its user
# holds it), a second borrow is refused, a reset reaches the lender, and
# giving it back returns it. With a driver named: only that one binds
# (nvme does; ahci, named, leaves it alone). Any driver: unloading the
# user gives it back. Lost: node 2 reclaims it; what the user mapped for
# it is unmapped, then the user is told in its callback, where the shadow
# reads all-ones, and the handle stays the user's until it gives it back.
#
# Memory at device addresses of the user's choosing (mdev's guest-physical
# ones): the user borrows node 2's edu (20001) naming [0, 1 GiB) as its
# range, so node 2 lays the edu's own windows out of it (node1.sh checks
# where), and maps pages at 0x1000 and 0x200000: the edu copies from one
# to the other through its buffer, and the words arrive. A range that
# meets one mapped before, or the edu's DMA window on node 2, is refused
# with one line saying why; a range not in whole pages refuses the
# borrow. Unmapping, and giving back with a range mapped, empty the IOVA
# window again.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

api=/sys/kernel/debug/smartio_borrow_test

# api_borrow DRIVER [FDID [RANGES]]: the test driver borrows FDID (20000),
# only DRIVER binding ("-" none, "*" any), mapping at RANGES; prints the
# shadow's PCI name.
api_borrow() {
	echo "${2:-20000} $1 ${3:-}" >"$api/borrow" ||
		fail "borrow ${2:-20000} ($1): $(dmesg | grep "smartio_borrow_test: fdid ${2:-20000} not borrowed" | tail -1)"
	dmesg | sed -n "s/.*smartio_borrow_test: fdid ${2:-20000} borrowed as \(.*\)\$/\1/p" | tail -n 1
}

# api_give_back SHADOW [FDID]: the test driver gives FDID (20000) back;
# SHADOW goes.
api_give_back() {
	echo "${2:-20000}" >"$api/give_back" || fail "give_back ${2:-20000} failed"
	not_present "$1" || fail "$1 still there after the give back"
	[ -z "$(cat "$api/held")" ] || fail "still held: $(cat "$api/held")"
}

# logged PATTERN: a line of this node's log matches PATTERN (grep -E).
logged() {
	dmesg | grep -qE "$1" || fail "not logged: $1"
}

# listed_available: 20000 is listed available again.
listed_available() {
	smartioctl device list | grep -q "^20000: .* available\$"
}

borrower_ready
modprobe smartio_borrow_test
vmctl barrier available

shadow=$(api_borrow -)
[ -n "$shadow" ] || fail "no shadow named"
[ "$(driver_of "$shadow")" = none ] || fail "$(driver_of "$shadow") bound to $shadow"
[ "$(cat "/sys/bus/pci/devices/$shadow/vendor")" = 0x1b36 ] ||
	fail "$shadow reads vendor $(cat "/sys/bus/pci/devices/$shadow/vendor")"
grep -qx "20000 $shadow borrowed" "$api/held" || fail "held: $(cat "$api/held")"
smartioctl device list | grep -q "^20000: .* node 2 borrowed by 1 as $shadow\$" ||
	fail "not listed borrowed: $(smartioctl device list)"
expect_error EBUSY smartioctl return 20000
expect_error EBUSY smartioctl borrow 20000
! echo "20000 -" >"$api/borrow" 2>/dev/null || fail "borrowed 20000 twice"
echo 20000 >"$api/reset" || fail "reset 20000 failed"
vmctl barrier reset
api_give_back "$shadow"
wait_until 30 listed_available || fail "not available after the give back"
vmctl barrier given-back

shadow=$(api_borrow nvme)
[ "$(driver_of "$shadow")" = nvme ] || fail "nvme did not bind to $shadow"
wait_until 30 nvme_ns_of "$shadow" >/dev/null || fail "no namespace on $shadow"
api_give_back "$shadow"

shadow=$(api_borrow ahci)
[ "$(driver_of "$shadow")" = none ] || fail "$(driver_of "$shadow") bound to $shadow, not only ahci"
api_give_back "$shadow"

shadow=$(api_borrow '*')
[ "$(driver_of "$shadow")" = nvme ] || fail "nvme did not bind to $shadow"
rmmod smartio_borrow_test
not_present "$shadow" || fail "$shadow still there after its user was unloaded"
modprobe smartio_borrow_test

pages=$(iova_pages)
shadow=$(api_borrow -)
echo "20000 1000 1" >"$api/dma_map" || fail "cannot map a page for 20000"
vmctl barrier borrowed-again
vmctl barrier reclaimed
wait_until 30 grep -qx "20000 $shadow lost" "$api/held" || fail "held: $(cat "$api/held")"
dmesg | grep -q "smartio_borrow_test: fdid 20000 lost, its shadow $shadow reads 0xffff\$" ||
	fail "no loss told: $(dmesg | grep "smartio_borrow_test: fdid 20000 lost" | tail -1)"
# Unmapped before the user was told: the user may free the pages there.
dmesg | grep -E "fdid 20000: 1 pages its user mapped, in 1 ranges: unmapped|fdid 20000 lost, its shadow" |
	head -n 1 | grep -q "pages its user mapped" || fail "the user's page not unmapped before its loss was told"
[ "$(iova_pages)" = "$pages" ] || fail "$(iova_pages) pages in the IOVA window after the loss, not $pages"
echo "20000 1000" >"$api/dma_unmap" || fail "unmapping what a loss unmapped failed"
wait_until 30 not_present "$shadow" || fail "$shadow still there after the reclaim"
! echo 20000 >"$api/reset" 2>/dev/null || fail "a lost device was reset"
api_give_back "$shadow"

# The edu, mapping memory at addresses of the user's choosing.
! echo "20001 - 0+1001" >"$api/borrow" 2>/dev/null || fail "borrowed naming a range not in whole pages"
logged "fdid 20001 not borrowed: a range of device addresses is not in whole pages \(-22\)"
edu=$(api_borrow - 20001 0+40000000)
vmctl barrier edu-borrowed
echo "20001 1000 2" >"$api/dma_map" || fail "cannot map 2 pages at 0x1000"
echo "20001 200000 1" >"$api/dma_map" || fail "cannot map a page at 0x200000"
[ "$(iova_pages)" = $((pages + 3)) ] || fail "$(iova_pages) pages in the IOVA window, not $((pages + 3))"
# Across the two pages at 0x1000.
echo "20001 1c00 200000 800" >"$api/edu_copy" ||
	fail "the edu's copy failed: $(dmesg | grep "fdid 20001: edu copied" | tail -1)"
logged "fdid 20001: edu copied 0x800 bytes from 0x1c00 to 0x200000: they match\$"
! echo "20001 2000 1" >"$api/dma_map" 2>/dev/null || fail "mapped 0x2000 twice"
logged "$edu: fdid 20001: device addresses 0x2000-0x2fff not mapped: they meet a range its user mapped before\$"
window=$(vmctl get edu_dma_window)
! echo "20001 ${window#0x} 1" >"$api/dma_map" 2>/dev/null || fail "mapped a page over the edu's DMA window at $window"
logged "$edu: fdid 20001: device addresses $window-0x[0-9a-f]+ not mapped: its lender cannot map them there \(its log says why\) \(-EEXIST\)\$"
vmctl barrier edu-refused
echo "20001 1000" >"$api/dma_unmap" || fail "cannot unmap 0x1000"
[ "$(iova_pages)" = $((pages + 1)) ] || fail "$(iova_pages) pages in the IOVA window after an unmap, not $((pages + 1))"
api_give_back "$edu" 20001
logged "fdid 20001: 1 pages its user mapped, in 1 ranges: unmapped\$"
[ "$(iova_pages)" = "$pages" ] || fail "$(iova_pages) pages in the IOVA window after the give back, not $pages"
rmmod smartio_borrow_test
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
