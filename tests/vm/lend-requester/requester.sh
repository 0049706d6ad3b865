# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the requester-ID tests: smartio_ntb's requester entries as
# <debugfs>/smartio/requesters shows them, and its knob.

requesters=/sys/kernel/debug/smartio/requesters

# table_size NODE: entries of the requester-ID table toward NODE, as the
# hardware driver reports them ("none" without a table).
table_size() {
	sed -n "s/^adapter [0-9]* peer [0-9]* node $1 table \(.*\)\$/\1/p" "$requesters" |
		grep . || fail "no peer node $1 in $requesters"
}

# users_of NODE BDF: users of BDF's entry toward NODE, "none" when unlisted.
users_of() {
	awk -v node="$1" -v bdf="$2" '
		$1 == "adapter" { in_node = ($6 == node) }
		in_node && $1 == bdf { users = $3 }
		END { print users == "" ? "none" : users }' "$requesters"
}

# requester_knob CMD NODE BDF: "add" or "remove" BDF toward NODE by hand;
# fails as the write does.
requester_knob() {
	echo "$1 $2 $3" >"$requesters"
}

# expect_knob_error CMD...: the knob refuses "CMD...".
expect_knob_error() {
	out=$(printf '%s\n' "$*" 2>&1 >"$requesters") && fail "requesters knob took '$*'"
	echo "node$NODE: requesters knob refused '$*': $out"
}

# rid_dropped: requests the emulated NTB's requester-ID table dropped
# (its RID_DROPPED register, qemu/smartio-ntb.md).
rid_dropped() {
	ntb=$(pci_devices 0x1234 0x4e54 | head -n 1)
	[ -n "$ntb" ] || fail "no NTB"
	regs=$(sed -n 1p "$ntb/resource" | cut -d' ' -f1)
	echo $(($(devmem $((regs + 0x02c)) 32)))
}

show_requesters() {
	echo "node$NODE: $requesters:"
	cat "$requesters"
}
