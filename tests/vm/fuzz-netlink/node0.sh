#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's NVMe; then each node fuzzes the smartio netlink
# family in turn, as root and as nobody (smartio-nl-fuzz: every
# command, do and dump, with random attributes, lengths, values and
# flags; the mutating ones meet the real devices, fdids, node ids and PCI
# names). Every request must be answered, and every one the family must
# refuse refused; neither node may log a fault. Afterwards node 1 gives
# back what it holds, node 2 lends its NVMe again, node 1 borrows it,
# writes 16 MiB to it and returns it, and node 2 reads the same data
# through its own driver. Each node then holds the windows and pages it
# held before, and no more kmalloc objects from any allocating site
# (fuzz.sh, no_leak).
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../guest/fuzz.sh
. /usr/local/lib/vmtest/fuzz.sh
. ./netlink.sh

borrower_ready
leak_mark
vmctl barrier available
shadow=$(borrow_bound 20000 nvme)
vmctl barrier borrowed

nl_fuzz "$(nvme_bdf)" "$shadow" "$(ntb_ports | head -n 1)"

# What the fuzzers left: what node 1 borrows goes back, what it lends goes.
smartioctl device list | awk '/ borrowed by 1 as / { sub(":$", "", $1); print $1 }' |
	while read -r fdid; do
		smartioctl return "$fdid" || fail "cannot return $fdid after fuzzing"
	done
devices_reset
vmctl barrier returned

fdid=$(vmctl get fdid)
sum=$(write_borrowed "$fdid")
vmctl put sum "$sum"
no_leak
vmctl barrier written
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
