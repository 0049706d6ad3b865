#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The lender of the NVMe benchmarks (nvme, borrow-latency): lends its NVMe
# until node 1 has returned it for good.
set -eu
. ./lend.sh

lend_nvme
vmctl barrier available
vmctl barrier returned
smartioctl device unavailable 20000
smartioctl device remove 20000
