# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the emulated NTB's DMA tests (ntb-device-dma,
# ntb-requester-table): QEMU's edu device as a DMA master (registers from
# QEMU's hw/misc/edu.c) and the reserved RAM region (the test.conf's
# memmap=) as DMA source and target, read and written through /dev/mem.
# shellcheck disable=SC2034 # the constants are used by the scripts sourcing this

RAM=0x20000000		# reserved by test.conf's memmap=4M$0x20000000
RAM_SIZE=$((4 << 20))
LEN=1024		# bytes per DMA
LUT_SLOT_SIZE=$((1 << 21))

# edu: DMA source, destination, count and command (64-bit registers); its
# 4 KiB buffer sits at device address 0x40000 and is reachable only by DMA
# (the BAR does not expose it). edu aborts QEMU (hw_error) on a DMA range
# that is not strictly inside the buffer: 0x40000 + count must stay below
# 0x41000, so a full 4 KiB transfer is refused.
EDU_SRC=0x80
EDU_DST=0x88
EDU_CNT=0x90
EDU_CMD=0x98
EDU_BUF=0x40000
EDU_RUN=0x1
EDU_FROM_RAM=0x1	# RUN, direction 0: bus address -> buffer
EDU_TO_RAM=0x3		# RUN, direction 1: buffer -> bus address

# The PCI device of edu.
edu_device() {
	pci_devices 0x1234 0x11e8
}

# edu_dma BAR CMD SRC DST: one DMA of LEN bytes, waiting for its end.
# edu runs it from a timer 100 ms (virtual) after the command is written
# and clears RUN when done.
edu_dma() {
	[ $(($(r32 "$1" $EDU_CMD) & EDU_RUN)) -eq 0 ] || fail "edu DMA already running"
	if [ $(($2 & 2)) -eq 0 ]; then buf=$4; else buf=$3; fi
	if [ $((buf)) -lt $((EDU_BUF)) ] || [ $((buf + LEN)) -ge $((EDU_BUF + 4096)) ]; then
		fail "edu DMA range $buf+$LEN outside its buffer (would abort QEMU)"
	fi
	w64 "$1" $EDU_SRC "$3"
	w64 "$1" $EDU_DST "$4"
	w64 "$1" $EDU_CNT $LEN
	expect "edu DMA source" "$(r64 "$1" $EDU_SRC)" "$3" >/dev/null
	expect "edu DMA destination" "$(r64 "$1" $EDU_DST)" "$4" >/dev/null
	w32 "$1" $EDU_CMD "$2"
	i=0
	while [ $(($(r32 "$1" $EDU_CMD) & EDU_RUN)) -ne 0 ]; do
		i=$((i + 1))
		[ $i -le 100 ] || fail "edu DMA $3 -> $4 did not complete within 10 s"
		usleep 100000
	done
	printf "ok: edu DMA of %d bytes, 0x%x -> 0x%x (command %s)\n" $LEN "$3" "$4" "$2"
}

# pattern SEED [COUNT]: COUNT (default LEN) bytes, none zero, varying with
# the seed and the position.
pattern() {
	awk -v s="$1" -v n=$((${2:-LEN})) 'BEGIN {
		for (i = 0; i < n; i++)
			printf "%c", (i * i * 3 + i * 7 + int(i / 251) + s * 101) % 255 + 1
	}'
}

# mem_put ADDR FILE / mem_get ADDR [COUNT]: physical memory through
# /dev/mem, byte by byte (any alignment).
mem_put() {
	dd if="$2" of=/dev/mem bs=1 seek=$(($1)) conv=notrunc 2>/dev/null ||
		fail "writing $2 to $1 through /dev/mem"
}
mem_get() {
	dd if=/dev/mem bs=1 skip=$(($1)) count=$((${2:-LEN})) 2>/dev/null ||
		fail "reading $1 through /dev/mem"
}

# same WHAT EXPECTED_FILE GOT_FILE: fail, showing the differing bytes,
# unless the files are identical.
same() {
	if cmp -s "$2" "$3"; then
		echo "ok: $1 ($(wc -c <"$2") bytes)"
		return
	fi
	echo "FAIL: $1: $(cmp -l "$2" "$3" 2>/dev/null | wc -l) of $(wc -c <"$2") bytes differ" >&2
	cmp -l "$2" "$3" 2>&1 | head -8 | awk '
		function oct(s,  v, k) { for (k = 1; k <= length(s); k++) v = v * 8 + substr(s, k, 1); return v }
		NF == 3 { printf "  offset 0x%x: expected 0x%02x, got 0x%02x\n", $1 - 1, oct($2), oct($3); next }
		{ print "  " $0 }' >&2
	echo "  expected:" >&2
	xxd "$2" | head -2 >&2
	echo "  got:" >&2
	xxd "$3" | head -2 >&2
	exit 1
}
