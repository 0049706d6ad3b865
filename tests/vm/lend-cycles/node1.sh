#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1 for the cycles.
set -eu
. ./lend.sh

load_lend
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
smartioctl device add "$(nvme_bdf)"
smartioctl device available 20000
vmctl barrier available
before=$(sed -n 's/^  windows //p' "$adapters")
vmctl barrier cycled
after=$(sed -n 's/^  windows //p' "$adapters")
echo "node$NODE: windows before: $before; after: $after"
[ "$after" = "$before" ] || fail "window usage grew: $before -> $after"
smartioctl device list | grep -q "^20000: .* available$" ||
	fail "not available after the cycles"
smartioctl device unavailable 20000
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb ntb_hw_smartio smartio
