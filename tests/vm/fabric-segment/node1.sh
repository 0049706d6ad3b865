#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 creates a 64 MiB segment and exports it to node 1, checks that an
# unprivileged user can change nothing, and compares the checksum of what
# node 1 wrote with the one node 1 computed.
set -eu
# shellcheck source=../guest/segment.sh
. /usr/local/lib/vmtest/segment.sh

load_fabric
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }

smartio-seg create 7 64M
smartio-seg export 7 1
[ "$(smartio-seg sum local 7)" = "$(smartio-seg sum local 7)" ] || fail "sum unstable"
zero=$(smartio-seg sum local 7)
smartio-seg create 8 1M		# not exported

smartioctl segment list | tee /tmp/segments
grep -qx 'segment 7: node 2 size 67108864 local exported' /tmp/segments ||
	fail "segment 7 not listed exported"
grep -qx 'segment 8: node 2 size 1048576 local' /tmp/segments ||
	fail "segment 8 not listed"

expect_eperm smartio-seg create 9 1M
expect_eperm smartio-seg export 8 all
expect_eperm smartio-seg remove 8
expect_eperm smartio-seg sum local 7
[ "$(smartio-seg sum local 7)" = "$zero" ] || fail "segment changed"
vmctl barrier created

sum=$(vmctl get sum)
mine=$(smartio-seg sum local 7)
echo "node1: node 1 wrote sum $sum, segment 7 holds sum $mine"
[ "$sum" = "$mine" ] || fail "segment 7 does not hold what node 1 wrote"
[ "$mine" != "$zero" ] || fail "segment 7 unchanged"
vmctl barrier checked

sum=$(vmctl get edu_sum)
mine=$(smartio-seg sum local 7 1048576 2048)
echo "node1: edu copied sum $sum, segment 7 + 1 MiB holds sum $mine"
[ "$sum" = "$mine" ] || fail "segment 7 does not hold what edu copied"
vmctl barrier edu_checked

# Node 1 let go of both (its closing may come a little after): remove
# both, then they are gone.
segment_remove 8
segment_remove 7
[ "$(smartioctl -j segment list)" = "[]" ] || fail "segments listed after removal"
rc=0
smartio-seg sum local 7 2>/dev/null || rc=$?
[ $rc = 1 ] || fail "segment 7 still there after remove"
vmctl barrier finished
windows_idle || { show_adapters; fail "windows left open for node 1"; }
rmmod smartio_ntb smartio
ntb_unload
