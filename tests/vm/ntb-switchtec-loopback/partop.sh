# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The emulated switch's partition operations when both hosts run them on
# one partition (qemu/switchtec-ntb.md, "NTB control"), through the GAS of
# this VM's two NT endpoints before any driver claims them: each endpoint
# stands for the host of its partition. Both work on partition 1's
# control, which the endpoint of partition 0 reaches across the cable.
# Sourced by node0.sh (after testlib.sh).

STX_NTB_INFO=0x10000
STX_CTRL1=$((0x14000 + 0x2000))
STX_STATUS=0x0
STX_OP=0x4
STX_LUT_ERROR=0x18
STX_LUT=0x1000
STX_NORMAL=1
STX_LOCKED=2
STX_LOCKING=3
STX_LOCK=1
STX_CFG=2
STX_RESET=3

# stx_ctl HOST OFFSET [VALUE]: reads (prints, in decimal) or writes the
# dword at OFFSET of partition 1's control, through the endpoint of HOST's
# partition.
stx_ctl() {
	eval "stx_base=\$stx_gas$1"
	# shellcheck disable=SC2154 # set by eval
	if [ $# -eq 3 ]; then
		devmem $((stx_base + STX_CTRL1 + $2)) 32 "$3"
	else
		echo $(($(devmem $((stx_base + STX_CTRL1 + $2)) 32)))
	fi
}

# stx_op HOST OP: partition_op written by HOST.
stx_op() {
	stx_ctl "$1" $STX_OP "$2"
}

# stx_expect WHAT VALUE CHECK: fails with WHAT unless CHECK (a command)
# prints VALUE.
stx_expect() {
	what=$1
	want=$2
	shift 2
	got=$("$@")
	[ "$got" -eq "$want" ] || fail "partop: $what: read $got, expected $want"
}

stx_status() {
	stx_ctl "$1" $STX_STATUS
}

# stx_lut_of HOST ENTRY, stx_set_lut HOST ENTRY VALUE: the low dword of a
# LUT entry, read or written by HOST.
stx_lut_of() {
	stx_ctl "$1" $((STX_LUT + 8 * $2))
}

stx_set_lut() {
	stx_ctl "$1" $((STX_LUT + 8 * $2)) "$3"
}

partop_test() {
	for d in $(pci_devices 0x11f8 0x8532); do
		echo 1 >"$d/enable"
		read -r start _ <"$d/resource"
		part=$((($(devmem $((start + STX_NTB_INFO)) 32) >> 8) & 0xff))
		eval "stx_gas$part=$((start))"
	done
	if [ -z "${stx_gas0:-}" ] || [ -z "${stx_gas1:-}" ]; then
		fail "partop: no endpoints of partitions 0 and 1"
	fi
	# LUT entries: a 64 KiB-aligned address, target partition, enable.
	v1=$((0x10000 | 0 << 1 | 1))
	v2=$((0x20000 | 0 << 1 | 1))
	bad=$((0x30000 | 5 << 1 | 1))

	stx_op 0 $STX_LOCK
	stx_expect "host 0 locks" $STX_LOCKED stx_status 0
	stx_op 1 $STX_LOCK
	stx_expect "host 1 locks while host 0 holds the lock" $STX_LOCKING stx_status 1
	stx_set_lut 1 2 $v2
	stx_expect "entry written by the host that waits" 0 stx_lut_of 0 2
	stx_set_lut 0 1 $v1
	stx_expect "entry written by the holder, read by the other" $v1 stx_lut_of 1 1
	stx_op 0 $STX_CFG
	stx_expect "host 0 configures" $STX_NORMAL stx_status 0
	stx_expect "host 1 once host 0 configured" $STX_LOCKED stx_status 1
	stx_set_lut 1 2 $v2
	stx_expect "entry written by host 1, now the holder" $v2 stx_lut_of 0 2
	stx_op 1 $STX_RESET
	stx_expect "host 1 resets" $STX_NORMAL stx_status 1
	stx_expect "entry host 1 reset" 0 stx_lut_of 1 2
	stx_expect "entry host 0 configured" $v1 stx_lut_of 1 1

	# A refused configuration: the holder keeps the lock.
	stx_op 1 $STX_LOCK
	stx_expect "host 1 locks a free lock" $STX_LOCKED stx_status 1
	stx_set_lut 1 3 $bad
	stx_op 1 $STX_CFG
	stx_expect "host 1 configures an entry to no partition" $STX_LOCKED stx_status 1
	stx_expect "lut_error" 1 stx_ctl 0 $STX_LUT_ERROR
	stx_op 0 $STX_LOCK
	stx_expect "host 0 locks while host 1 keeps the lock" $STX_LOCKING stx_status 0
	stx_op 1 $STX_RESET
	stx_expect "host 1 resets after the refusal" $STX_NORMAL stx_status 1
	stx_expect "host 0 once host 1 reset" $STX_LOCKED stx_status 0
	stx_expect "entry refused" 0 stx_lut_of 0 3
	stx_set_lut 0 1 0
	stx_op 0 $STX_CFG
	stx_expect "host 0 configures again" $STX_NORMAL stx_status 0
	stx_expect "lut_error after a good configuration" 0 stx_ctl 1 $STX_LUT_ERROR
	stx_expect "entry cleared" 0 stx_lut_of 1 1

	for d in $(pci_devices 0x11f8 0x8532); do
		echo 0 >"$d/enable"
	done
	echo "partop: partition operations of two hosts on one partition as specified"
}
