#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The victim: receives traffic until node0 kills it, then boots again.
set -eu
# shellcheck source=../guest/ntb-clients.sh
. /usr/local/lib/vmtest/ntb-clients.sh

modprobe ntb_hw_smartio
port=$(ntb_ports)
ifname=$(ntb_netdev_up "$port" 169.254.77.2)

if [ "$BOOT" = 1 ]; then
	nc -l -p 7777 >/dev/null &
	wait_until 60 has_carrier "$ifname" || fail "$ifname never got a carrier"
	vmctl barrier up
	sleep 100000	# until node0 kills this VM
	exit 1
fi

vmctl barrier rebooted
wait_until 120 has_carrier "$ifname" || fail "link did not come back"
vmctl barrier finished
