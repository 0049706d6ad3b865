# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
#
# A virtio device (QEMU's virtio-rng-pci, modern) driven by hand with
# busybox devmem, no driver: one queue of a few descriptors whose rings
# and buffer lie where the test says. Offsets are the virtio 1.x spec's
# (struct virtio_pci_common_cfg, split virtqueues); QEMU's virtio-pci puts
# the common configuration at offset 0 and the notifications at 0x3000 of
# BAR 4 (its VIRTIO_PCI_CAP_COMMON_CFG and _NOTIFY_CFG capabilities, with
# a notify_off_multiplier of 4).
# shellcheck disable=SC2034 # the constants are used by the scripts sourcing this

VQ_DFSELECT=0x00 VQ_DF=0x04 VQ_GFSELECT=0x08 VQ_GF=0x0c
VQ_STATUS=0x14 VQ_SELECT=0x16 VQ_SIZE=0x18 VQ_ENABLE=0x1c VQ_NOTIFY_OFF=0x1e
VQ_DESC=0x20 VQ_AVAIL=0x28 VQ_USED=0x30
VQ_NOTIFY=0x3000
VQ_S_ACK=1 VQ_S_DRIVER=2 VQ_S_DRIVER_OK=4 VQ_S_FEATURES_OK=8
VQ_NUM=4		# descriptors in the queue
VQ_BUF_LEN=16		# bytes of the one buffer, device-writable

w8() { devmem $(($1 + $2)) 8 "$3"; }
w16() { devmem $(($1 + $2)) 16 "$3"; }

# virtq_setup BAR4 DESC AVAIL USED BUF: resets the device at BAR4 (its
# BAR 4), accepts VERSION_1 and ACCESS_PLATFORM where offered and nothing
# else, and gives queue 0 VQ_NUM entries at bus addresses DESC, AVAIL and
# USED (DESC and AVAIL written here through /dev/mem: they must be RAM the
# CPU reaches at those addresses), all pointing at the one buffer BUF of
# VQ_BUF_LEN bytes; nothing is made available yet.
virtq_setup() {
	w8 "$1" $VQ_STATUS 0
	w8 "$1" $VQ_STATUS $VQ_S_ACK
	w8 "$1" $VQ_STATUS $((VQ_S_ACK | VQ_S_DRIVER))
	w32 "$1" $VQ_DFSELECT 1
	hi=$(r32 "$1" $VQ_DF)
	w32 "$1" $VQ_GFSELECT 0
	w32 "$1" $VQ_GF 0
	w32 "$1" $VQ_GFSELECT 1
	w32 "$1" $VQ_GF $((hi & 3))
	w8 "$1" $VQ_STATUS $((VQ_S_ACK | VQ_S_DRIVER | VQ_S_FEATURES_OK))
	[ $(($(r8 "$1" $VQ_STATUS) & VQ_S_FEATURES_OK)) -ne 0 ] ||
		fail "virtio device at $1 refused features 0x$((hi & 3))00000000"
	w16 "$1" $VQ_SELECT 0
	w16 "$1" $VQ_SIZE $VQ_NUM
	w32 "$1" $VQ_DESC $(($2 & 0xffffffff))
	w32 "$1" $((VQ_DESC + 4)) $(($2 >> 32))
	w32 "$1" $VQ_AVAIL $(($3 & 0xffffffff))
	w32 "$1" $((VQ_AVAIL + 4)) $(($3 >> 32))
	w32 "$1" $VQ_USED $(($4 & 0xffffffff))
	w32 "$1" $((VQ_USED + 4)) $(($4 >> 32))
	i=0
	while [ $i -lt $VQ_NUM ]; do
		# struct vring_desc: addr, len, flags (VRING_DESC_F_WRITE), next
		w64 "$2" $((16 * i)) "$5"
		w32 "$2" $((16 * i + 8)) $VQ_BUF_LEN
		w32 "$2" $((16 * i + 12)) 2
		i=$((i + 1))
	done
	# struct vring_avail: flags (VRING_AVAIL_F_NO_INTERRUPT), idx 0
	w32 "$3" 0 1
	w16 "$1" $VQ_ENABLE 1
	w8 "$1" $VQ_STATUS $((VQ_S_ACK | VQ_S_DRIVER | VQ_S_FEATURES_OK | VQ_S_DRIVER_OK))
}

# virtq_kick BAR4 AVAIL N: makes descriptor N available as the N+1st entry
# (avail idx N+1) and notifies queue 0 (selected by virtq_setup) of the
# device at BAR4.
virtq_kick() {
	w16 "$2" $((4 + 2 * $3)) "$3"
	w16 "$2" 2 $(($3 + 1))
	w16 "$1" $((VQ_NOTIFY + 4 * $(r16 "$1" $VQ_NOTIFY_OFF))) 0
}
