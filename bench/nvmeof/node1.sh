#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 of the NVMe-oF benchmark: exports its NVMe to node 1 through
# NVMe-oF/TCP (nvmet), then lends it to node 1; counts its own busy CPU
# time over each of node 1's fio runs, and over as long a span with no I/O
# (about.md).
set -eu
# shellcheck source=../lib/result.sh
. /usr/local/lib/vmbench/result.sh
# shellcheck source=../lib/fio.sh
. /usr/local/lib/vmbench/fio.sh
# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../lib/counters.sh
. /usr/local/lib/vmbench/counters.sh
# shellcheck source=./nvmeof.sh
. ./nvmeof.sh

# count NAME...: this node's busy CPU time over each span node 1 marks
# with barriers start-NAME and ran-NAME, published as cpu-NAME.
count() {
	for name; do
		vmctl barrier "start-$name"
		before=$(cpu_ms)
		vmctl barrier "ran-$name"
		vmctl put "cpu-$name" $(($(cpu_ms) - before))
	done
}

# runs SIDE: the names of node 1's fio runs through SIDE.
runs() {
	for mode in $fio_modes; do
		echo "$1-$(fio_tag "$mode")"
	done
}

modprobe nvme
own=$(nvme_bdf)
wait_until 30 nvme_ns_of "$own" >/dev/null || fail "no block device for $own"
mgmt_up "$target_addr"
nvmet_export "$(nvme_ns_of "$own")"
vmctl barrier exported
# shellcheck disable=SC2046 # one name a line
count $(runs nvmeof)
vmctl barrier disconnected
nvmet_unexport

lend_nvme
vmctl barrier available
# shellcheck disable=SC2046 # one name a line
count idle $(runs lending)
vmctl barrier returned
smartioctl device unavailable 20000
smartioctl device remove 20000
