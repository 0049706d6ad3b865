# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the segment tests: the NTB layer with the windows of the
# test's NTB model (NTB_WINDOWS=lut: the window manager maps remote
# segments through LUT windows, translated here; NTB_WINDOWS=direct:
# through direct windows, which the owner pointed at all it lets us reach).

# shellcheck source=tests/vm/guest/fabric.sh
. /usr/local/lib/vmtest/fabric.sh

load_fabric() {
	ntb_load
	modprobe smartio_ntb
	# Every adapter has windows of the model's kind, and no other.
	grep '^  windows ' "$adapters" | while read -r _ _ lut _ direct _ _; do
		case $NTB_WINDOWS in
		lut) [ "${lut#*/}" != 0 ] || fail "no LUT windows: $lut" ;;
		direct)
			[ "$lut" = 0/0 ] || fail "LUT windows: $lut"
			[ "${direct#*/}" != 0 ] || fail "no direct windows: $direct"
			;;
		esac
	done
}

# windows_idle: no adapter has a window slot in use or an inbound window
# open for a peer.
windows_idle() {
	! grep '^  windows ' "$adapters" |
		grep -v '^  windows lut 0/[0-9]* direct 0/[0-9]* inbound 0$'
}

# segment_remove ID: removes local segment ID, which must have no node
# connected to it any more. A node's closing of its connection reaches us
# as an event (ntb/segment.c, SEGMENT_DISCONNECT) a little after its
# process let go, so EBUSY is tried again for 10 s.
segment_remove() {
	wait_until 10 smartio-seg remove "$1" 2>/dev/null ||
		fail "segment $1 not removable: $(smartio-seg remove "$1" 2>&1)"
}
