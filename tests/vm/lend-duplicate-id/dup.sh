# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for lend-duplicate-id, whose VMs 0, 1 and 2 are the victim (node
# 1), the lender (node 2) and the impostor (which claims node id 1): the
# lender lends its NVMe, fdid 20000, and the victim borrows it.

# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

fdid=20000
