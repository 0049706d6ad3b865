#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make demo, node 2 (console node1): the lender. It lends its NVMe to node
# 1 (node0.sh), takes it back when node 1 returns it, and reads what node 1
# wrote through its own nvme driver; then the same with its SATA (AHCI)
# controller; then lends a DMA engine and a second NVMe, for a peer-to-peer
# write between the two; then lends its NVMe again, for node 1's QEMU
# through a mediated device, and reads what QEMU wrote.
ROLE=lender
. ./demo.sh

step "load smartio and wait for node 1 across the NTB"
demo_load
demo_joined 1

bdf=$(nvme_bdf)
step "lend this node's NVMe ($bdf): register it, make it available"
say "\$ smartioctl device add $bdf && smartioctl device available FDID"
fdid=$(lend_function "$bdf")
say "its own nvme driver let go of it: $bdf is bound to $(driver_of "$bdf")"
vmctl put fdid "$fdid"
meet lent

meet returned
step "node 1 returned it: take it back and read what node 1 wrote"
show smartioctl device unavailable "$fdid"
[ "$(driver_of "$bdf")" = nvme ] || fail "nvme did not take $bdf back"
wait_until 30 nvme_ns_of "$bdf" >/dev/null || fail "no block device after taking it back"
dev=$(nvme_ns_of "$bdf")
sum=$(vmctl get sum)
mine=$(blockdev_sum "$dev")
say "node 1 wrote md5 ${sum%% *}"
say "$dev reads md5 ${mine%% *} through this node's own nvme driver"
[ "$mine" = "$sum" ] || fail "the NVMe does not hold what node 1 wrote"
say "the same"
vmctl put lender-sum "$mine"
meet checked

sata=0000:00:08.0
step "lend this node's SATA controller too ($sata, an AHCI with one disk)"
say "\$ smartioctl device add $sata && smartioctl device available FDID"
sata_fdid=$(lend_function "$sata")
say "its own ahci driver let go of it: $sata is bound to $(driver_of "$sata")"
vmctl put sata-fdid "$sata_fdid"
meet sata-lent

meet sata-returned
step "node 1 returned it: take it back and read what node 1 wrote"
show smartioctl device unavailable "$sata_fdid"
[ "$(driver_of "$sata")" = ahci ] || fail "ahci did not take $sata back"
wait_until 30 disk_below "$sata" >/dev/null || fail "no disk behind $sata after taking it back"
disk=$(disk_below "$sata")
sum=$(vmctl get sata-sum)
mine=$(blockdev_sum "$disk")
say "$disk reads md5 ${mine%% *} through this node's own ahci driver"
[ "$mine" = "$sum" ] || fail "the SATA disk does not hold what node 1 wrote"
say "the same"
vmctl put lender-sata-sum "$mine"
meet sata-checked

edu=0000:00:09.0
cmb=0000:00:0a.0
step "lend a DMA engine (QEMU's edu, $edu) and an NVMe with a memory buffer ($cmb)"
say "\$ smartioctl device add $edu && smartioctl device available FDID"
edu_fdid=$(lend_function "$edu")
say "\$ smartioctl device add $cmb && smartioctl device available FDID"
cmb_fdid=$(lend_function "$cmb")
# The buffer's bus address here: where a device under this node's host
# bridge reaches it, peer to peer.
cmb_bus=$(sed -n 3p "/sys/bus/pci/devices/$cmb/resource" | cut -d' ' -f1)
say "the NVMe's memory buffer (BAR 2) is at bus address $cmb_bus on this node"
vmctl put edu-fdid "$edu_fdid"
vmctl put cmb-fdid "$cmb_fdid"
vmctl put cmb-bus "$cmb_bus"
meet p2p-lent
meet p2p-returned
say "node 1 returned both: they stay available, for its guest"

step "lend the NVMe again, for node 1's QEMU"
show smartioctl device available "$fdid"
meet mdev-lent
meet mdev-returned
step "QEMU on node 1 ended: take the NVMe back and read what it wrote"
show smartioctl device unavailable "$fdid"
wait_until 30 nvme_ns_of "$bdf" >/dev/null || fail "no block device after taking it back"
sum=$(vmctl get mdev-sum)
mine=$(read_sum "$(nvme_ns_of "$bdf")" 4)
say "$(nvme_ns_of "$bdf")'s first 4 MiB read md5 ${mine%% *} through this node's own nvme driver"
[ "$mine" = "$sum" ] || fail "the NVMe does not hold what QEMU wrote"
say "the same"
vmctl put lender-mdev-sum "$mine"
meet mdev-checked
meet mdev-p2p-done
# Where node 1's guest had the edu reach the buffer: at the guest's
# address for it, mapped in the edu's IOMMU domain here.
dmesg | grep -q "$edu: reaches BAR 2 of $cmb, lent to node 1 too, at device addresses " ||
	fail "the edu was not given the buffer at the guest's address"
say "$(dmesg | sed -n "s/.*\($edu: reaches BAR 2 of .*\)/\1/p" | tail -n 1)"
show smartioctl device unavailable "$edu_fdid"
show smartioctl device unavailable "$cmb_fdid"

meet finished
show smartioctl device remove "$fdid"
show smartioctl device remove "$sata_fdid"
show smartioctl device remove "$edu_fdid"
show smartioctl device remove "$cmb_fdid"
demo_unload
