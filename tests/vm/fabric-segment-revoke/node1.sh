#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 exports segments 7 and 8 to node 1. Once node 1 closed segment 7,
# it removes it. While node 1 maps segment 8, its removal is refused
# (EBUSY); then, by case: it removes it by force (node 1 lets go first),
# or unbinds its own NTB (the segments of its adapter go), or node 1
# unbinds its NTB (node 1 leaves: segment 8 has no user any more).
set -eu
# shellcheck source=../guest/segment.sh
. /usr/local/lib/vmtest/segment.sh

load_fabric
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
smartio-seg create 7 4M
smartio-seg export 7 1
smartio-seg create 8 4M
smartio-seg export 8 1
vmctl barrier created
vmctl barrier filled
# Node 1 closed it.
segment_remove 7

vmctl barrier held
rc=0
out=$(smartio-seg remove 8 2>&1) || rc=$?
echo "node$NODE: smartio-seg remove 8: $out"
{ [ $rc = 1 ] && echo "$out" | grep -q "Device or resource busy"; } ||
	fail "removing segment 8 while node 1 maps it did not fail with EBUSY"
vmctl barrier refused
case $CASE in
removed)
	smartio-seg remove 8 force || fail "segment 8 not removed by force"
	dmesg | grep -q "segment 8 removed by force" || fail "removal not logged"
	;;
owner-unbound)
	ntb_unbind
	;;
connector-unbound)
	wait_until 30 not_joined 1 || fail "node 1 did not leave"
	smartio-seg remove 8 || fail "segment 8 not removable once node 1 left"
	;;
esac
vmctl barrier torn
case $CASE in
owner-unbound) ntb_bind 1 ;;
*) ;;
esac
[ "$(smartioctl -j segment list)" = "[]" ] || fail "segments listed after removal"
vmctl barrier finished
wait_until 10 windows_idle || { show_adapters; fail "windows left open for node 1"; }
rmmod smartio_ntb smartio
ntb_unload
