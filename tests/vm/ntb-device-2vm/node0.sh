#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The emulated NTB across two QEMU processes (node0 listens): link,
# doorbells, scratchpads and a direct window; node1 is killed, must be seen
# gone and comes back (reconnect); then node1 powers off and
# node0 must see the link go down and read all-ones, without hanging.
set -e
# shellcheck source=../guest/sntb-regs.sh
. /usr/local/lib/vmtest/sntb-regs.sh

# shellcheck disable=SC2046 # sysfs paths have no spaces
set -- $(sntb_devices)
[ $# -eq 1 ] || fail "expected 1 smartio-ntb device, found $#"
pci_enable "$1"
R=$(bar "$1" 0) W=$(bar "$1" 2)
rid_allow "$R" 0 $RID_ROOT	# the CPUs' accesses through the window
expect "PORT before link" "$(r32 "$R" $PORT)" 0

w32 "$R" $LINK_CTRL 1
vmctl barrier enabled
wait_reg "$R" $LINK_STATUS $LINK_UP 10 || fail "link not up"
expect "PORT" "$(r32 "$R" $PORT)" 0x100
vmctl barrier up

# Doorbells and scratchpads both ways.
w32 "$R" $PEER_DB_SET 0x3
w32 "$R" "$(PEER_SPAD 2)" 0x11111111
vmctl barrier rung
wait_reg "$R" $DB_STATUS 0x40000000 10 || fail "doorbell from node1 missing"
w32 "$R" $DB_STATUS 0x40000000
expect "PEER_SPAD(4), written by node1" "$(r32 "$R" "$(PEER_SPAD 4)")" 0x22222222

# Direct window 0 of node1 leads to node1's own scratchpads.
off=$(vmctl get window-offset)
w32 "$W" $((off + $(SPAD 8))) 0xabcd1234
expect "read back through the window" "$(r32 "$W" $((off + $(SPAD 8))))" 0xabcd1234
vmctl barrier window

# Many round trips while node1 does the same.
i=0
while [ $i -lt 200 ]; do
	w32 "$W" $((off + $(SPAD 9))) $i
	expect "round trip $i" "$(r32 "$W" $((off + $(SPAD 9))))" $i >/dev/null
	r32 "$R" "$(PEER_SPAD 1)" >/dev/null
	i=$((i + 1))
done
echo "ok: 200 round trips"
vmctl barrier hammered

# A power cut: node1's QEMU is killed. The link must go down, and an
# access through it must end (the runner's time limit would catch one
# that hangs) as on hardware: a read gives all-ones, a write goes nowhere.
# How fast is bench's to say, not this test's.
vmctl kill 1
wait_reg "$R" $LINK_STATUS 0 10 || fail "link still up after node1 was killed"
echo "ok: link down after node1 was killed"
expect "LINK_EVENT" "$(r32 "$R" $LINK_EVENT)" 1
w32 "$R" $LINK_EVENT 1
expect "window read, peer killed" "$(r32 "$W" $((off + $(SPAD 8))))" 0xffffffff
expect "PEER_SPAD read, peer killed" "$(r32 "$R" "$(PEER_SPAD 4)")" 0xffffffff
w32 "$W" $((off + $(SPAD 8))) 0x1
w32 "$R" $PEER_DB_SET 0x1

# node1 boots again and reconnects: the link comes back.
vmctl barrier back
wait_reg "$R" $LINK_STATUS $LINK_UP 10 || fail "link not back after node1's reboot"
echo "ok: link back after node1's reboot"
expect "PEER_SPAD(5) after reconnect" "$(r32 "$R" "$(PEER_SPAD 5)")" 0x55555555
w32 "$R" $PEER_DB_SET 0x10
vmctl barrier reconnected

# node1 powers off now: the link must go down within a few seconds.
wait_reg "$R" $LINK_STATUS 0 10 || fail "link still up after node1 left"
echo "ok: link down after node1 powered off"
expect "LINK_EVENT" "$(r32 "$R" $LINK_EVENT)" 1
expect "window read, peer gone" "$(r32 "$W" $((off + $(SPAD 8))))" 0xffffffff
expect "PEER_SPAD read, peer gone" "$(r32 "$R" "$(PEER_SPAD 4)")" 0xffffffff
w32 "$W" $((off + $(SPAD 8))) 0x1
w32 "$R" $PEER_DB_SET 0x1
echo "ntb-device-2vm node0: all passed"
