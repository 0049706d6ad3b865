#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Messaging between two VMs: 10,000 round trips to node 2, none lost; then
# node1 is killed in the middle of four endless pings, which all fail with
# ENOTCONN less than a second after the link went down; when node1 is back
# the channel works again.
set -eu
# shellcheck source=../guest/msg.sh
. /usr/local/lib/vmtest/msg.sh

ntb_load
# Node ids by node, not by port number: ntb_hw_switchtec numbers every
# port 0 (the NTB core's default for a switch).
modprobe smartio_ntb node_id=$((NODE + 1))
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
vmctl barrier joined

ping_ok 2 10000

pings_start 2 4
vmctl kill 1
echo "node0: killed node1"
pings_failed_notconn 2

vmctl barrier rebooted
wait_until 60 joined 2 || { show_adapters; fail "node 2 did not join again"; }
ping_ok 2 100
vmctl barrier finished
rmmod smartio_ntb smartio
ntb_unload
