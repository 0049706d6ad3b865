#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Segments in loopback (two ports of one VM, nodes 1 and 2): node 2 (the
# second adapter) creates a 64 MiB segment and exports it to node 1; node
# 1 maps it through the first adapter's windows and writes a pattern over
# all of it, which node 2's memory then holds; edu copies 2 KiB into it by
# DMA at the map-for-device address. An unprivileged user changes nothing.
set -eu
# shellcheck source=../guest/segment.sh
. /usr/local/lib/vmtest/segment.sh

load_fabric
both_joined() {
	joined 1 && joined 2
}
wait_until 30 both_joined || { show_adapters; fail "adapters did not join"; }

smartio-seg create 7 64M 1
smartio-seg export 7 1
zero=$(smartio-seg sum local 7)
smartioctl segment list | grep -x 'segment 7: node 2 size 67108864 local exported' ||
	fail "segment 7 not listed exported"
expect_eperm smartio-seg create 9 1M
expect_eperm smartio-seg export 7 all
expect_eperm smartio-seg remove 7
expect_eperm smartio-seg fill 2 7 1

sum=$(smartio-seg fill 2 7 0x5eed) || fail "cannot fill node 2's segment 7"
mine=$(smartio-seg sum local 7)
echo "node0: wrote sum $sum through the window, segment 7 holds sum $mine"
[ "$sum" = "$mine" ] || fail "segment 7 does not hold what was written"
[ "$mine" != "$zero" ] || fail "segment 7 unchanged"

modprobe smartio_edu_test
echo "2 7 1048576 4242" >"$(edu_test_file first copy)" ||
	fail "edu could not copy into node 2's segment 7"
sum=$(smartio-seg pattern 4242 2048)
mine=$(smartio-seg sum local 7 1048576 2048)
echo "node0: edu copied sum $sum, segment 7 + 1 MiB holds sum $mine"
[ "$sum" = "$mine" ] || fail "segment 7 does not hold what edu copied"
rmmod smartio_edu_test

# Removing the segment revokes its grant: then nothing is in use. The
# other port's closing of it is an event through the ring.
segment_remove 7
windows_idle || { show_adapters; fail "windows left in use"; }
rmmod smartio_ntb smartio
ntb_unload
