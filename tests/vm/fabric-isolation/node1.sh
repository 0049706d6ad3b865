#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 exports segment 7 to node 1 and keeps segment 8 to itself, both
# of known content, and checks that node 1's writes outside its grant
# changed neither and faulted in its IOMMU.
set -eu
# shellcheck source=../guest/segment.sh
. /usr/local/lib/vmtest/segment.sh

faults() {
	log_count 'DMAR:.*fault addr'
}

load_fabric
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
show_adapters | grep reach
show_adapters | grep -q "reach iova 0x100000000+" ||
	fail "node 1 does not reach our IOVA window through window 0"

smartio-seg create 7 1M
smartio-seg export 7 1
smartio-seg create 8 1M		# not exported: node 1 must not reach it
keep=$(smartio-seg sum local 8)
vmctl barrier created

sum=$(vmctl get sum)
[ "$(smartio-seg sum local 7)" = "$sum" ] || fail "segment 7 does not hold what node 1 wrote"
before=$(faults)
vmctl barrier filled

vmctl barrier written
wait_until 10 log_more 'DMAR:.*fault addr' "$before" ||
	fail "node 1 wrote outside its grant and our IOMMU did not fault"
dmesg | grep 'DMAR:.*fault addr'
[ "$(smartio-seg sum local 7)" = "$sum" ] || fail "segment 7 changed by writes outside it"
[ "$(smartio-seg sum local 8)" = "$keep" ] || fail "segment 8 changed"
vmctl barrier unchanged

sum=$(vmctl get sum2)
[ "$(smartio-seg sum local 7)" = "$sum" ] ||
	fail "segment 7 does not hold what node 1 wrote after the faults"
vmctl barrier checked

segment_remove 8
segment_remove 7
vmctl barrier finished
windows_idle || { show_adapters; fail "windows left open for node 1"; }
rmmod smartio_ntb smartio
ntb_unload
