#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends both its NVMe functions to node 1 at once.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

load_lend
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
for bdf in $(nvme_bdfs); do
	smartioctl device add "$bdf"
done
smartioctl device available 20000
smartioctl device available 20001
vmctl barrier available
vmctl barrier returned
[ "$(smartioctl device list | grep -c "^2000[01]: .* available$")" = 2 ] ||
	fail "not both available again after the return"
for fdid in 20000 20001; do
	smartioctl device unavailable $fdid
	smartioctl device remove $fdid
done
rmmod smartio_lend smartio_ntb smartio
ntb_unload
