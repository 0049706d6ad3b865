#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 answers node0's pings until node0 kills it, then boots again.
set -eu
# shellcheck source=../guest/msg.sh
. /usr/local/lib/vmtest/msg.sh

ntb_load
# Node ids by node, not by port number: ntb_hw_switchtec numbers every
# port 0 (the NTB core's default for a switch).
modprobe smartio_ntb node_id=$((NODE + 1))
wait_until 60 joined 1 || { show_adapters; fail "node 1 never joined"; }

if [ "$BOOT" = 1 ]; then
	vmctl barrier joined
	sleep 100000	# until node0 kills this VM
	exit 1
fi

vmctl barrier rebooted
vmctl barrier finished
rmmod smartio_ntb smartio
ntb_unload
