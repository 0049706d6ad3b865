#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The echoing side of the messaging benchmark.
set -eu
# shellcheck source=../../tests/vm/guest/testlib.sh
. /usr/local/lib/vmtest/testlib.sh

joined() {
	grep -q "^  peer [0-9]* port [0-9]* node $1 joined\$" /sys/kernel/debug/smartio/adapters
}

modprobe ntb_hw_smartio
modprobe smartio_ntb
wait_until 30 joined 1 || fail "node 1 never joined"
vmctl barrier finished
