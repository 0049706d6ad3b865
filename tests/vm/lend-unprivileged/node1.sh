#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe (fdid 20000), makes it unavailable and available
# again while node 1 checks what its unprivileged users are told (node0.sh).
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

lend_nvme
vmctl barrier available
vmctl barrier listed
smartioctl device unavailable 20000
vmctl barrier unavailable
vmctl barrier stale
smartioctl device available 20000
vmctl barrier available-again
vmctl barrier finished
smartioctl device unavailable 20000
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
