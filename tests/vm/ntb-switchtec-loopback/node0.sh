#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's NTB selftest, ntb_test.sh, unmodified, over two partitions
# of the emulated Switchtec cabled to each other in this VM, driven by the
# unmodified upstream switchtec.ko and ntb_hw_switchtec.ko: ntb_tool (link,
# doorbells, scratchpads in the shared memory window, memory windows),
# ntb_pingpong and ntb_perf. The VM has an IOMMU: inbound requests arrive
# with the switch's proxy IDs, which it accepts only through the kernel's
# Switchtec DMA-alias quirk. First, before the drivers, the two partitions'
# hosts' partition operations on one partition (partop.sh).
set -eu

# shellcheck source=../guest/testlib.sh
. /usr/local/lib/vmtest/testlib.sh
# shellcheck source=../guest/ntb-selftest.sh
. /usr/local/lib/vmtest/ntb-selftest.sh
# shellcheck source=partop.sh
. ./partop.sh

partop_test

modprobe switchtec
modprobe ntb_hw_switchtec

# The quirk aliased the proxy IDs of the other partition's requester table.
dmesg | grep -q 'Setting Switchtec proxy ID aliases' ||
	fail "quirk_switchtec_ntb_dma_alias did not run"
# switchtec.ko's probe asks for ntb_hw_switchtec itself, without waiting:
# the modprobe above may return while that load still adds the devices.
registered() {
	[ "$(dmesg | grep -c 'switchtec[0-9]*: NTB device registered')" -eq 2 ]
}
wait_until 60 registered ||
	{ dmesg | grep -i switchtec; fail "ntb_hw_switchtec did not register two NTB devices"; }

# shellcheck disable=SC2046 # two PCI names, no spaces
set -- $(ntb_test_devices)
[ $# -eq 2 ] || fail "expected two NTB devices, found $#: $*"
echo "ntb-switchtec-loopback: testing $1 and $2"

# ntb_hw_switchtec offers windows of at most max_mw_size (2 MiB by
# default), aligned to their size: use them whole.
ntb_test_run "$1" "$2" -m 2097152 -w 2097152 -p 21

# Port, 2 link, 2 doorbell, 2 scratchpad, 2 x 2 memory window, ping pong,
# 2 perf. ntb_hw_switchtec implements no message operations (its message
# registers carry only its link protocol): the two message tests are
# unsupported.
ntb_test_passed 14 2

modprobe -r ntb_hw_switchtec
[ ! -e /sys/module/ntb_hw_switchtec ] || fail "ntb_hw_switchtec still loaded"
echo "ntb-switchtec-loopback: all ntb_test.sh subtests passed"
