#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The emulated NTB alone, no driver: two ports cabled in loopback, driven by
# devmem. Link, doorbells, scratchpads, direct window with inbound
# translation, LUT with outbound translation, accesses that lead back into
# an aperture, and all-ones once the link is down.
set -e
# shellcheck source=../guest/sntb-regs.sh
. /usr/local/lib/vmtest/sntb-regs.sh

# shellcheck disable=SC2046 # sysfs paths have no spaces
set -- $(sntb_devices)
[ $# -eq 2 ] || fail "expected 2 smartio-ntb devices, found $#"
for d; do pci_enable "$d"; done

# Which one is port 0?
if [ $(($(r32 "$(bar "$1" 0)" $PORT) & 0xff)) -eq 0 ]; then
	da=$1 db=$2
else
	da=$2 db=$1
fi
A=$(bar "$da" 0) B=$(bar "$db" 0)
A2=$(bar "$da" 2) A4=$(bar "$da" 4) B2=$(bar "$db" 2)
echo "port A: $da regs $A direct $A2 lut $A4"
echo "port B: $db regs $B direct $B2"
# The CPUs' accesses through both ports' windows (the requester-ID table
# itself is tested by ntb-requester-table).
rid_allow "$A" 0 $RID_ROOT
rid_allow "$B" 0 $RID_ROOT

expect "A ID" "$(r32 "$A" $ID)" 0x30424e53
expect "A CAPS" "$(r32 "$A" $CAPS)" 0x021020
expect "A LUT_ENTRIES" "$(r32 "$A" $LUT_ENTRIES)" 2048
expect "A LUT_SHIFT" "$(r32 "$A" $LUT_SHIFT)" 21
expect "A DIRECT_SHIFT" "$(r32 "$A" $DIRECT_SHIFT)" 22
expect "BAR4 size" "$(($(sed -n 5p "$da/resource" | cut -d' ' -f2) - A4 + 1))" 0x100000000
expect "A DB_MASK after reset" "$(r32 "$A" $DB_MASK)" 0xffffffff

# Link: down until both ports enable.
expect "A LINK_STATUS, nobody enabled" "$(r32 "$A" $LINK_STATUS)" 0
w32 "$A" $LINK_CTRL 1
usleep 300000
expect "A LINK_STATUS, A enabled" "$(r32 "$A" $LINK_STATUS)" 0
expect "B LINK_STATUS, A enabled" "$(r32 "$B" $LINK_STATUS)" 0
expect "A LINK_EVENT before up" "$(r32 "$A" $LINK_EVENT)" 0
w32 "$B" $LINK_CTRL 1
wait_reg "$A" $LINK_STATUS $LINK_UP 5 || fail "A: link not up"
wait_reg "$B" $LINK_STATUS $LINK_UP 5 || fail "B: link not up"
echo "ok: link up"
expect "A PORT" "$(r32 "$A" $PORT)" 0x100
expect "B PORT" "$(r32 "$B" $PORT)" 0x001
expect "A LINK_EVENT" "$(r32 "$A" $LINK_EVENT)" 1
w32 "$A" $LINK_EVENT 1
expect "A LINK_EVENT after W1C" "$(r32 "$A" $LINK_EVENT)" 0

# Doorbells.
w32 "$A" $PEER_DB_SET 0x80000005
wait_reg "$B" $DB_STATUS 0x80000005 5 || fail "B: doorbells not rung"
expect "A DB_STATUS untouched" "$(r32 "$A" $DB_STATUS)" 0
w32 "$B" $DB_STATUS 0x1
expect "B DB_STATUS after W1C of bit 0" "$(r32 "$B" $DB_STATUS)" 0x80000004
w32 "$B" $DB_STATUS 0xffffffff
expect "B DB_STATUS cleared" "$(r32 "$B" $DB_STATUS)" 0
w32 "$A" $DB_SET 0x100
expect "A DB_STATUS after DB_SET" "$(r32 "$A" $DB_STATUS)" 0x100
w32 "$A" $DB_STATUS 0x100
w32 "$B" $DB_MASK 0x0000ffff
expect "B DB_MASK" "$(r32 "$B" $DB_MASK)" 0xffff

# Scratchpads: a posted write, then a read that waits for the peer.
w32 "$A" "$(PEER_SPAD 3)" 0xdeadbeef
wait_reg "$B" "$(SPAD 3)" 0xdeadbeef 5 || fail "B SPAD(3) not written"
w32 "$B" "$(SPAD 15)" 0x12345678
expect "A PEER_SPAD(15)" "$(r32 "$A" "$(PEER_SPAD 15)")" 0x12345678
expect "A SPAD(3) untouched" "$(r32 "$A" "$(SPAD 3)")" 0

# Both ports read each other at once, from both vCPUs: no deadlock.
w32 "$A" "$(SPAD 0)" 0xaaaa0000
w32 "$B" "$(SPAD 0)" 0xbbbb0000
hammer() {
	i=0
	while [ $i -lt 300 ]; do
		[ $(($(r32 "$1" "$(PEER_SPAD 0)"))) -eq $(($2)) ] || exit 1
		i=$((i + 1))
	done
}
hammer "$A" 0xbbbb0000 &
pa=$!
hammer "$B" 0xaaaa0000 &
pb=$!
wait $pa || fail "A's concurrent peer reads"
wait $pb || fail "B's concurrent peer reads"
echo "ok: concurrent peer reads both ways"

# Direct window 0, inbound translation on B: aim B's window 0 at the
# 4 MiB-aligned slice holding B's own register BAR, so that A's writes
# through its BAR 2 land in B's scratchpads (a device-to-device access by
# B, fine with iommu=pt).
size=$((1 << 22))
xlat=$((B & ~(size - 1)))
off=$((B - xlat))
w64 "$B" "$(XLAT_ADDR 0)" "$xlat"
w64 "$B" "$(XLAT_SIZE 0)" "$size"
expect "B XLAT_ADDR(0)" "$(r64 "$B" "$(XLAT_ADDR 0)")" "$xlat"
expect "B XLAT_SIZE(0)" "$(r64 "$B" "$(XLAT_SIZE 0)")" "$size"
w32 "$A2" $((off + $(SPAD 4))) 0xcafef00d
wait_reg "$B" "$(SPAD 4)" 0xcafef00d 5 || fail "window write did not land"
echo "ok: direct window write landed in B SPAD(4)"
expect "read back through the window" "$(r32 "$A2" $((off + $(SPAD 4))))" 0xcafef00d
w64 "$A2" $((off + $(SPAD 6))) 0x0123456789abcdef
expect "B SPAD(6) after 64-bit window write" "$(r32 "$B" "$(SPAD 6)")" 0x89abcdef
expect "B SPAD(7) after 64-bit window write" "$(r32 "$B" "$(SPAD 7)")" 0x01234567
expect "64-bit read through the window" "$(r64 "$A2" $((off + $(SPAD 6))))" 0x0123456789abcdef
# B's registers take 32-bit accesses only: a byte read is refused there.
expect "byte read of a register through the window" "$(r8 "$A2" $((off + $(SPAD 6))))" 0xff
# Window 1 was never opened on B.
expect "closed direct window 1" "$(r32 "$A2" $((size + off + $(SPAD 4))))" 0xffffffff
# Window 0 shrunk below the offset: beyond XLAT_SIZE.
w64 "$B" "$(XLAT_SIZE 0)" 0
expect "direct window 0 closed" "$(r32 "$A2" $((off + $(SPAD 4))))" 0xffffffff
w64 "$B" "$(XLAT_SIZE 0)" "$size"

# An inbound access leading back into an NTB aperture does not hang: B's
# window 1 aimed at B's own BAR 2 leads to A's window 1, never opened.
w64 "$B" "$(XLAT_ADDR 1)" "$B2"
w64 "$B" "$(XLAT_SIZE 1)" "$size"
expect "window into B's own aperture" "$(r32 "$A2" $((size + 0x40)))" 0xffffffff
w32 "$A2" $((size + 0x40)) 0x1
echo "ok: window into an aperture reads all-ones"

# LUT, outbound translation on A: slot 0 to the 2 MiB slice holding B's
# register BAR, on port 1.
lsize=$((1 << 21))
laddr=$((B & ~(lsize - 1)))
loff=$((B - laddr))
w64 "$A" "$(LUT_ADDR 0)" $((laddr | 1))
w32 "$A" "$(LUT_PORT 0)" 1
expect "A LUT_ADDR(0)" "$(r64 "$A" "$(LUT_ADDR 0)")" $((laddr | 1))
expect "A LUT_PORT(0)" "$(r32 "$A" "$(LUT_PORT 0)")" 1
w32 "$A4" $((loff + $(SPAD 9))) 0x5a5aa5a5
wait_reg "$B" "$(SPAD 9)" 0x5a5aa5a5 5 || fail "LUT write did not land"
expect "read back through the LUT" "$(r32 "$A4" $((loff + $(SPAD 9))))" 0x5a5aa5a5
expect "unprogrammed LUT slot 1" "$(r32 "$A4" $((lsize + loff + $(SPAD 9))))" 0xffffffff
expect "last LUT slot" "$(r32 "$A4" $((2047 * lsize + 0x10)))" 0xffffffff
w32 "$A" "$(LUT_PORT 0)" 7
expect "LUT slot naming another port" "$(r32 "$A4" $((loff + $(SPAD 9))))" 0xffffffff
w32 "$A" "$(LUT_PORT 0)" 1
w64 "$A" "$(LUT_ADDR 0)" "$laddr"
expect "LUT slot without VALID" "$(r32 "$A4" $((loff + $(SPAD 9))))" 0xffffffff
w64 "$A" "$(LUT_ADDR 0)" $((laddr | 1))

# Link down: everything through the link reads all-ones, writes dropped.
w32 "$A" $LINK_EVENT 1
w32 "$B" $LINK_EVENT 1
w32 "$B" $LINK_CTRL 0
wait_reg "$A" $LINK_STATUS 0 5 || fail "A: link not down"
expect "A LINK_EVENT after down" "$(r32 "$A" $LINK_EVENT)" 1
expect "A PORT while down" "$(r32 "$A" $PORT)" 0
expect "window read, link down" "$(r32 "$A2" $((off + $(SPAD 4))))" 0xffffffff
expect "LUT read, link down" "$(r32 "$A4" $((loff + $(SPAD 9))))" 0xffffffff
expect "PEER_SPAD read, link down" "$(r32 "$A" "$(PEER_SPAD 15)")" 0xffffffff
w32 "$A2" $((off + $(SPAD 4))) 0x1
w32 "$A" "$(PEER_SPAD 3)" 0x2
w32 "$A" $PEER_DB_SET 0x1
usleep 300000
expect "B SPAD(4) after a write on a dead link" "$(r32 "$B" "$(SPAD 4)")" 0xcafef00d
expect "B SPAD(3) after a write on a dead link" "$(r32 "$B" "$(SPAD 3)")" 0xdeadbeef
expect "B DB_STATUS after a ring on a dead link" "$(r32 "$B" $DB_STATUS)" 0

# And back up.
w32 "$B" $LINK_CTRL 1
wait_reg "$A" $LINK_STATUS $LINK_UP 5 || fail "A: link not back up"
expect "window read, link up again" "$(r32 "$A2" $((off + $(SPAD 4))))" 0xcafef00d
echo "ntb-device: all passed"
