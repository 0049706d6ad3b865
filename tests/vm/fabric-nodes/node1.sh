#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The peer: joins as node 2, reloads smartio_ntb (so that it loads after
# node0 this time), is killed by node0, and boots again as node 7, its
# link up only once node0 saw it gone.
set -eu
# shellcheck source=../guest/fabric.sh
. /usr/local/lib/vmtest/fabric.sh

[ "$BOOT" = 1 ] || vmctl barrier rebooted
ntb_load

if [ "$BOOT" = 1 ]; then
	modprobe smartio_ntb
	own_node 0 2 || { show_adapters; fail "adapter 0 is not node 2"; }
	wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
	vmctl barrier joined

	rmmod smartio_ntb
	[ ! -e "$adapters" ] || fail "debugfs file left behind by rmmod"
	modprobe smartio_ntb
	vmctl barrier reloaded
	wait_until 30 joined 1 || { show_adapters; fail "node 1 did not rejoin"; }
	vmctl barrier rejoined
	sleep 100000	# until node0 kills this VM
	exit 1
fi

modprobe smartio_ntb node_id=7
own_node 0 7 || { show_adapters; fail "node_id=7 not taken"; }
wait_until 60 joined 1 || { show_adapters; fail "node 1 never joined after reboot"; }
show_adapters
vmctl barrier finished
rmmod smartio_ntb
ntb_unload
