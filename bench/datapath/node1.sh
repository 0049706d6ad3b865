#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The lender of the data-path benchmarks (datapath, and mdev, which links
# this file): lends its NVMe, and counts its fabric messages, interrupts
# and busy CPU time while node 1 reads it (fio; an mdev's client).
set -eu
# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../lib/counters.sh
. /usr/local/lib/vmbench/counters.sh

lend_nvme
vmctl barrier available
vmctl barrier borrowed
lender_counts
vmctl barrier returned
smartioctl device unavailable 20000
smartioctl device remove 20000
