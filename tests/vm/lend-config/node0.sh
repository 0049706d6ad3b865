#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's NVMe and edu. The NVMe's shadow lists neither
# its SR-IOV nor its ARI capability, and offers FLR. Node 1 writes what a
# borrower must not: the NVMe's SR-IOV NumVFs and control, its power
# state, its ACS control if it has one, a BAR, extended config space
# outside every capability, and the edu's config space past its 256
# bytes; through sysfs (as setpci does: the PCI core drops the result)
# and as a driver does, which gets the error. Node 2 reads each register as it was. A cache line size, which a
# borrower may set, goes through. A power state node 2 sets reads so
# here. Then node 1 resets the NVMe (FLR, a reset on node 2), and its nvme
# driver writes and reads data again.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
. ./config.sh

# nvme_io DEV: 16 MiB of random data written to DEV and read back the
# same; prints their checksum.
nvme_io() {
	dd if=/dev/urandom of=/tmp/data bs=1M count=16 2>/dev/null
	sum=$(md5sum </tmp/data)
	dd if=/tmp/data of="$1" bs=1M oflag=direct 2>/dev/null ||
		fail "cannot write $1"
	rm /tmp/data
	[ "$(dd if="$1" bs=1M count=16 iflag=direct 2>/dev/null | md5sum)" = "$sum" ] ||
		fail "$1 reads back other data"
	echo "$sum"
}

# power_state_seen STATE: the shadow's power state reads STATE, node 2's,
# both as a driver reads it and through sysfs.
power_state_seen() {
	for how in driver sysfs; do
		wait_until 5 power_state_is "$shadow" "$pm" $how "$1" ||
			fail "read by a $how, the shadow's power state is not D$1, node 2's"
	done
}

load_lend
modprobe smartio_pcicfg_test
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
vmctl barrier available

shadow=$(borrow_bound 20000 nvme)
edu=$(borrow_bound 20001 none)
sriov=$(vmctl get sriov)
pm=$(vmctl get pm)
acs=$(vmctl get acs)
sys=/sys/bus/pci/devices/$shadow
! ext_cap_of "$shadow" 0x10 >/dev/null || fail "the shadow lists SR-IOV"
! ext_cap_of "$shadow" 0x0e >/dev/null || fail "the shadow lists ARI"
[ ! -e "$sys/sriov_numvfs" ] || fail "the shadow has SR-IOV in sysfs"
[ "$(cap_of "$shadow" 0x01)" = "$pm" ] || fail "the shadow lists no power management at $pm"
echo "node$NODE: $shadow: reset methods $(cat "$sys/reset_method")"
grep -qw flr "$sys/reset_method" || fail "the shadow offers no FLR"
! grep -qw pm "$sys/reset_method" || fail "the shadow offers a power management reset"
wait_until 30 nvme_ns_of "$shadow" >/dev/null || fail "no block device for the borrowed NVMe"
dev=$(nvme_ns_of "$shadow")
nvme_io "$dev" >/dev/null
echo "node$NODE: $shadow is $dev, written and read back"
vmctl barrier borrowed
vmctl barrier snapshot

# Through sysfs: posted, the writer is not told.
bar0=$(cfg_read "$shadow" 0x10 4)
cfg_write "$shadow" $((sriov + 0x10)) 2 1
cfg_write "$shadow" $((sriov + 8)) 2 0x9
cfg_write "$shadow" $((pm + 4)) 2 0x3
cfg_write "$shadow" 0x10 4 0xfffffff0
cfg_write "$shadow" 0xffc 4 0x12345678
[ "$acs" = none ] || cfg_write "$shadow" $((acs + 6)) 2 0x1f
echo "node$NODE: BAR 0 sized: $(cfg_read "$shadow" 0x10 4)"
cfg_write "$shadow" 0x10 4 "$bar0"
[ "$(cfg_read "$shadow" 0x10 4)" = "$bar0" ] || fail "BAR 0 reads $(cfg_read "$shadow" 0x10 4), not $bar0"
[ $(($(cfg_read "$shadow" $((pm + 4)) 2) & 3)) = 0 ] ||
	fail "the shadow's power state is not D0: $(cfg_read "$shadow" $((pm + 4)) 2)"
[ "$(cfg_read "$shadow" $((sriov + 0x10)) 2)" = 0x0 ] ||
	fail "the shadow's copy took the refused NumVFs"
# As a driver: the writer gets the lender's verdict.
driver_write -5 "$shadow" $((sriov + 0x10)) 2 1
driver_write -5 "$shadow" $((pm + 4)) 2 0x3
driver_write -14 "$edu" 0x100 4 0x12345678
driver_write 0 "$shadow" 0x0c 1 0x10
[ "$(cfg_read "$shadow" 0x0c 1)" = 0x10 ] || fail "the cache line size did not stick"
vmctl put cls 0x10
vmctl barrier written
vmctl barrier checked

# The NVMe's power state changed on node 2: it reads so where a driver
# may sleep (from node 2), and through sysfs once read from node 2 for a
# later reader.
vmctl barrier d3hot
power_state_seen 3
vmctl barrier d3hot-seen
vmctl barrier d0
power_state_seen 0
vmctl barrier d0-seen

# FLR: node 2 resets the function, which works on.
echo 1 >"$sys/reset" || fail "the reset of $shadow failed"
ctrl=$(nvme_ctrl_of "$shadow") || fail "no NVMe controller on $shadow"
wait_until 30 nvme_live "$ctrl" || fail "$ctrl is not up after the reset"
sum=$(nvme_io "$dev")
echo "node$NODE: $dev written and read back after the reset"
vmctl put sum "$sum"
vmctl barrier reset
vmctl barrier reset-checked

smartioctl return 20000 || fail "return 20000 failed"
smartioctl return 20001 || fail "return 20001 failed"
not_present "$shadow" || fail "shadow device still there"
vmctl barrier returned
vmctl barrier finished
rmmod smartio_pcicfg_test smartio_lend smartio_ntb smartio
ntb_unload
