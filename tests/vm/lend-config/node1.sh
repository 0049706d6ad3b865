#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its NVMe (fdid 20000), which has an SR-IOV capability, and
# its edu (20001), 256 bytes of config space, to node 1, which writes
# registers a borrower must not: here each reads as it was, and each
# refusal is logged once naming node 1, the function and the register.
# Node 1's cache line size, which a borrower may set, is set. When the
# NVMe's power state changes here, node 1 reads it. After node 1's FLR,
# which is a reset here, the NVMe's BARs, decoding and bus master are as
# they were, and once it is back, this node's nvme driver reads what node
# 1 wrote after the reset.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
. ./config.sh

# snapshot BDF: the registers node 1 writes, as this node reads them.
snapshot() {
	for r in "$((sriov + 8)) 2" "$((sriov + 0x10)) 2" "$((pm + 4)) 2" \
		"0x10 4" "0x14 4" "0xffc 4" ${acs:+"$((acs + 6)) 2"}; do
		# shellcheck disable=SC2086 # offset and size
		echo "$r: $(cfg_read "$1" $r)"
	done
}

# refused REGEX: this node logged a refusal of node 1's config write
# matching REGEX.
refused() {
	dmesg | grep "node 1's config write of $1" ||
		fail "no refusal of node 1's write of $1 logged"
}

load_lend
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
nvme=$(nvme_bdf)
edu=$(pci_name_of 0x1234 0x11e8 "edu")
sriov=$(ext_cap_of "$nvme" 0x10) || fail "no SR-IOV capability on $nvme"
pm=$(cap_of "$nvme" 0x01) || fail "no power management capability on $nvme"
# QEMU's endpoints have no ACS capability; a function with one has its
# control tried too.
acs=$(ext_cap_of "$nvme" 0x0d) || acs=
echo "node$NODE: $nvme: SR-IOV capability at $sriov, power management at $pm, ACS at ${acs:-none}"
[ "$(lend_function "$nvme")" = 20000 ] || fail "the NVMe is not fdid 20000"
[ "$(lend_function "$edu")" = 20001 ] || fail "the edu is not fdid 20001"
vmctl put sriov "$sriov"
vmctl put pm "$pm"
vmctl put acs "${acs:-none}"
vmctl barrier available
vmctl barrier borrowed

snapshot "$nvme" >/tmp/before
edu_before=$(md5sum <"/sys/bus/pci/devices/$edu/config")
vmctl barrier snapshot
vmctl barrier written
snapshot "$nvme" >/tmp/after
cat /tmp/after
cmp -s /tmp/before /tmp/after || { diff /tmp/before /tmp/after; fail "node 1's writes changed $nvme"; }
[ ! -e "/sys/bus/pci/devices/$nvme/virtfn0" ] || fail "node 1 enabled a virtual function"
[ "$(md5sum <"/sys/bus/pci/devices/$edu/config")" = "$edu_before" ] ||
	fail "node 1's write past its config space changed $edu's"
cls=$(vmctl get cls)
[ "$(cfg_read "$nvme" 0x0c 1)" = "$cls" ] ||
	fail "node 1's cache line size $cls was not written: $(cfg_read "$nvme" 0x0c 1)"
refused "0x1 at $(printf 0x%x $((sriov + 0x10))) (2 bytes) refused: the SR-IOV capability at $sriov"
refused "0x9 at $(printf 0x%x $((sriov + 8))) (2 bytes) refused: the SR-IOV capability at $sriov"
refused "0x3 at $(printf 0x%x $((pm + 4))) (2 bytes) refused: the power management capability at $pm, control/status"
refused "0x12345678 at 0xffc (4 bytes) refused: "
refused "4 bytes at 0x100 refused: not an aligned access within its 256-byte config space"
[ -z "$acs" ] || refused "0x1f at $(printf 0x%x $((acs + 6))) (2 bytes) refused: the ACS capability at $acs"
vmctl barrier checked

# The power state changes here, not by node 1's write (QEMU's NVMe only
# holds the register): node 1 reads it from here.
pmcsr=$(cfg_read "$nvme" $((pm + 4)) 2)
cfg_write "$nvme" $((pm + 4)) 2 $((pmcsr | 3))
vmctl barrier d3hot
vmctl barrier d3hot-seen
cfg_write "$nvme" $((pm + 4)) 2 "$pmcsr"
vmctl barrier d0
vmctl barrier d0-seen

vmctl barrier reset
dmesg | grep "reset for node 1, its state restored" || fail "no reset for node 1"
snapshot "$nvme" >/tmp/after
cmp -s /tmp/before /tmp/after || { diff /tmp/before /tmp/after; fail "the reset changed $nvme's registers"; }
cmd=$(cfg_read "$nvme" 0x04 2)
[ $((cmd & 0x406)) = $((0x406)) ] ||
	fail "after the reset, decoding, bus master or INTx disable is off: command $cmd"
vmctl barrier reset-checked

vmctl barrier returned
smartioctl device list | grep -c " available$" | grep -qx 2 ||
	fail "not both available again after the return"
smartioctl device unavailable 20000
smartioctl device unavailable 20001
[ "$(driver_of "$nvme")" = nvme ] || fail "nvme did not take $nvme back"
wait_until 30 nvme_ns_of "$nvme" >/dev/null || fail "no namespace on $nvme"
sum=$(vmctl get sum)
mine=$(dd if="$(nvme_ns_of "$nvme")" bs=1M count=16 iflag=direct 2>/dev/null | md5sum)
echo "node$NODE: node 1 wrote sum $sum after its reset, the NVMe holds $mine"
[ "$mine" = "$sum" ] || fail "the NVMe does not hold what node 1 wrote after its reset"
smartioctl device remove 20000
smartioctl device remove 20001
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
