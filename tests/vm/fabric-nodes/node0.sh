#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The survivor: with default node ids (port 0 -> node 1, port 1 -> node 2)
# it sees node 2 join, leave and rejoin when node1 reloads smartio_ntb,
# leave when node1 is killed, and join as node 7 when node1 boots again.
set -eu
# shellcheck source=../guest/fabric.sh
. /usr/local/lib/vmtest/fabric.sh

ntb_load
modprobe smartio_ntb
own_node 0 1 || { show_adapters; fail "adapter 0 is not node 1"; }
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
log_more 'smartio_ntb: adapter 0: node 2 joined (port 1)$' 0 ||
	fail "no join message for node 2"
show_adapters
vmctl barrier joined

# node1 unloads and loads smartio_ntb again: this side is loaded first now.
vmctl barrier reloaded
wait_until 30 log_more 'smartio_ntb: adapter 0: node 2 left$' 0 ||
	fail "node 2 never left while node1 reloaded"
wait_until 30 joined 2 || { show_adapters; fail "node 2 did not rejoin"; }
vmctl barrier rejoined

left=$(log_count 'smartio_ntb: adapter 0: node 2 left$')
vmctl kill 1
echo "node0: killed node1"
wait_until 10 log_more 'smartio_ntb: adapter 0: node 2 left$' "$left" ||
	fail "node 2 did not leave within 10 s of its power cut"
not_joined 2 || { show_adapters; fail "node 2 still shown joined"; }
grep -q '^  peer 0 port 1 node 0 down$' "$adapters" ||
	{ show_adapters; fail "peer not shown down"; }
echo "node0: node 2 left"

vmctl barrier rebooted
wait_until 60 joined 7 || { show_adapters; fail "node 7 never joined"; }
show_adapters
vmctl barrier finished
rmmod smartio_ntb
ntb_unload
