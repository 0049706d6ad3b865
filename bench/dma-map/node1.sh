#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The lending side of the DMA-map benchmark: node 2 lends its NVMe to
# node 1 and takes it back.
set -eu
# shellcheck source=bench.sh
. ./bench.sh

load_lend
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
smartioctl device add "$(nvme_bdf)"
smartioctl device available 20000
vmctl barrier available
vmctl barrier returned
smartioctl device unavailable 20000
smartioctl device remove 20000
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
