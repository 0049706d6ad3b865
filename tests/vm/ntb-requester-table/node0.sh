#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The emulated NTB's requester-ID table, no driver: requests entering a
# port's windows from its host go through only from requesters in the
# port's table. Port A (table of 32) reaches the reserved RAM through its
# LUT (BAR 4) and through B's direct window (BAR 2). With the table empty,
# CPU reads through either read all-ones and CPU writes do not arrive; with
# the root complex (0x0000, the CPUs' requester) added, both go through.
# edu's DMA through A is dropped until edu's requester ID is in the table,
# and again once its entry is invalid. A virtio device's DMA through A
# (its used ring and the buffer it fills, which QEMU reaches through a
# MemoryRegionCache and a mapping) carries its requester ID too: dropped
# until listed. A virtio device that bypasses its PCI function's address
# space (no VIRTIO_F_ACCESS_PLATFORM) DMAs with no requester ID at all:
# dropped, listed or not. Accesses through a LUT slot that is not valid
# are dropped and counted (WIN_DROPPED). Port C, without a table
# (requester-entries=0), forwards the CPUs and edu alike. Doorbells, which
# the table does not check, mark when a write would have arrived.
set -e
# shellcheck source=../guest/sntb-regs.sh
. /usr/local/lib/vmtest/sntb-regs.sh
# shellcheck source=../guest/dma.sh
. /usr/local/lib/vmtest/dma.sh
# shellcheck source=virtq.sh
. ./virtq.sh

# shellcheck disable=SC2046 # sysfs paths have no spaces
set -- $(sntb_devices)
[ $# -eq 4 ] || fail "expected 4 smartio-ntb devices, found $#"
for d; do
	pci_enable "$d"
	case $(($(r32 "$(bar "$d" 0)" $PORT) & 0xff)) in
	0) da=$d ;;
	1) db=$d ;;
	2) dc=$d ;;
	3) dd=$d ;;
	*) fail "$d: unexpected port" ;;
	esac
