#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 connects to node 2's 64 MiB segment, maps it into this process
# and writes a pseudo-random pattern over all of it through the NTB's
# windows; node1 checks the checksum of what landed in its memory. Then
# QEMU's edu device copies 2 KiB into the segment by DMA at the address
# the NTB layer's map-for-device gave its driver (smartio_edu_test): no
# CPU copies the data; node1 checks it.
set -eu
# shellcheck source=../guest/segment.sh
. /usr/local/lib/vmtest/segment.sh

load_fabric
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
vmctl barrier created

expect_eperm smartio-seg fill 2 7 1
sum=$(smartio-seg fill 2 7 0x5eed) || fail "cannot fill node 2's segment 7"
echo "node0: wrote segment 7 of node 2, sum $sum"
dmesg | grep 'smartio_ntb: segment 7 of node 2' || fail "no connection logged"
vmctl put sum "$sum"
vmctl barrier checked

modprobe smartio_edu_test
echo "2 7 1048576 4242" >"$(edu_test_file first copy)" ||
	fail "edu could not copy into node 2's segment 7"
dmesg | grep 'smartio_edu_test.*copied 2048 bytes to segment 7 of node 2' ||
	fail "no copy logged"
vmctl put edu_sum "$(smartio-seg pattern 4242 2048)"
vmctl barrier edu_checked
rmmod smartio_edu_test

# A segment that is not there, or not exported to us: one clear error.
rc=0
out=$(smartio-seg fill 2 8 1 2>&1) || rc=$?
echo "node0: $out"
if ! { [ $rc = 1 ] && echo "$out" | grep -q "No such file or directory"; }; then
	fail "connecting to a missing segment did not fail with ENOENT"
fi
windows_idle || { show_adapters; fail "windows left in use"; }
vmctl barrier finished
rmmod smartio_ntb smartio
ntb_unload
