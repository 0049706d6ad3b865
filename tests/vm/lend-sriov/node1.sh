#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 gives its NVMe's virtual function flexible queues and interrupt
# vectors, brings its controller online with namespace 2 attached, and
# lends it to node 1; the physical function stays with node 2's nvme
# driver and writes and reads back its own namespace all the while.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

# The primary controller is 0, its virtual function's controller 1.
VF_CNTLID=1

# pf_io DEV: until /tmp/stop exists, writes 16 MiB of random data to DEV
# and reads them back; counts the rounds in /tmp/rounds, fails on a
# mismatch.
pf_io() {
	n=0
	while [ ! -e /tmp/stop ]; do
		dd if=/dev/urandom of=/tmp/pf bs=1M count=16 2>/dev/null
		sum=$(md5sum </tmp/pf)
		dd if=/tmp/pf of="$1" bs=1M oflag=direct 2>/dev/null ||
			fail "cannot write $1"
		[ "$(dd if="$1" bs=1M count=16 iflag=direct 2>/dev/null | md5sum)" = "$sum" ] ||
			fail "$1 reads back other data"
		n=$((n + 1))
		echo $n >/tmp/rounds
	done
}

load_lend
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
pf=$(nvme_bdf)
sysfs=/sys/bus/pci/devices/$pf
ctrl=$(nvme_sriov_prepare "$pf")
echo 1 >"$sysfs/sriov_numvfs"
vf=$(basename "$(readlink "$sysfs/virtfn0")")
nvme_vf_online "$ctrl" $VF_CNTLID 3 3 2
nvme list-secondary "/dev/$ctrl" | grep -q "Secondary Controller State.*Online" ||
	{ nvme list-secondary "/dev/$ctrl"; fail "the VF's controller is not online"; }
echo "node$NODE: VF $vf of $pf online"
pfdev=$(nvme_ns_of "$pf") || fail "no namespace on $pf"

[ "$(lend_function "$vf")" = 20000 ] || fail "the VF is not fdid 20000"
[ "$(driver_of "$vf")" = smartio-lender ] || fail "the VF is not held for lending"

rm -f /tmp/stop /tmp/rounds
pf_io "$pfdev" &
io=$!
vmctl barrier available
vmctl barrier borrowed
listed=$(smartioctl device list | grep -x "20000: $vf .* node 2 borrowed by 1") ||
	{ smartioctl device list; fail "not listed borrowed"; }
echo "node$NODE: $listed"
vmctl barrier written
touch /tmp/stop
wait $io || fail "I/O on the PF failed"
rounds=$(cat /tmp/rounds)
echo "node$NODE: $rounds rounds of 16 MiB written and read back on $pfdev meanwhile"
[ "$rounds" -ge 2 ] || fail "too little I/O on the PF"
[ "$(driver_of "$pf")" = nvme ] || fail "the PF left its nvme driver"

vmctl barrier returned
smartioctl device list | grep -q "^20000: .* available$" ||
	fail "not available again after the return"
smartioctl device unavailable 20000
smartioctl device remove 20000
echo 0 >"$sysfs/sriov_numvfs"
not_present "$vf" || fail "the VF is still there"
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
