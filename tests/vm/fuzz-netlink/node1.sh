#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe to node 1 and fuzzes its netlink family after
# node 1 did (see node0.sh); then lends it again, and reads back what
# node 1 wrote to it.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../guest/fuzz.sh
. /usr/local/lib/vmtest/fuzz.sh
. ./netlink.sh

lend_nvme
bdf=$(nvme_bdf)
leak_mark
vmctl barrier available
vmctl barrier borrowed

nl_fuzz "$bdf" "$(ntb_ports | head -n 1)"
vmctl barrier returned

fdid=$(devices_reset "$bdf")
echo "node$NODE: after fuzzing, $bdf is fdid $fdid"
vmctl put fdid "$fdid"
vmctl barrier written
no_leak
sum=$(vmctl get sum)
check_written "$fdid" "$bdf" "$sum"
smartioctl device remove "$fdid"
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
