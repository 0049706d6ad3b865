#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe (fdid 20000) to node 1, whose refused adds must not
# show here either.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

lend_nvme
before=$(smartioctl device list | sed "/^20000:/d")
vmctl barrier available
vmctl barrier returned
[ "$(smartioctl device list | sed "/^20000:/d")" = "$before" ] ||
	fail "node 1's refused adds changed the list here: $(smartioctl device list)"
smartioctl device unavailable 20000
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
