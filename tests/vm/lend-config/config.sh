# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the config-space test: a function's config space read and
# written through sysfs, as setpci would (the image has no setpci), and
# as a driver reads and writes it (smartio_pcicfg_test).

# cfg_read BDF OFFSET SIZE: SIZE bytes (1, 2 or 4) at OFFSET of the config
# space of function BDF, as 0x-hex.
cfg_read() {
	# od prints the bytes in file order, least significant first.
	# shellcheck disable=SC2046 # one word per byte
	set -- $(od -An -tx1 -j "$(($2))" -N "$3" "/sys/bus/pci/devices/$1/config")
	v=
	for b in "$@"; do
		v=$b$v
	done
	printf '0x%x\n' "0x${v:-0}"
}

# cfg_write BDF OFFSET SIZE VALUE: one write of SIZE bytes at OFFSET, as
# setpci makes it: through sysfs, under the PCI core's spinlock, which
# drops the accessor's result.
cfg_write() {
	bytes=
	i=0
	while [ $i -lt "$3" ]; do
		bytes="$bytes\\0$(printf %o $((($4 >> (8 * i)) & 0xff)))"
		i=$((i + 1))
	done
	printf '%b' "$bytes" | dd of="/sys/bus/pci/devices/$1/config" bs="$3" \
		seek=$(($2 / $3)) count=1 conv=notrunc 2>/dev/null ||
		fail "cannot write $1's config space at $2"
}

# cap_of BDF ID: the offset of BDF's first standard capability ID; fails
# if it has none.
cap_of() {
	pos=$(cfg_read "$1" 0x34 1)
	n=0
	while [ $((pos)) -ge 64 ] && [ $n -lt 48 ]; do
		if [ $(($(cfg_read "$1" "$pos" 1))) = $(($2)) ]; then
			printf '0x%x\n' "$pos"
			return 0
		fi
		pos=$(($(cfg_read "$1" $((pos + 1)) 1) & 0xfc))
		n=$((n + 1))
	done
	return 1
}

# ext_cap_of BDF ID: the offset of BDF's first extended capability ID;
# fails if it has none.
ext_cap_of() {
	pos=256
	n=0
	while [ $pos -ge 256 ] && [ $n -lt 480 ]; do
		h=$(($(cfg_read "$1" $pos 4)))
		[ $h != 0 ] && [ $h != $((0xffffffff)) ] || return 1
		if [ $((h & 0xffff)) = $(($2)) ]; then
			printf '0x%x\n' $pos
			return 0
		fi
		pos=$(((h >> 20) & 0xffc))
		n=$((n + 1))
	done
	return 1
}

# driver_write EXPECT BDF OFFSET SIZE VALUE: writes VALUE as a driver
# does (pci_write_config_*() in process context, smartio_pcicfg_test),
# and fails unless the accessor returned EXPECT: 0, or -errno.
driver_write() {
	want=$1
	shift
	before=$(dmesg | grep -c "test config write of" || true)
	rc=0
	echo "$*" 2>/dev/null >/sys/kernel/debug/smartio_pcicfg_test/write || rc=1
	line=$(dmesg | grep "test config write of" | tail -n +$((before + 1)))
	echo "node$NODE: $line"
	echo "$line" | grep -q ": $want\$" ||
		fail "a driver's config write $* returned ${line##*: }, not $want"
	[ $rc = $((want != 0)) ] || fail "the write to smartio_pcicfg_test did not say $want"
}

# driver_read BDF OFFSET SIZE: SIZE bytes at OFFSET of BDF's config space
# read as a driver does (where it may sleep, smartio_pcicfg_test).
driver_read() {
	before=$(dmesg | grep -c "test config read at" || true)
	echo "$*" >/sys/kernel/debug/smartio_pcicfg_test/read ||
		fail "a driver's config read $* failed"
	dmesg | grep "test config read at" | tail -n +$((before + 1)) |
		sed -n 's/.*bytes): //p'
}

# power_state BDF PM HOW: the power state (0 D0 ... 3 D3hot) of function
# BDF, whose power management capability is at PM, read by HOW: "driver"
# or "sysfs".
power_state() {
	case $3 in
	driver) pmcsr=$(driver_read "$1" $(($2 + 4)) 2) ;;
	sysfs) pmcsr=$(cfg_read "$1" $(($2 + 4)) 2) ;;
	esac
	echo $((pmcsr & 3))
}

# power_state_is BDF PM HOW STATE: the power state read by HOW is STATE.
power_state_is() {
	[ "$(power_state "$1" "$2" "$3")" = "$4" ]
}
