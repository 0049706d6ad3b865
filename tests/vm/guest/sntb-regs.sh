# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
#
# Poking the emulated NTB (smartio-ntb) with busybox devmem, no driver.
# Register offsets from include/smartio/emu_ntb_regs.h.
# shellcheck disable=SC2034 # the constants are used by the scripts sourcing this

ID=0x000
PORT=0x008
CAPS=0x00c
LUT_ENTRIES=0x010
LUT_SHIFT=0x014
DIRECT_SHIFT=0x018
LINK_CTRL=0x020
LINK_STATUS=0x024
LINK_EVENT=0x028
DB_STATUS=0x030
DB_MASK=0x034
DB_SET=0x038
PEER_DB_SET=0x03c
WIN_DROPPED=0x040
SPAD() { printf '0x%x' $((0x100 + 4 * $1)); }
PEER_SPAD() { printf '0x%x' $((0x180 + 4 * $1)); }
XLAT_ADDR() { printf '0x%x' $((0x200 + 0x10 * $1)); }
XLAT_SIZE() { printf '0x%x' $((0x208 + 0x10 * $1)); }
LUT_ADDR() { printf '0x%x' $((0x8000 + 0x10 * $1)); }
LUT_PORT() { printf '0x%x' $((0x8008 + 0x10 * $1)); }
LINK_UP=0x40301	# UP, gen 3, x4
RID_ENTRIES=0x01c
RID_DROPPED=0x02c
RID() { printf '0x%x' $((0x400 + 4 * $1)); }
RID_VALID=0x80000000
RID_ROOT=0x0000	# the CPUs' requests: the root complex, 00:00.0

# shellcheck source=tests/vm/guest/testlib.sh
. /usr/local/lib/vmtest/testlib.sh

# The PCI devices of the emulated NTB, one per line.
sntb_devices() {
	pci_devices 0x1234 0x4e54
}

# requester_id DIR: the requester ID (bus << 8 | devfn) of the PCI function
# in sysfs directory DIR.
requester_id() {
	f=${1##*/}
	f=${f#*:}
	bus=${f%%:*} f=${f#*:}
	printf '0x%04x' $(((0x$bus << 8) | (0x${f%.*} << 3) | ${f#*.}))
}

# rid_allow BASE N ID: entry N of the port's requester-ID table (register
# BAR at BASE) lets requester ID through its windows.
rid_allow() {
	w32 "$1" "$(RID "$2")" $((RID_VALID | $3))
}

# Start address of BAR $2 of device $1.
bar() {
	sed -n "$(($2 + 1))p" "$1/resource" | cut -d' ' -f1
}

# Memory decoding and bus mastering on (busybox has no setpci).
pci_enable() {
	printf '\006\000' | dd of="$1/config" bs=1 seek=4 count=2 conv=notrunc 2>/dev/null
}

# r32 BASE OFF / w32 BASE OFF VALUE, and the same for 64 bits; values are
# printed in lower-case hex.
r32() { printf '0x%x' "$(devmem $(($1 + $2)) 32)"; }
w32() { devmem $(($1 + $2)) 32 "$3"; }
r64() { printf '0x%x' "$(devmem $(($1 + $2)) 64)"; }
w64() { devmem $(($1 + $2)) 64 "$3"; }
r8() { printf '0x%x' "$(devmem $(($1 + $2)) 8)"; }
r16() { printf '0x%x' "$(devmem $(($1 + $2)) 16)"; }

# expect WHAT ACTUAL EXPECTED
expect() {
	[ $(($2)) -eq $(($3)) ] || fail "$1: got $2, expected $3"
	echo "ok: $1 = $2"
}

# wait_reg BASE OFF VALUE SECONDS: poll a 32-bit register until it equals
# VALUE.
wait_reg() {
	i=0
	while [ $(($(r32 "$1" "$2"))) -ne $(($3)) ]; do
		i=$((i + 1))
		[ $i -le $(($4 * 10)) ] || return 1
		usleep 100000
	done
}
