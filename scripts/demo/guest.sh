# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# make demo's guest (node0.sh's last step, tests/vm/guest/nested.sh): its
# stock nvme driver writes 4 MiB to the NVMe passed to it and reads them
# back.

# shellcheck source=../../tests/vm/guest/nested-guest.sh
. /lib/nested-guest.sh

nested_nvme 4
