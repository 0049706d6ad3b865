#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The connecting side of ntb-device-2vm. Boot 1 is killed by node0 (a power
# cut); boot 2 reconnects and then powers off.
set -e
# shellcheck source=../guest/sntb-regs.sh
. /usr/local/lib/vmtest/sntb-regs.sh

# shellcheck disable=SC2046 # sysfs paths have no spaces
set -- $(sntb_devices)
[ $# -eq 1 ] || fail "expected 1 smartio-ntb device, found $#"
pci_enable "$1"
R=$(bar "$1" 0)

if [ "$BOOT" -gt 1 ]; then
	# After node0 cut our power, once it saw us gone: link up again,
	# then power off.
	vmctl barrier back
	w32 "$R" "$(SPAD 5)" 0x55555555
	w32 "$R" $LINK_CTRL 1
	wait_reg "$R" $LINK_STATUS $LINK_UP 10 || fail "link not up after reboot"
	vmctl barrier reconnected
	wait_reg "$R" $DB_STATUS 0x10 10 || fail "doorbell after reconnect missing"
	echo "ntb-device-2vm node1: done, powering off"
	exit 0
fi

w32 "$R" $LINK_CTRL 1
vmctl barrier enabled
wait_reg "$R" $LINK_STATUS $LINK_UP 10 || fail "link not up"
expect "PORT" "$(r32 "$R" $PORT)" 0x001
vmctl barrier up

w32 "$R" $PEER_DB_SET 0x40000000
w32 "$R" "$(SPAD 4)" 0x22222222
vmctl barrier rung
wait_reg "$R" $DB_STATUS 0x3 10 || fail "doorbells from node0 missing"
expect "SPAD(2), written by node0" "$(r32 "$R" "$(SPAD 2)")" 0x11111111

# Open direct window 0 onto the 4 MiB slice holding our register BAR.
size=$((1 << 22))
xlat=$((R & ~(size - 1)))
w64 "$R" "$(XLAT_ADDR 0)" "$xlat"
w64 "$R" "$(XLAT_SIZE 0)" "$size"
vmctl put window-offset $((R - xlat))
vmctl barrier window
expect "SPAD(8), written through node0's window" "$(r32 "$R" "$(SPAD 8)")" 0xabcd1234

# Hammer node0 while it hammers us: reads both ways at once.
i=0
while [ $i -lt 200 ]; do
	r32 "$R" "$(PEER_SPAD 0)" >/dev/null
	w32 "$R" "$(PEER_SPAD 1)" $i
	i=$((i + 1))
done
echo "ok: 200 peer scratchpad round trips"
vmctl barrier hammered
# node0 kills us now (a power cut); we come back as boot 2.
sleep 100000
exit 1
