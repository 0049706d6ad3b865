#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The lender: lends its NVMe until node 1 has returned it for good.
set -eu
# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

lend_nvme
vmctl barrier available
vmctl barrier returned
smartioctl device unavailable 20000
smartioctl device remove 20000
