# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the fabric tests: smartio_ntb's adapters and peers as its
# debugfs file shows them, and its kernel messages.

. ./ntb.sh

adapters=/sys/kernel/debug/smartio/adapters

# joined NODE: some adapter has a peer NODE that has joined.
joined() {
	grep -q "^  peer [0-9]* port [0-9]* node $1 joined\$" "$adapters"
}

not_joined() {
	! joined "$1"
}

# own_node ADAPTER NODE: adapter ADAPTER has node id NODE.
own_node() {
	grep -q "^adapter $1 port [0-9]* node $2 pci " "$adapters"
}

# log_count REGEX: how many kernel messages match REGEX.
log_count() {
	dmesg | grep -c "$1" || true
}

# log_more REGEX COUNT: more than COUNT kernel messages match REGEX.
log_more() {
	[ "$(log_count "$1")" -gt "$2" ]
}

show_adapters() {
	echo "node$NODE: $adapters:"
	cat "$adapters"
}
