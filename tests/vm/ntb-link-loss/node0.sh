#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The survivor: kills node1 in the middle of ntb_netdev traffic, sees the
# link go down promptly, stops its clients cleanly, and gets the link back
# when node1 has booted again.
set -eu
# shellcheck source=../guest/ntb-clients.sh
. /usr/local/lib/vmtest/ntb-clients.sh

modprobe ntb_hw_smartio
port=$(ntb_ports)
ifname=$(ntb_netdev_up "$port" 169.254.77.1)
wait_until 60 has_carrier "$ifname" || fail "$ifname never got a carrier"
vmctl barrier up

# Traffic both ways, then the power cut.
ping -q -i 0.05 169.254.77.2 >/dev/null 2>&1 &
pinger=$!
dd if=/dev/zero bs=1M count=64 2>/dev/null | nc 169.254.77.2 7777 >/dev/null 2>&1 &
sender=$!
sleep 2
vmctl kill 1
echo "node0: killed node1 mid-traffic"

wait_until 10 no_carrier "$ifname" || fail "link still up 10 s after the peer died"
dmesg | grep -q "ntb_hw_smartio $port: link down" ||
	fail "the kernel did not log the link going down"
echo "node0: link down seen and logged"
kill "$pinger" "$sender" 2>/dev/null || true
wait "$pinger" "$sender" 2>/dev/null || true

# Clients stop cleanly, and come back.
rmmod ntb_netdev ntb_transport || fail "clients did not unload after link loss"
ifname=$(ntb_netdev_up "$port" 169.254.77.1)

vmctl barrier rebooted
wait_until 120 has_carrier "$ifname" || fail "link did not come back"
ping -c 3 -W 5 169.254.77.2 || fail "no ping after the link came back"
vmctl barrier finished