done
# shellcheck disable=SC2046
set -- $(edu_device)
[ $# -eq 1 ] || fail "expected 1 edu device, found $#"
edu=$1
pci_enable "$edu"
A=$(bar "$da" 0) A2=$(bar "$da" 2) A4=$(bar "$da" 4)
B=$(bar "$db" 0) C=$(bar "$dc" 0) C4=$(bar "$dc" 4) D=$(bar "$dd" 0)
E=$(bar "$edu" 0)
EDU_RID=$(requester_id "$edu")
echo "A $da, B $db, C $dc, D $dd; edu $edu, requester $EDU_RID"

# The table's registers, before anything was written: reset state.
expect "A RID_ENTRIES" "$(r32 "$A" $RID_ENTRIES)" 32
expect "C RID_ENTRIES" "$(r32 "$C" $RID_ENTRIES)" 0
n=0
while [ $n -lt 32 ]; do
	[ $(($(r32 "$A" "$(RID $n)"))) -eq 0 ] || fail "A RID($n) valid after reset"
	n=$((n + 1))
done
echo "ok: A's 32 entries invalid after reset"
expect "A RID_DROPPED after reset" "$(r32 "$A" $RID_DROPPED)" 0
w32 "$A" "$(RID 31)" 0xffffffff
expect "A RID(31) keeps VALID and the ID only" "$(r32 "$A" "$(RID 31)")" 0x8000ffff
w32 "$A" "$(RID 31)" 0
expect "A RID(31) cleared" "$(r32 "$A" "$(RID 31)")" 0
w32 "$A" "$(RID 32)" $RID_VALID
expect "A RID(32), beyond the table" "$(r32 "$A" "$(RID 32)")" 0
w32 "$C" "$(RID 0)" $RID_VALID
expect "C RID(0), no table" "$(r32 "$C" "$(RID 0)")" 0

for r in "$A" "$B" "$C" "$D"; do
	w32 "$r" $LINK_CTRL 1
done
for r in "$A" "$B" "$C" "$D"; do
	wait_reg "$r" $LINK_STATUS $LINK_UP 5 || fail "link of $r not up"
done
echo "ok: links up"

# A's LUT slot 0 and C's lead to the reserved RAM (2 MiB-aligned) on B and
# D; B's direct window 0 (4 MiB) leads there too, for A's BAR 2.
w64 "$A" "$(LUT_ADDR 0)" $((RAM | 1))
w32 "$A" "$(LUT_PORT 0)" 1
w64 "$C" "$(LUT_ADDR 0)" $((RAM | 1))
w32 "$C" "$(LUT_PORT 0)" 3
w64 "$B" "$(XLAT_ADDR 0)" $RAM
w64 "$B" "$(XLAT_SIZE 0)" $RAM_SIZE

# flush PORT_REGS PEER_REGS: ring the peer's doorbell 0 and wait for it.
# Writes through the windows are performed before a later doorbell, so a
# write that was forwarded before this has arrived when it returns.
flush() {
	w32 "$1" $PEER_DB_SET 0x1
	wait_reg "$2" $DB_STATUS 0x1 10 || fail "doorbell from $1 missing"
	w32 "$2" $DB_STATUS 0x1
}

# The CPUs, with A's table empty: nothing through BAR 4 nor BAR 2.
w32 $RAM 0x1000 0x11223344
w32 $RAM 0x1004 0x55667788
expect "CPU read through A's LUT, empty table" "$(r32 "$A4" 0x1000)" 0xffffffff
expect "CPU read through A's direct window, empty table" "$(r32 "$A2" 0x1004)" 0xffffffff
w32 "$A4" 0x1000 0xdeadbeef
w32 "$A2" 0x1004 0xdeadbeef
flush "$A" "$B"
expect "RAM after a CPU write through A's LUT, empty table" "$(r32 $RAM 0x1000)" 0x11223344
expect "RAM after a CPU write through A's direct window, empty table" "$(r32 $RAM 0x1004)" 0x55667788
expect "A RID_DROPPED" "$(r32 "$A" $RID_DROPPED)" 4
# Doorbells, scratchpads and registers are not windows: not checked.
w32 "$A" "$(PEER_SPAD 2)" 0x600dcafe
expect "peer scratchpad through A, empty table" "$(r32 "$A" "$(PEER_SPAD 2)")" 0x600dcafe

# The root complex in an entry (any one): the CPUs' requests go through.
rid_allow "$A" 7 $RID_ROOT
expect "A RID(7)" "$(r32 "$A" "$(RID 7)")" $RID_VALID
expect "CPU read through A's LUT, 0x0000 in the table" "$(r32 "$A4" 0x1000)" 0x11223344
expect "CPU read through A's direct window, 0x0000 in the table" "$(r32 "$A2" 0x1004)" 0x55667788
w32 "$A4" 0x1000 0xcafef00d
w32 "$A2" 0x1004 0x0badf00d
flush "$A" "$B"
expect "RAM after a CPU write through A's LUT" "$(r32 $RAM 0x1000)" 0xcafef00d
expect "RAM after a CPU write through A's direct window" "$(r32 $RAM 0x1004)" 0x0badf00d
expect "A RID_DROPPED, nothing more dropped" "$(r32 "$A" $RID_DROPPED)" 4

# A's LUT slot 1 was never set: what enters it is dropped and counted, not
# forwarded (a read all-ones).
expect "A WIN_DROPPED" "$(r32 "$A" $WIN_DROPPED)" 0
expect "CPU read through A's LUT slot 1, not valid" "$(r32 "$A4" $LUT_SLOT_SIZE)" 0xffffffff
w32 "$A4" $LUT_SLOT_SIZE 0xdeadbeef
expect "A WIN_DROPPED, a read and a write through slot 1" "$(r32 "$A" $WIN_DROPPED)" 2
expect "A RID_DROPPED, slot 1 is no requester's fault" "$(r32 "$A" $RID_DROPPED)" 4

# edu, a DMA master behind port A, writes P to target and reads Q from
# source, both in the reserved RAM, through A's LUT.
target=$((RAM + 0x3010)) source=$((RAM + 0x5008)) here=$((RAM + 0x200000))
pattern 1 >/tmp/p
pattern 2 >/tmp/q
pattern 3 >/tmp/c
head -c $LEN /dev/zero | tr '\000' '\377' >/tmp/ones
mem_put "$source" /tmp/q

# edu_check WHAT APERTURE REGS PEER_REGS READ WRITTEN: edu's buffer gets P
# from local RAM (not through the NTB); edu writes it to target through
# APERTURE (of the port with register BAR REGS), reads source through it
# into the buffer and out to local RAM. The read must have given file READ
# and, once PEER_REGS has the doorbell rung after it, target must hold file
# WRITTEN (C where the write was dropped).
edu_check() {
	mem_put "$target" /tmp/c
	mem_put $here /tmp/p
	edu_dma "$E" $EDU_FROM_RAM $here $EDU_BUF
	edu_dma "$E" $EDU_TO_RAM $EDU_BUF $(($2 + target - RAM))
	edu_dma "$E" $EDU_FROM_RAM $(($2 + source - RAM)) $EDU_BUF
	edu_dma "$E" $EDU_TO_RAM $EDU_BUF $here
	mem_get $here >/tmp/got
	same "edu's read through $1" "$5" /tmp/got
	flush "$3" "$4"
	mem_get "$target" >/tmp/got
	same "edu's write through $1" "$6" /tmp/got
}

# dropped_more WHAT BEFORE: A's drop counter went up from BEFORE.
dropped_more() {
	now=$(r32 "$A" $RID_DROPPED)
	[ $((now)) -gt $(($2)) ] || fail "$1: A RID_DROPPED $now, not above $2"
	echo "ok: $1: A RID_DROPPED $2 -> $now"
}

before=$(r32 "$A" $RID_DROPPED)
edu_check "A, edu not in the table (dropped)" "$A4" "$A" "$B" /tmp/ones /tmp/c
dropped_more "edu's DMA dropped" "$before"

rid_allow "$A" 3 "$EDU_RID"
before=$(r32 "$A" $RID_DROPPED)
edu_check "A, edu in the table" "$A4" "$A" "$B" /tmp/q /tmp/p
expect "A RID_DROPPED, edu in the table" "$(r32 "$A" $RID_DROPPED)" "$before"

# edu's entry without VALID: dropped again (and logged again: the table
# changed).
w32 "$A" "$(RID 3)" "$EDU_RID"
before=$(r32 "$A" $RID_DROPPED)
edu_check "A, edu's entry invalid (dropped)" "$A4" "$A" "$B" /tmp/ones /tmp/c
dropped_more "edu's DMA dropped again" "$before"
expect "CPU read through A's LUT, 0x0000 still in the table" "$(r32 "$A4" 0x1000)" 0xcafef00d

# virtio: V (0000:00:1a.0, iommu_platform=on) DMAs through its PCI
# function's address space, U (00:1b.0, no VIRTIO_F_ACCESS_PLATFORM)
# through QEMU's system memory, as QEMU lets such a device do. Each gets a
# queue whose descriptors and available ring are local RAM and whose used
# ring and buffer are reached through A's LUT slot 0: writes the device
# makes when it hands back a buffer of random bytes.
V=/sys/bus/pci/devices/0000:00:1a.0 U=/sys/bus/pci/devices/0000:00:1b.0
for d in "$V" "$U"; do
	[ "$(cat "$d/vendor"):$(cat "$d/device")" = 0x1af4:0x1044 ] ||
		fail "$d is not the qemu file's virtio-rng-pci"
	pci_enable "$d"
done
V_RID=$(requester_id "$V") U_RID=$(requester_id "$U")

# vq_ring K: virtio device K's descriptors (the available ring 0x100
# above) in local RAM; vq_off K: its used ring's offset in A's LUT slot 0
# (the buffer 0x800 above), as in the reserved RAM.
vq_ring() { echo $((RAM + 0x300000 + $1 * 0x1000)); }
vq_off() { echo $((0x6000 + $1 * 0x1000)); }

# vq_start K BAR4: device K's queue set up, its used ring zeroed and its
# buffer 16 bytes of 0x5a; the first buffer made available.
vq_start() {
	w64 $RAM "$(vq_off "$1")" 0
	for i in 0 4 8 12; do
		w32 $RAM $(($(vq_off "$1") + 0x800 + i)) 0x5a5a5a5a
	done
	virtq_setup "$2" "$(vq_ring "$1")" $(($(vq_ring "$1") + 0x100)) \
		$((A4 + $(vq_off "$1"))) $((A4 + $(vq_off "$1") + 0x800))
	virtq_kick "$2" $(($(vq_ring "$1") + 0x100)) 0
}

# vq_used K: the used ring's index of device K, as it arrived in RAM.
vq_used() { r16 $RAM $(($(vq_off "$1") + 2)); }

# vq_untouched K: device K's used ring and buffer as vq_start left them.
vq_untouched() {
	expect "device $1's used index in RAM" "$(vq_used "$1")" 0
	for i in 0 4 8 12; do
		expect "device $1's buffer, byte $i" "$(r32 $RAM $(($(vq_off "$1") + 0x800 + i)))" 0x5a5a5a5a >/dev/null
	done
	echo "ok: device $1's used ring and buffer untouched"
}

# settled K BEFORE: device K handed its buffer back: A dropped more than
# BEFORE, or its used index arrived in RAM.
settled() {
	[ $(($(r32 "$A" $RID_DROPPED))) -gt $(($2)) ] && return 0
	flush "$A" "$B"
	[ $(($(vq_used "$1"))) -ne 0 ]
}

# dropped_since BEFORE: A dropped more than BEFORE.
dropped_since() {
	[ $(($(r32 "$A" $RID_DROPPED))) -gt $(($1)) ]
}

# used_is K N: device K's used index N has arrived in RAM.
used_is() {
	flush "$A" "$B"
	[ $(($(vq_used "$1"))) -eq "$2" ]
}

# vq_dropped K DEVICE WHAT: device K (sysfs DEVICE) started hands its
# buffer back, and A drops what it writes.
vq_dropped() {
	before=$(r32 "$A" $RID_DROPPED)
	vq_start "$1" "$(bar "$2" 4)"
	wait_until 10 settled "$1" "$before" || fail "virtio $2 did not hand its buffer back"
	flush "$A" "$B"
	vq_untouched "$1"
	dropped_more "$3" "$before"
}

# V, not in A's table: what it writes through A is dropped.
vq_dropped 0 "$V" "virtio V's used ring and buffer, V not in the table"

# V listed: its next buffer arrives, random bytes, and the used index with
# it (2: the device counts the one it handed back while dropped).
rid_allow "$A" 4 "$V_RID"
before=$(r32 "$A" $RID_DROPPED)
virtq_kick "$(bar "$V" 4)" $(($(vq_ring 0) + 0x100)) 1
wait_until 10 used_is 0 2 || fail "virtio V's used index $(vq_used 0), not 2, with V in A's table"
[ "$(r32 $RAM $(($(vq_off 0) + 0x800)))" != 0x5a5a5a5a ] || fail "virtio V's buffer not filled"
expect "A RID_DROPPED, V in the table" "$(r32 "$A" $RID_DROPPED)" "$before"

# V's entry taken out (VALID cleared): its next buffer and used index do
# not arrive.
w32 "$A" "$(RID 4)" "$V_RID"
before=$(r32 "$A" $RID_DROPPED)
w32 $RAM $(($(vq_off 0) + 0x800)) 0x5a5a5a5a
virtq_kick "$(bar "$V" 4)" $(($(vq_ring 0) + 0x100)) 2
wait_until 10 dropped_since "$before" || fail "virtio V's DMA not dropped with its entry out"
flush "$A" "$B"
expect "virtio V's used index in RAM, entry out" "$(vq_used 0)" 2
expect "virtio V's buffer, entry out" "$(r32 $RAM $(($(vq_off 0) + 0x800)))" 0x5a5a5a5a

# U listed too, but its DMA carries no requester ID: dropped all the same.
rid_allow "$A" 5 "$U_RID"
vq_dropped 1 "$U" "virtio U's used ring and buffer, untagged"

# Port C has no table: the CPUs and edu go through, nothing is counted.
w32 "$C4" 0x1000 0x12345678
flush "$C" "$D"
expect "RAM after a CPU write through C's LUT, no table" "$(r32 $RAM 0x1000)" 0x12345678
expect "CPU read through C's LUT, no table" "$(r32 "$C4" 0x1004)" 0x0badf00d
edu_check "C, no table" "$C4" "$C" "$D" /tmp/q /tmp/p
expect "C RID_DROPPED" "$(r32 "$C" $RID_DROPPED)" 0
echo "ntb-requester-table: all passed"
