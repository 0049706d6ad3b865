#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Messaging in loopback (two ports of one VM, nodes 1 and 2): 10,000 round
# trips each way, none lost; then the second port is unbound in the middle
# of four endless pings to node 2, which all fail with ENOTCONN less than a
# second after the link went down; bound again, the channel works again.
set -eu
# shellcheck source=../guest/msg.sh
. /usr/local/lib/vmtest/msg.sh

ntb_load
modprobe smartio_ntb
both_joined() {
	joined 1 && joined 2
}
wait_until 30 both_joined || { show_adapters; fail "adapters did not join each other"; }

ping_ok 2 10000
ping_ok 1 10000

second=$(ntb_ports | sed -n 2p)
pings_start 2 4
echo "$second" > "/sys/bus/pci/drivers/$NTB_DRIVER/unbind"
echo "node0: unbound $second"
pings_failed_notconn 2

echo "$second" > "/sys/bus/pci/drivers/$NTB_DRIVER/bind"
wait_until 30 both_joined || { show_adapters; fail "adapters did not join again"; }
ping_ok 2 100
rmmod smartio_ntb smartio
ntb_unload
