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
# user gives it back. Lost: node 2 reclaims it; the user is told in its
# callback, where the shadow reads all-ones, and the handle stays the
# user's until it gives it back.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

api=/sys/kernel/debug/smartio_borrow_test

# api_borrow DRIVER: the test driver borrows 20000, only DRIVER binding
# ("-" none, "*" any); prints the shadow's PCI name.
api_borrow() {
	echo "20000 $1" >"$api/borrow" ||
		fail "borrow 20000 ($1): $(dmesg | grep "smartio_borrow_test: fdid 20000 not borrowed" | tail -1)"
	dmesg | sed -n 's/.*smartio_borrow_test: fdid 20000 borrowed as \(.*\)$/\1/p' | tail -n 1
}

# api_give_back SHADOW: the test driver gives 20000 back; SHADOW goes.
api_give_back() {
	echo 20000 >"$api/give_back" || fail "give_back 20000 failed"
	not_present "$1" || fail "$1 still there after the give back"
	[ -z "$(cat "$api/held")" ] || fail "still held: $(cat "$api/held")"
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

shadow=$(api_borrow -)
vmctl barrier borrowed-again
vmctl barrier reclaimed
wait_until 30 grep -qx "20000 $shadow lost" "$api/held" || fail "held: $(cat "$api/held")"
dmesg | grep -q "smartio_borrow_test: fdid 20000 lost, its shadow $shadow reads 0xffff\$" ||
	fail "no loss told: $(dmesg | grep "smartio_borrow_test: fdid 20000 lost" | tail -1)"
wait_until 30 not_present "$shadow" || fail "$shadow still there after the reclaim"
! echo 20000 >"$api/reset" 2>/dev/null || fail "a lost device was reset"
api_give_back "$shadow"
rmmod smartio_borrow_test
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
