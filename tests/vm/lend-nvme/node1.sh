#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1, gets it back, and reads what node 1
# wrote through its own nvme driver.
set -eu
. ./lend.sh

load_lend
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
bdf=$(nvme_bdf)
smartioctl device add "$bdf"
vmctl barrier added
vmctl barrier tried
smartioctl device available 20000
vmctl barrier available
vmctl barrier returned
smartioctl device list | grep -q "^20000: .* available$" ||
	fail "not available again after the return"
smartioctl device unavailable 20000
wait_until 30 test -b /dev/nvme0n1 || fail "no NVMe block device after unavailable"
sum=$(vmctl get sum)
mine=$(nvme_sum /dev/nvme0n1)
echo "node$NODE: node 1 wrote sum $sum, the NVMe holds $mine"
[ "$mine" = "$sum" ] || fail "the NVMe does not hold what node 1 wrote"
vmctl barrier checked
vmctl barrier finished
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb ntb_hw_smartio smartio
