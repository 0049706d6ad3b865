#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 fills node 2's segment 7 and closes it: node 2 may remove it
# then. It maps node 2's segment 8 and touches it every 10 ms
# (smartio-seg hold); node 2's removal of it is refused meanwhile. Then
# the mapping is torn down under it (test.conf names the cases): the
# process gets SIGBUS within 30 s, the connection is listed lost, nothing
# oopses. The windows onto node 2 are idle after.
set -eu
# shellcheck source=../guest/segment.sh
. /usr/local/lib/vmtest/segment.sh

load_fabric
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
vmctl barrier created
smartio-seg fill 2 7 0x5eed >/dev/null || fail "cannot fill node 2's segment 7"
vmctl barrier filled

smartio-seg hold 2 8 /tmp/held >/tmp/hold.out 2>&1 &
hold=$!
wait_until 30 test -e /tmp/held || { cat /tmp/hold.out; fail "segment 8 never held"; }
echo "node$NODE: node 2's segment 8 mapped and touched"
vmctl barrier held
# Node 2 tries to remove it while we map it, and must be refused; only
# then is it torn down (our own leaving would let its removal through).
vmctl barrier refused

case $CASE in
removed) ;;
owner-unbound) ;;
connector-unbound) ntb_unbind ;;
*) fail "no case $CASE" ;;
esac
vmctl barrier torn

rc=0
timeout 30 sh -c "while kill -0 $hold 2>/dev/null; do sleep 0.2; done" || rc=$?
[ $rc = 0 ] || fail "the process still maps node 2's segment 8 30 s later"
wait $hold || { cat /tmp/hold.out; fail "smartio-seg hold failed"; }
grep -qx SIGBUS /tmp/hold.out || { cat /tmp/hold.out; fail "no SIGBUS"; }
echo "node$NODE: the process touching segment 8 got SIGBUS"
case $CASE in
removed)
	dmesg | grep -q "segment 8 of node 2 lost: its node removed it" ||
		fail "the forced removal not logged"
	;;
*)
	dmesg | grep -q "segment 8 of node 2 lost: its node left" ||
		fail "the loss not logged"
	;;
esac
case $CASE in
connector-unbound) ntb_bind 2 ;;
*) wait_until 60 joined 2 || { show_adapters; fail "node 2 not joined"; } ;;
esac
wait_until 10 windows_idle || { show_adapters; fail "windows left in use"; }
vmctl barrier finished
rmmod smartio_ntb smartio
ntb_unload
