#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's NTB selftest, ntb_test.sh, unmodified, on two ports of the
# emulated NTB cabled to each other in this VM: ntb_tool (ports, link,
# doorbells, scratchpads, memory windows), ntb_pingpong and ntb_perf, run
# through ntb_hw_smartio and the upstream NTB core.
set -eu

# shellcheck source=../guest/testlib.sh
. /usr/local/lib/vmtest/testlib.sh
# shellcheck source=../guest/ntb-selftest.sh
. /usr/local/lib/vmtest/ntb-selftest.sh

# PCI probing is synchronous: both NTB devices exist once this returns.
modprobe ntb_hw_smartio

# shellcheck disable=SC2046 # two PCI names, no spaces
set -- $(ntb_test_devices)
[ $# -eq 2 ] || fail "expected two NTB devices, found $#: $*"
echo "ntb-loopback: testing $1 and $2"

# Windows are 4 MiB and must be used whole (the inbound address is aligned
# to the window size); ntb_perf moves 4 MiB each way, not its default 4 GiB,
# which would take hours through an emulated link.
ntb_test_run "$1" "$2" -m 4194304 -w 4194304 -p 22

# Port, 2 link, 2 doorbell, 2 scratchpad, 2 x 2 memory window, ping pong,
# 2 perf; only the message tests may be unsupported: the device has no
# message registers.
ntb_test_passed 14 2

modprobe -r ntb_hw_smartio
[ ! -e /sys/module/ntb_hw_smartio ] || fail "ntb_hw_smartio still loaded"
echo "ntb-loopback: all ntb_test.sh subtests passed"
