#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The lender of the borrowed-vs-local benchmark: lends its NVMe while node
# 1 measures it against its own.
set -eu
# shellcheck source=../lib/result.sh
. ./result.sh
. ./lend.sh

load_lend
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
smartioctl device add "$(nvme_bdf)"
smartioctl device available 20000
vmctl barrier available
vmctl barrier returned
smartioctl device unavailable 20000
smartioctl device remove 20000
