#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A leaf of the scale-nodes star, node NODE + 1 (by its port): the leaves
# join one at a time, in order, each by loading the modules once the one
# before it lends; this one then lends its NVMe until node 1 has returned
# it.
set -eu
# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

for k in $(seq $((NODES - 1))); do
	vmctl barrier "join.$k"
	[ "$k" != "$NODE" ] || lend_nvme
	vmctl barrier "lent.$k"
done
vmctl barrier returned
fdid=$(printf '%x' $(((NODE + 1) << 16)))
smartioctl device unavailable "$fdid"
smartioctl device remove "$fdid"
