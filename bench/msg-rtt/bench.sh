# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# What the benchmarks' nodes share: the guest test library, the fabric up,
# and how to report.

# shellcheck source=../../tests/vm/guest/testlib.sh
. /usr/local/lib/vmtest/testlib.sh
# shellcheck source=../lib/result.sh
. /usr/local/lib/vmbench/result.sh

joined() {
	grep -q "^  peer [0-9]* port [0-9]* node $1 joined\$" /sys/kernel/debug/smartio/adapters
}

# fabric_up NODE: smartio on the NTB, and NODE joined.
fabric_up() {
	ntb_load
	modprobe smartio_ntb
	wait_until 30 joined "$1" || fail "node $1 never joined"
}
