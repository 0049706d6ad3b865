#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The unmodified upstream ntb_hw_switchtec probes while the other
# partition's host is off, as on the hardware, where the switch keeps that
# partition: its probe configures the other partition's control (the
# shared window's LUT entry, through LOCK, writes and CFG), which the
# emulated switch keeps for the absent host. The link stays down; a second
# load does it all again on what was kept.
set -eu

# shellcheck source=../guest/testlib.sh
. /usr/local/lib/vmtest/testlib.sh

registered() {
	[ "$(dmesg | grep -c 'switchtec[0-9]*: NTB device registered')" -eq "$1" ]
}

refused() {
	dmesg | grep -q 'switchtec[0-9]*: failed to register ntb device'
}

probed() {
	registered "$1" || refused
}

for load in 1 2; do
	modprobe switchtec
	modprobe ntb_hw_switchtec
	# switchtec.ko's probe may still be adding the NTB device.
	wait_until 60 probed "$load" ||
		{ dmesg | grep -i switchtec; fail "load $load: ntb_hw_switchtec's probe did not end"; }
	if refused; then
		dmesg | grep -i switchtec
		fail "load $load: ntb_hw_switchtec refused the partition without its peer"
	fi
	[ -n "$(ls /sys/bus/ntb/devices)" ] || fail "load $load: no NTB device in sysfs"
	if dmesg | grep -q 'switchtec[0-9]*: ntb link up'; then
		fail "load $load: the link came up without a peer"
	fi
	rmmod ntb_hw_switchtec switchtec
done
echo "ntb-switchtec-alone: ntb_hw_switchtec probed twice without its peer"
