# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the segment tests: the NTB layer with LUT windows (the
# window manager maps remote segments through them), and what a user
# without privileges gets.

# shellcheck source=../fabric-nodes/fabric.sh
. ./fabric.sh

load_fabric() {
	modprobe ntb_hw_smartio use_lut_mws=1
	modprobe smartio_ntb
}

# expect_eperm COMMAND...: COMMAND, run as nobody, fails with EPERM.
expect_eperm() {
	rc=0
	out=$(as_nobody "$@" 2>&1) || rc=$?
	echo "node$NODE: as nobody: $*: $out"
	[ $rc = 1 ] || fail "$* as nobody: exit status $rc, not 1"
	echo "$out" | grep -q "Operation not permitted" ||
		fail "$* as nobody: not EPERM"
}
