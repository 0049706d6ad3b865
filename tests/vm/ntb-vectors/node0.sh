#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A node of one CPU with six NTB ports: a vector per doorbell (33 a port)
# is more than the CPU has. Every port still probes, those late to find
# vectors short with fewer doorbells (logged), and every adapter joins its
# loopback peer (smartio_ntb needs two doorbells).
set -eu
# shellcheck source=../guest/fabric.sh
. /usr/local/lib/vmtest/fabric.sh

modprobe ntb_hw_smartio
modprobe smartio_ntb
ports=$(ntb_ports | wc -l)
[ "$ports" = 6 ] || fail "$ports NTB ports, not 6"
for p in $(ntb_ports); do
	[ -e "/sys/bus/pci/drivers/ntb_hw_smartio/$p" ] ||
		{ dmesg | grep ntb_hw_smartio; fail "no driver on $p"; }
done
log_more 'too few interrupt vectors' 0 || fail "no port was short of vectors"
dmesg | grep 'ntb_hw_smartio.*doorbells'
all_joined() {
	for n in 1 2 3 4 5 6; do
		joined $n || return 1
	done
}
wait_until 30 all_joined || { show_adapters; fail "not every adapter joined its peer"; }
show_adapters
rmmod smartio_ntb ntb_hw_smartio
