#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's NVMe and returns it 100 times, writing and
# reading back 1 MiB in each cycle. No cycle fails, and neither the
# windows, the IOVA window nor unreclaimable slab memory grow: measured
# after the tenth cycle (caches warm) and after the last.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

CYCLES=100

# unreclaimable slab, KiB
slab() {
	sed -n 's/^SUnreclaim: *\([0-9]*\) kB$/\1/p' /proc/meminfo
}

usage() {
	echo "$(sed -n 's/^  windows //p' "$adapters") iova $(iova_pages)"
}

borrower_ready
vmctl barrier available
dd if=/dev/urandom of=/tmp/data bs=1M count=1 2>/dev/null
sum=$(md5sum </tmp/data)

i=1
while [ $i -le $CYCLES ]; do
	line=$(smartioctl borrow 20000) || fail "cycle $i: borrow failed"
	wait_until 30 blockdev_open /dev/nvme1n1 || fail "cycle $i: no block device"
	dd if=/tmp/data of=/dev/nvme1n1 bs=1M seek=$i oflag=direct 2>/tmp/dd.err ||
		fail "cycle $i: cannot write: $(cat /tmp/dd.err)"
	[ "$(dd if=/dev/nvme1n1 bs=1M skip=$i count=1 iflag=direct 2>/dev/null | md5sum)" = "$sum" ] ||
		fail "cycle $i: read back other data"
	smartioctl return 20000 || fail "cycle $i: return failed"
	not_present "${line##* as }" || fail "cycle $i: shadow device still there"
	if [ $i = 10 ]; then
		slab0=$(slab)
		usage0=$(usage)
	fi
	i=$((i + 1))
done
slab1=$(slab)
usage1=$(usage)
echo "node$NODE: $CYCLES cycles; unreclaimable slab ${slab0} -> ${slab1} KiB; windows $usage0 -> $usage1"
[ "$usage1" = "$usage0" ] || fail "window usage grew: $usage0 -> $usage1"
[ "$(iova_pages)" = 0 ] || fail "$(iova_pages) pages left in the IOVA window"
# A shadow device is over 12 KiB of slab (its pci_dev, bus, host bridge,
# config copy): leaking one per cycle would grow it by twice this bound,
# which leaves room for the noise of everything else the node does.
[ $((slab1 - slab0)) -lt 512 ] || fail "unreclaimable slab grew by $((slab1 - slab0)) KiB in $((CYCLES - 10)) cycles"
vmctl barrier cycled
rmmod smartio_lend smartio_ntb smartio
ntb_unload
