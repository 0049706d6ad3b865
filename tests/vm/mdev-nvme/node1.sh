#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1's VFIO client (node0.sh: smartio-vfio
# here, QEMU in mdev-qtest, which links this file) and, once node 1 is
# done, takes it back: its own nvme driver reads what the client wrote
# (node 1 puts its checksum and size in MiB as "written").
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

lend_nvme
bdf=$(nvme_bdf)
vmctl barrier available
vmctl barrier written
written=$(vmctl get written)
check_written 20000 "$bdf" "${written% *}" "${written##* }"
echo "node$NODE: the ${written##* } MiB node 1 wrote through its mdev read back here the same"
vmctl barrier checked
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
