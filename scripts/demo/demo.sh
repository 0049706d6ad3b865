# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# make demo: two machines cabled through an emulated NTB; node 2 lends its
# NVMe and node 1 drives it with Linux's stock nvme driver, then its SATA
# controller, which node 1's stock ahci driver drives (node0.sh, the
# borrower; node1.sh, the lender). What both nodes share: the lending
# tests' helpers (the image's, tests/vm/guest/, so the demo does what the
# tests check) and the story's voice. Any failed step ends the script with a
# "FAIL:" line, and make demo with it.
set -eu

# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

# say TEXT: one line of the story, in this node's role (ROLE: borrower or
# lender; smartio numbers the nodes from 1, the console from 0).
say() {
	echo "$ROLE: $*"
}

# step TEXT: a numbered step of the story.
step() {
	steps=$((${steps:-0} + 1))
	echo
	say "[$steps] $*"
}

# show COMMAND...: prints COMMAND as typed and its output; a failing
# COMMAND ends the demo.
show() {
	say "\$ $*"
	out=$("$@" 2>&1) || { echo "$out"; fail "$* failed"; }
	[ -z "$out" ] || echo "$out" | sed "s/^/$ROLE:   /"
}

# meet NAME: waits for the other node at barrier NAME. A barrier, unlike
# vmctl get, fails at once when the other node has failed.
meet() {
	vmctl barrier "$1" || fail "the other node failed before \"$1\" (its FAIL: line says why)"
}

# demo_load: smartio's modules and the NTB model's hardware driver
# (load_lend loads it with ntb_load, testlib.sh); says which driver took
# each NTB port.
demo_load() {
	say "loading smartio, its NTB layer, its lending module and the NTB's driver"
	load_lend
	# The AHCI driver and the disks above it: no udev loads them here.
	modprobe ahci
	modprobe sd_mod
	for port in /sys/bus/ntb/devices/*; do
		[ -e "$port" ] || fail "no NTB port: the NTB's driver bound to nothing"
		say "NTB port $(basename "$(readlink -f "$port/..")"): driver" \
			"$(basename "$(readlink "$port/../driver")"), NTB model $NTB_MODEL" \
			"(tests/vm/ntb-models)"
	done
}

# demo_unload: the modules demo_load loaded, in reverse.
demo_unload() {
	rmmod smartio_lend smartio_ntb smartio
	ntb_unload
}

# demo_joined NODE: waits for smartio node NODE to join across the NTB.
demo_joined() {
	wait_until 30 joined "$1" || { show_adapters; fail "node $1 never joined"; }
	show smartioctl node list
}
