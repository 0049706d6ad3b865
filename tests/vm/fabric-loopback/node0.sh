#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Two adapters in one VM, cabled to each other: with default node ids they
# are nodes 1 and 2 and join each other; smartio_ntb unloads cleanly; with
# node_id=5,5 both refuse the duplicate node id and nothing joins; loaded
# before the NTB driver, it finds the adapters as they come.
set -eu
# shellcheck source=../guest/fabric.sh
. /usr/local/lib/vmtest/fabric.sh

ntb_load
modprobe smartio_ntb
if ! { own_node 0 1 && own_node 1 2; }; then
	show_adapters
	fail "adapters are not nodes 1 and 2"
fi
both_joined() {
	joined 1 && joined 2
}
wait_until 30 both_joined ||
	{ show_adapters; fail "adapters did not join each other"; }
show_adapters
log_more 'smartio_ntb: adapter 0: node 2 joined (port 1)$' 0 ||
	fail "no join message on adapter 0"
log_more 'smartio_ntb: adapter 1: node 1 joined (port 0)$' 0 ||
	fail "no join message on adapter 1"

rmmod smartio_ntb
[ ! -e /sys/module/smartio_ntb ] || fail "smartio_ntb still loaded"
[ ! -e /sys/kernel/debug/smartio ] || fail "debugfs directory left behind"

dup='smartio_ntb.*refusing port [01]: its node id 5 is ours too'
modprobe smartio_ntb node_id=5,5
if ! { own_node 0 5 && own_node 1 5; }; then
	show_adapters
	fail "node_id=5,5 not taken"
fi
wait_until 30 log_more "$dup" 1 ||
	{ dmesg | tail -20; fail "duplicate node id not reported by both adapters"; }
# Give a wrong join time to happen.
sleep 2
show_adapters
! joined 5 || fail "a node with a duplicate node id joined"
[ "$(grep -c ' link-up$' "$adapters")" = 2 ] || fail "peers not left at link-up"
echo "node0: duplicate node id refused"
rmmod smartio_ntb
ntb_unload

# The client first, then the devices: adapters appear as they probe.
modprobe smartio_ntb
[ ! -s "$adapters" ] || { show_adapters; fail "adapters without a device"; }
ntb_load
wait_until 30 both_joined ||
	{ show_adapters; fail "adapters did not join when the devices came last"; }
show_adapters
rmmod smartio_ntb
ntb_unload
