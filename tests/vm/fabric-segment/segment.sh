# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the segment tests: the NTB layer with the windows the test
# directory's windows.sh names (WINDOWS=lut: the window manager maps
# remote segments through LUT windows, translated here; WINDOWS=direct:
# through direct windows, which the owner translates when asked).

# shellcheck source=../fabric-nodes/fabric.sh
. ./fabric.sh
# shellcheck source=windows.sh
. ./windows.sh

load_fabric() {
	case $WINDOWS in
	lut) modprobe ntb_hw_smartio use_lut_mws=1 ;;
	direct) modprobe ntb_hw_smartio use_lut_mws=0 ;;
	*) fail "windows.sh: WINDOWS=$WINDOWS, not lut or direct" ;;
	esac
	modprobe smartio_ntb
	# Every adapter has windows of the kind asked for, and no other.
	grep '^  windows ' "$adapters" | while read -r _ _ lut _ direct _ _; do
		case $WINDOWS in
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
