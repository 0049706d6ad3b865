#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A peer that says what it likes: ntb_tool drives this port, and this
# script writes smartio's handshake (ntb/adapter.c, version 3) into node
# 1's scratchpads by hand, acknowledging node 1's epoch, with the node ids
# node0.sh expects refused, and then with one it takes. Node 1's hello is
# in our scratchpads 0-4 (its port, 0, ranks first), ours goes into its
# 5-9; the receive area is said to be at offset 0 of window 0 (our
# windows stay closed: what node 1 writes there is dropped).
set -eu
# shellcheck source=../guest/fabric.sh
. /usr/local/lib/vmtest/fabric.sh

magic=$((0x534d0003))

ntb_load
ntb_tool_up
vmctl barrier loaded

spad() {
	echo $(($(cat "$tool/spad$1")))
}

node1_hello() {
	[ "$(spad 0)" = $magic ]
}

# hello ID EPOCH: our hello, claiming node ID, rung twice.
hello() {
	echo 0 >"$tool/peer0/spad5"	# invalid while it changes
	echo 0 >"$tool/peer0/spad9"	# receive area: window 0, offset 0
	spad 2 >"$tool/peer0/spad8"	# ack: node 1's epoch
	echo "$1" >"$tool/peer0/spad6"
	echo "$2" >"$tool/peer0/spad7"
	echo $magic >"$tool/peer0/spad5"
	echo 's 1' >"$tool/peer_db"
}

# claim ROUND ID EPOCH: the hello of ROUND; tells whether node 1 answered
# it (acknowledged EPOCH).
claim() {
	wait_until 30 node1_hello || fail "no hello from node 1"
	hello "$2" "$3"
	vmctl barrier "claimed.$1"
	if [ "$1" -lt 4 ]; then
		# Once node 1 refused it: ring again, the same hello.
		sleep 2
		echo 's 1' >"$tool/peer_db"
		sleep 2
		vmctl barrier "rang.$1"
	else
		wait_until 30 outputs "$3" spad 3 || true
	fi
	if [ "$(spad 3)" = "$3" ]; then
		vmctl put "answered.$1" yes
	else
		vmctl put "answered.$1" no
	fi
	# Node 1 looks at a refused hello before the next replaces it.
	[ "$1" -ge 4 ] || vmctl barrier "checked.$1"
}

claim 1 65535 101
claim 2 0 102
claim 3 1 103
claim 4 2 104
vmctl barrier finished
rmmod ntb_tool
ntb_unload
