#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its edu (fdid 20000) and its NVMe controller with a
# controller memory buffer (fdid 20001) to node 1, for peer-to-peer DMA
# between them and node 1's own devices, and gets both back. Meanwhile
# node 1 has the edu write to a page of node 2's memory (the guard of
# smartio_edu_test, here), which nothing maps for it, near address 0, and
# into the NVMe's buffer once the NVMe is back: our IOMMU stops all three,
# with a fault for the edu at each address, and the page holds what it
# held.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

load_lend
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
edu=$(pci_name_of 0x1234 0x11e8 "edu")
nvme=$(nvme_bdf)
smartioctl device add "$edu"
smartioctl device add "$nvme"
smartioctl device available 20000
smartioctl device available 20001
# The buffer's bus address: where the borrowed edu reaches it.
vmctl put nvme_bar2 "$(sed -n 3p "/sys/bus/pci/devices/$nvme/resource" | cut -d' ' -f1)"
# The edu is the stub's now: the test driver takes none of ours.
modprobe smartio_edu_test
vmctl barrier available
guard=/sys/kernel/debug/smartio_edu_test/guard
# The page must lie where none of the edu's windows leads: an address in
# one is the borrower's to reach (its DMA window's IOVAs may cover our
# RAM's physical addresses). The test driver draws it below 16 MiB, under
# every window; that it is is checked here.
edu_windows() {
	dmesg | sed -n "s/.* $edu: for node 1: DMA window at \(0x[0-9a-f]*\)-\(0x[0-9a-f]*\), interrupt window at \(0x[0-9a-f]*\)-\(0x[0-9a-f]*\) .*/\1 \2 \3 \4/p" | tail -n 1
}
# Logged when node 1 borrows it.
edu_lent() {
	[ -n "$(edu_windows)" ]
}
wait_until 60 edu_lent || fail "no windows logged for edu $edu"
windows=$(edu_windows)
in_windows() {
	# shellcheck disable=SC2086 # four numbers, split on purpose
	set -- "$1" $windows
	[ $(($1 >= $2 && $1 <= $3)) = 1 ] || [ $(($1 >= $4 && $1 <= $5)) = 1 ]
}
echo 77 >$guard
read -r guard_phys state <$guard
! in_windows "$guard_phys" ||
	fail "guard page at $guard_phys lies in one of the edu's windows ($windows)"
[ "$state" = intact ] || fail "guard page at $guard_phys is $state from the start"
vmctl put guard "$guard_phys"

# The edu's write into the returned NVMe's buffer faults: the one fault
# at an address above 16 MiB (test.conf), checked below.
phase_begin buffer-returned
vmctl barrier buffer-returned
vmctl barrier strayed
read -r _ state <$guard
[ "$state" = intact ] || fail "the borrowed edu's stray DMA changed our page at $guard_phys"
requester=${edu#0000:}
# Logged from the fault interrupt, maybe a little after node 1 went on.
for addr in "$guard_phys" 0x1000 "$(printf 0x%x "$(vmctl get nvme_bar2)")"; do
	wait_until 10 sh -c "dmesg | grep -q 'DMAR: \[DMA Write NO_PASID\] Request device \[$requester\] fault addr $addr '" ||
		fail "no DMAR fault for edu $edu at $addr"
done
phase_end buffer-returned
echo "node$NODE: edu's stray DMA to $guard_phys, 0x1000 and the returned buffer faulted, our page intact"
rmmod smartio_edu_test

vmctl barrier returned
smartioctl device list | grep -c " available$" | grep -qx 2 ||
	fail "not both available again after the return"
smartioctl device unavailable 20000
smartioctl device unavailable 20001
[ "$(driver_of "$nvme")" = nvme ] || fail "nvme did not take $nvme back"
smartioctl device remove 20000
smartioctl device remove 20001
rmmod smartio_lend smartio_ntb smartio
ntb_unload
