# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# What both nodes of scale-functions agree on: how many virtual functions
# node 2 lends and node 1 borrows (the qemu file gives the NVMe 64), and
# their fdids.

# shellcheck source=../lib/result.sh
. /usr/local/lib/vmbench/result.sh
# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../lib/borrow.sh
. /usr/local/lib/vmbench/borrow.sh

# shellcheck disable=SC2034 # the node scripts' (they source this)
if bench_smoke; then count=4; else count=64; fi

# fdid_of N: the fdid of the Nth function node 2 lends (from 1): node 2
# registers them in order, with indexes from 0.
fdid_of() {
	printf '%x\n' $((0x20000 + $1 - 1))
}
