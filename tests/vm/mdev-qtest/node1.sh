#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1's QEMU (node0.sh) and, once node 1 is
# done, takes it back: its own nvme driver reads the 4 MiB QEMU wrote.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

lend_nvme
bdf=$(nvme_bdf)
vmctl barrier available
vmctl barrier written
check_written 20000 "$bdf" "$(vmctl get written)" 4
echo "node$NODE: the 4 MiB node 1's QEMU wrote read back here the same"
vmctl barrier checked
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
