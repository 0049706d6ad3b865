# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The script of mdev-guest's nested guest (node0.sh), with the stock
# drivers of the two devices passed to it: the nvme driver writes 16 MiB
# of random data to the NVMe and reads them back; the e1000e, up as
# 10.0.0.1, pings the lender's peer NIC (10.0.0.2, tests/vm/guest/nic.sh).

# shellcheck source=../guest/nested-guest.sh
. /lib/nested-guest.sh

nested_nvme 16
nested_ping e1000e 10.0.0.1 10.0.0.2
