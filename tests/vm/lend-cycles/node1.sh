#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1 for the cycles.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

lend_nvme
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
rmmod smartio_lend smartio_ntb smartio
ntb_unload
