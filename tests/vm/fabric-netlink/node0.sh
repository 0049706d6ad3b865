#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The smartio netlink family through smartioctl, in loopback (two ports of
# one VM, nodes 1 and 2): adapter, node and segment lists in text and
# JSON; monitor events when a port goes and comes back; a non-root user
# may list but gets EPERM from every mutating operation and from ping
# (every command the spec marks admin-perm); malformed requests get EINVAL
# with an extended-ack message and change nothing; a duplicate node id is
# repaired with "adapter set".
set -eu
# shellcheck source=../guest/fabric.sh
. /usr/local/lib/vmtest/fabric.sh

both_joined() {
	joined 1 && joined 2
}

nodes_unchanged() {
	if ! { own_node 0 1 && own_node 1 2; }; then
		show_adapters
		fail "node ids changed"
	fi
}

ntb_load
modprobe smartio_ntb
wait_until 30 both_joined || { show_adapters; fail "adapters did not join"; }
first=$(ntb_ports | sed -n 1p)
second=$(ntb_ports | sed -n 2p)

# Lists.
smartioctl adapter list | tee /tmp/adapters
grep -qx "adapter 0: node 1 port 0 pci $first" /tmp/adapters || fail "adapter 0 not listed"
grep -qx "adapter 1: node 2 port 1 pci $second" /tmp/adapters || fail "adapter 1 not listed"
[ "$(grep -cx '  peer 0: port [01] node [12] joined' /tmp/adapters)" = 2 ] ||
	fail "peers not listed joined"
json=$(smartioctl -j adapter show 1)
echo "node0: $json"
[ "$json" = "[{\"index\":1,\"node-id\":2,\"port\":1,\"pci-name\":\"$second\",\"peers\":[{\"index\":0,\"port\":0,\"node-id\":1,\"state\":\"joined\"}]}]" ] ||
	fail "adapter show 1 -j: unexpected JSON"
smartioctl node list | tee /tmp/nodes
grep -qx "node 2: adapter 0 port 1 joined" /tmp/nodes || fail "node 2 not listed"
grep -qx "node 1: adapter 1 port 0 joined" /tmp/nodes || fail "node 1 not listed"
[ "$(smartioctl -j segment list)" = "[]" ] || fail "segments listed where there are none"
expect_error ENODEV smartioctl adapter show 7

# Non-root: lists work; mutations do not, nor do pings (each round trip
# holds one of the node's pending-request slots).
as_nobody smartioctl adapter list >/dev/null || fail "nobody cannot list adapters"
expect_error EPERM as_nobody smartioctl node ping 2 count 10
expect_error EPERM as_nobody smartioctl adapter set 0 node-id 9
expect_error EPERM as_nobody smartio-genl-send 2 1:u32:0 2:u16:9
# Every command the spec marks admin-perm, bare: the permission check
# comes before any attribute is looked at. The others are never refused
# for it (they fail, bare, for their missing attributes or flags).
smartio-genl-send -l | tee /tmp/commands
grep -qx "2 adapter-set admin" /tmp/commands || fail "adapter-set not listed admin"
grep -q " device-borrow admin\$" /tmp/commands || fail "device-borrow not listed admin"
grep -q " node-ping admin\$" /tmp/commands || fail "node-ping not listed admin"
while read -r cmd name perm; do
	if [ "$perm" = admin ]; then
		expect_error EPERM as_nobody smartio-genl-send "$cmd"
	elif as_nobody smartio-genl-send "$cmd" 2>&1 | grep -q "(EPERM)"; then
		fail "$name refused to nobody"
	fi
done </tmp/commands
nodes_unchanged

# Root, but the node is joined: refused with a reason.
expect_error EBUSY smartioctl adapter set 0 node-id 9
nodes_unchanged

# Malformed requests (command numbers and attribute types from the uapi
# header: adapter-set 2 with index 1 and node-id 2; node-ping 4): EINVAL;
# values outside a policy's range: ERANGE, as everywhere in netlink.
expect_error EINVAL smartio-genl-send 2 1:u8:0 2:u16:9	# index too short
expect_error ERANGE smartio-genl-send 2 1:u32:0 2:u16:0	# node id 0
expect_error ERANGE smartio-genl-send 2 1:u32:0 2:u16:65535	# every node
expect_error EINVAL smartio-genl-send 2 1:u32:0		# no node id
expect_error EINVAL smartio-genl-send 2 1:u32:0 2:u16:9 9:u32:1	# unknown
expect_error EINVAL smartio-genl-send -r 2 1:u32:0 2:u16:9	# reserved
expect_error ERANGE smartio-genl-send 4 1:u16:2 2:u32:0	# count 0
expect_error ERANGE smartio-genl-send 4 1:u16:2 3:u32:4073	# size
expect_error EINVAL smartio-genl-send 1 1:str:x		# index as string
nodes_unchanged

# Monitor: the second port goes away and comes back.
smartioctl -j monitor count 4 >/tmp/monitor.down &
mon=$!
monitor_wait "$mon"
echo "$second" >"/sys/bus/pci/drivers/$NTB_DRIVER/unbind"
wait "$mon" || fail "monitor failed"
cat /tmp/monitor.down
grep -qx '{"event":"node-leave-ntf","node-id":2,"adapter":0,"state":"down","port":1}' /tmp/monitor.down ||
	fail "no node-leave event for node 2"
grep -qx '{"event":"link-down-ntf","adapter":0,"state":"down","port":1}' /tmp/monitor.down ||
	fail "no link-down event on adapter 0"
smartioctl monitor count 4 >/tmp/monitor.up &
mon=$!
monitor_wait "$mon"
echo "$second" >"/sys/bus/pci/drivers/$NTB_DRIVER/bind"
wait "$mon" || fail "monitor failed"
cat /tmp/monitor.up
grep -qx 'link up: adapter 0 port 1' /tmp/monitor.up || fail "no link-up event on adapter 0"
grep -qx 'node 2 joined: adapter 0 port 1' /tmp/monitor.up || fail "no join event for node 2"
wait_until 30 both_joined || { show_adapters; fail "adapters did not join again"; }

# A duplicate node id: both refuse, until one adapter gets another id.
rmmod smartio_ntb
modprobe smartio_ntb node_id=5,5
wait_until 30 log_more 'refusing port [01]: its node id 5 is ours too' 1 ||
	fail "duplicate node id not refused"
! joined 5 || fail "a duplicate node id joined"
smartioctl adapter set 1 node-id 6
five_and_six() {
	joined 5 && joined 6
}
wait_until 30 five_and_six || { show_adapters; fail "nodes 5 and 6 did not join"; }
own_node 1 6 || fail "adapter 1 is not node 6"
smartioctl node list
smartioctl node ping 6 count 100
rmmod smartio_ntb smartio
ntb_unload
