#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its edu (fdid 20000) and its NVMe controller with a
# controller memory buffer (fdid 20001) to node 1, for peer-to-peer DMA
# between them and node 1's own devices, and gets both back.
set -eu
. ./lend.sh

load_lend
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
edu=$(pci_name_of 0x1234 0x11e8 "edu")
nvme=$(nvme_bdf)
smartioctl device add "$edu"
smartioctl device add "$nvme"
smartioctl device available 20000
smartioctl device available 20001
vmctl barrier available
vmctl barrier returned
smartioctl device list | grep -c " available$" | grep -qx 2 ||
	fail "not both available again after the return"
smartioctl device unavailable 20000
smartioctl device unavailable 20001
[ "$(driver_of "$nvme")" = nvme ] || fail "nvme did not take $nvme back"
smartioctl device remove 20000
smartioctl device remove 20001
rmmod smartio_lend smartio_ntb smartio
ntb_unload
