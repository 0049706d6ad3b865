#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A device behind the NTB doing DMA into the aperture must work (SmartIO's
# requirement). No driver and no CPU on the data path: QEMU's edu device on
# node0 DMAs from its buffer into node0's LUT aperture, slot aimed at RAM of
# node1, and node1 finds the data there, exactly (bytes around it intact),
# when the doorbell rung after the DMA arrives. Then edu DMA-reads node1's
# RAM through the aperture (a device read across the fabric) and gets what
# node1 put there. Through a LUT slot without VALID aimed at the same RAM,
# the same DMAs change nothing on node1 and read all-ones. First, local edu
# DMAs (RAM -> buffer -> RAM) prove the engine itself.
set -e
# shellcheck source=../guest/sntb-regs.sh
. /usr/local/lib/vmtest/sntb-regs.sh
# shellcheck source=../guest/dma.sh
. /usr/local/lib/vmtest/dma.sh

# shellcheck disable=SC2046 # sysfs paths have no spaces
set -- $(sntb_devices)
[ $# -eq 1 ] || fail "expected 1 smartio-ntb device, found $#"
ntb=$1
# shellcheck disable=SC2046
set -- $(edu_device)
[ $# -eq 1 ] || fail "expected 1 edu device, found $#"
edu=$1
pci_enable "$ntb"
pci_enable "$edu"
R=$(bar "$ntb" 0) A=$(bar "$ntb" 4) E=$(bar "$edu" 0)
echo "ntb $ntb: regs $R, LUT aperture $A; edu $edu: regs $E"
rid_allow "$R" 0 "$(requester_id "$edu")"	# edu's DMA through the aperture
expect "edu ID" "$(r32 "$E" 0)" 0x010000ed

w32 "$R" $LINK_CTRL 1
vmctl barrier enabled
wait_reg "$R" $LINK_STATUS $LINK_UP 10 || fail "link not up"
peer=$((($(r32 "$R" $PORT) >> 8) & 0xff))
expect "peer port" "$peer" 1
vmctl barrier up

pattern 1 >/tmp/p		# what edu writes to node1
pattern 2 >/tmp/q		# what node1 puts for edu to read
head -c $LEN /dev/zero >/tmp/zero
head -c $LEN /dev/zero | tr '\000' '\377' >/tmp/ones

# The engine alone: P from local RAM into edu's buffer, and out again into
# a zeroed page. edu's buffer holds P from now on.
mem_put $RAM /tmp/p
mem_put $((RAM + 0x10000)) /tmp/zero
edu_dma "$E" $EDU_FROM_RAM $RAM $EDU_BUF
edu_dma "$E" $EDU_TO_RAM $EDU_BUF $((RAM + 0x10000))
mem_get $((RAM + 0x10000)) >/tmp/got
same "edu round trip through local RAM" /tmp/p /tmp/got

# lut SLOT ADDR VALID: aim LUT slot SLOT at the slot-aligned base of node1
# bus address ADDR; prints the address in our aperture that leads to ADDR.
lut() {
	base=$(($2 & ~(LUT_SLOT_SIZE - 1)))
	off=$(($2 - base))
	[ $((off + LEN)) -le $LUT_SLOT_SIZE ] || fail "$2 + $LEN crosses a LUT slot"
	w64 "$R" "$(LUT_ADDR "$1")" $((base | $3))
	w32 "$R" "$(LUT_PORT "$1")" $peer
	expect "LUT_ADDR($1)" "$(r64 "$R" "$(LUT_ADDR "$1")")" $((base | $3)) >&2
	printf '0x%x' $((A + $1 * LUT_SLOT_SIZE + off))
}

# Device write across the fabric: edu's buffer (P) to node1's RAM through
# LUT slot 5, then a doorbell, which node1 waits for before looking.
target=$(vmctl get dma-target)
win=$(lut 5 "$target" 1)
echo "node1 RAM $target is $win in our aperture"
edu_dma "$E" $EDU_TO_RAM $EDU_BUF "$win"
w32 "$R" $PEER_DB_SET 0x1
vmctl barrier written

# Device read across the fabric: node1's Q into edu's buffer through LUT
# slot 6, then out to local RAM to look at it.
source=$(vmctl get dma-source)
win=$(lut 6 "$source" 1)
echo "node1 RAM $source is $win in our aperture"
edu_dma "$E" $EDU_FROM_RAM "$win" $EDU_BUF
mem_put $((RAM + 0x20000)) /tmp/zero
edu_dma "$E" $EDU_TO_RAM $EDU_BUF $((RAM + 0x20000))
mem_get $((RAM + 0x20000)) >/tmp/got
same "node1's RAM read by edu through the aperture" /tmp/q /tmp/got

# Slot 7 aimed at node1's RAM without VALID: edu's write must not arrive
# (node1 checks after the doorbell), its read must give all-ones.
edu_dma "$E" $EDU_FROM_RAM $RAM $EDU_BUF
invalid=$(vmctl get dma-invalid)
win=$(lut 7 "$invalid" 0)
edu_dma "$E" $EDU_TO_RAM $EDU_BUF "$win"
w32 "$R" $PEER_DB_SET 0x2
win=$(lut 7 "$source" 0)
edu_dma "$E" $EDU_FROM_RAM "$win" $EDU_BUF
edu_dma "$E" $EDU_TO_RAM $EDU_BUF $((RAM + 0x20000))
mem_get $((RAM + 0x20000)) >/tmp/got
same "read through a LUT slot without VALID" /tmp/ones /tmp/got
vmctl barrier finished
echo "ntb-device-dma node0: all passed"
