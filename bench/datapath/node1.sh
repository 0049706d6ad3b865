#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The lender of the data-path benchmark: lends its NVMe, and counts its
# fabric messages, interrupts and busy CPU time while node 1 runs fio on it.
set -eu
# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../lib/counters.sh
. /usr/local/lib/vmbench/counters.sh

lend_nvme
vmctl barrier available
vmctl barrier borrowed
before=$(counters)
vmctl barrier start
vmctl barrier ran
after=$(counters)
for c in messages ntb_irqs device_irqs cpu_ms; do
	vmctl put "lender_$c" "$(counter_delta "$before" "$after" "$c")"
done
vmctl barrier counted
vmctl barrier returned
smartioctl device unavailable 20000
smartioctl device remove 20000
