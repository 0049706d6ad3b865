#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make demo, node 1 (console node0): the borrower. It lists node 2's NVMe,
# borrows it, writes and reads it back with Linux's stock nvme driver, runs
# a short fio and returns it; then borrows node 2's SATA (AHCI) controller,
# writes and reads back its disk with the stock ahci driver and returns it;
# borrows node 2's edu DMA engine and a second NVMe and has the one write
# into the other's memory buffer, peer to peer on node 2, and returns both;
# borrows the NVMe once more through a VFIO mediated device, passed with
# QEMU's vfio-pci to a guest of this node's, under its KVM, whose stock
# nvme driver writes to it (tests/vm/guest/nested.sh); gives the edu and
# the second NVMe to another guest, whose edu writes into the NVMe's
# buffer at the guest-physical address it has there; and prints the
# one-line summary once node 2 has read the same data through its own
# drivers (node1.sh).
ROLE=borrower
. ./demo.sh
# shellcheck source=../../tests/vm/guest/nested.sh
. /usr/local/lib/vmtest/nested.sh

# shadow_irqs: interrupts taken so far on the vectors of the borrowed
# devices' MSI domain (smartio-MSI in /proc/interrupts), all CPUs.
shadow_irqs() {
	awk '/smartio-MSI/ { for (i = 2; $i ~ /^[0-9]+$/; i++) n += $i } END { print n + 0 }' \
		/proc/interrupts
}

# write_read_back DEV WHAT: writes 64 MiB of random data to the block
# device DEV (WHAT, in the failure), reads them back and says both
# checksums; prints the md5 line of what was written.
write_read_back() {
	dd if=/dev/urandom of=/tmp/data bs=1M count=64 2>/dev/null
	written=$(md5sum </tmp/data)
	show dd if=/tmp/data of="$1" bs=1M oflag=direct >&2
	rm /tmp/data
	back=$(blockdev_sum "$1")
	say "written: md5 ${written%% *}" >&2
	say "read:    md5 ${back%% *}" >&2
	[ "$back" = "$written" ] || fail "$2 read back other data"
	say "the same" >&2
	echo "$written"
}

say "Two QEMU machines (console node0 and node1; smartio calls them node 1"
say "and node 2) are cabled through an emulated PCIe non-transparent bridge."
say "Node 2 lends its NVMe, then its SATA controller; this node, node 1,"
say "borrows each and drives it with Linux's stock driver (nvme, ahci), then"
say "gives it back. Then two of node 2's devices, borrowed, talk peer to peer."
say "Last, guests of this node's take node 2's devices through VFIO mediated"
say "devices: its NVMe, then its DMA engine and buffer, peer to peer."

step "load smartio and wait for node 2 across the NTB"
demo_load
demo_joined 2

step "list the cluster's devices: node 2 has made its NVMe available"
meet lent
fdid=$(vmctl get fdid)
show smartioctl device list
smartioctl device list | grep -q "^$fdid: .* node 2 available\$" ||
	fail "node 2's NVMe ($fdid) is not listed available"

step "borrow it"
say "\$ smartioctl borrow $fdid"
shadow=$(borrow_bound "$fdid" nvme)
wait_until 30 nvme_ns_of "$shadow" >/dev/null ||
	fail "the borrowed NVMe has no block device"
dev=$(nvme_ns_of "$shadow")
say "node 2's NVMe is $shadow here, on a virtual PCI root bus;"
say "the stock nvme driver bound to it and made $dev."
say "node 1's stock nvme driver now drives node 2's NVMe: MMIO, DMA and"
say "interrupts cross the NTB with no software in between. Its BARs appear"
say "through node 1's NTB windows; its DMA reaches what node 1's IOMMU maps"
say "for it in the NTB's window; its MSI-X messages reach node 1's CPUs."
say "smartio set the windows up at the borrow; no message crosses per I/O."

step "write 64 MiB of random data to it, read them back, compare checksums"
sum=$(write_read_back "$dev" "the borrowed NVMe")

step "fio: 5 s of 4 KiB random reads, queue depth 16"
irqs=$(shadow_irqs)
say "\$ fio --rw=randread --bs=4k --iodepth=16 --direct=1 --runtime=5 $dev"
# fio_run prints fio's output and ends the demo on an error; keep what it says.
iops=$(fio_run randread "$dev" 5) || { echo "$iops"; exit 1; }
echo "$iops"
iops=${iops##*IOPS=}
say "$(($(shadow_irqs) - irqs)) completion interrupts came from node 2's NVMe to this node's CPUs"

step "return it to node 2"
show smartioctl return "$fdid"
not_present "$shadow" || fail "$shadow is still there after the return"
[ ! -e "$dev" ] || fail "$dev is still there after the return"
say "$shadow and $dev are gone"
vmctl put sum "$sum"
meet returned

meet checked
theirs=$(vmctl get lender-sum)
[ "$theirs" = "$sum" ] || fail "node 2 read md5 ${theirs%% *}, not what node 1 wrote"

step "borrow node 2's SATA controller too: any PCIe function, with its own driver"
meet sata-lent
sata_fdid=$(vmctl get sata-fdid)
say "\$ smartioctl borrow $sata_fdid"
sata=$(borrow_bound "$sata_fdid" ahci)
wait_until 60 disk_below "$sata" >/dev/null || fail "the borrowed AHCI has no disk"
disk=$(disk_below "$sata")
say "node 2's AHCI is $sata here; the stock ahci driver bound to it and"
say "found its disk, $disk: command lists, FISes and data cross the NTB"
say "by DMA, its MSI message reaches this node's CPUs."
sata_sum=$(write_read_back "$disk" "the borrowed SATA disk")
show smartioctl return "$sata_fdid"
not_present "$sata" || fail "$sata is still there after the return"
vmctl put sata-sum "$sata_sum"
meet sata-returned
meet sata-checked
theirs=$(vmctl get lender-sata-sum)
[ "$theirs" = "$sata_sum" ] || fail "node 2 read md5 ${theirs%% *} from its SATA disk, not what node 1 wrote"

step "peer to peer: node 2's DMA engine writes into node 2's NVMe's memory"
meet p2p-lent
modprobe smartio_edu_test
say "\$ smartioctl borrow $(vmctl get edu-fdid)"
edu=$(borrow_bound "$(vmctl get edu-fdid)" smartio_edu_test)
say "\$ smartioctl borrow $(vmctl get cmb-fdid)"
cmb=$(borrow_bound "$(vmctl get cmb-fdid)" nvme)
cmb_bus=$(vmctl get cmb-bus)
cmb_phys=$(sed -n 3p "/sys/bus/pci/devices/$cmb/resource" | cut -d' ' -f1)
say "node 2's edu is $edu here (driven by smartio_edu_test, a test driver"
say "for QEMU's DMA engine), its NVMe $cmb, whose memory buffer (BAR 2) is"
say "at $cmb_phys in this node's address space: through the NTB."
say "dma_map_resource() gives edu the buffer's address as edu sees it. Both"
say "are node 2's, under one host bridge there: the address is the buffer's"
say "bus address on node 2, $cmb_bus, and the write goes through node 2's"
say "PCIe fabric alone, never out to the NTB and back (lend/p2p.c)."
p2p=$(edu_test_file "$edu" p2p)
say "\$ echo \"$cmb_phys 1\" >$p2p    # the buffer's address here, a seed"
echo "$cmb_phys 1" >"$p2p" || fail "edu could not write into the buffer"
arrived=$(dmesg | grep "smartio_edu_test $edu: p2p: .* into $cmb_phys at $cmb_bus, read back, arrived") ||
	fail "no arrival at $cmb_bus: $(dmesg | grep "smartio_edu_test $edu: p2p: " | tail -1)"
say "${arrived#*] }"
say "this CPU reads the pattern back from the buffer: the same"
rmmod smartio_edu_test
show smartioctl return "$(vmctl get cmb-fdid)"
show smartioctl return "$(vmctl get edu-fdid)"
not_present "$edu" || fail "$edu is still there after the return"
not_present "$cmb" || fail "$cmb is still there after the return"
meet p2p-returned

step "a VM's way in: node 2's NVMe as a VFIO mediated device, in a guest"
meet mdev-lent
modprobe vfio_iommu_type1
modprobe smartio_mdev
types=/sys/class/smartio/smartio/mdev_supported_types/smartio-pci
say "smartio_mdev is a VFIO mdev parent: type smartio-pci counts the"
say "cluster's available devices ($(cat "$types/available_instances") now); an mdev stands for one fdid."
uuid=5a3a0d2e-1c1b-4b0e-9a59-00000000d3e0
say "\$ echo $uuid >$types/create"
echo "$uuid" >"$types/create" || fail "cannot create mdev $uuid"
mdev=/sys/bus/mdev/devices/$uuid
say "\$ echo $fdid >$mdev/smartio/fdid"
echo "$fdid" >"$mdev/smartio/fdid"
say "QEMU passes it to a guest as any VFIO device: the open borrows the"
say "NVMe, QEMU's end gives it back. KVM maps its BARs into the guest,"
say "smartio maps the guest's RAM at its guest-physical addresses on both"
say "nodes, and each MSI-X message reaches the guest through its eventfd."
say "(This node's KVM runs on its emulated CPU, an AMD one with SVM.)"
say "\$ qemu-system-x86_64 -accel kvm ... -device vfio-pci,sysfsdev=$mdev"
nested_image ./guest.sh /tmp/nested.cpio nvme
nested_run /tmp/nested.cpio /tmp/nested.console -device "vfio-pci,sysfsdev=$mdev"
written=$(nested_said /tmp/nested.console '^nested: wrote 4 MiB, read them back the same') ||
	fail "the guest's nvme did not write and read back"
mdev_sum="${written##* }  -"
say "the guest's stock nvme driver wrote md5 ${mdev_sum%% *} and read it back the same"
echo 1 >"$mdev/remove"
vmctl put mdev-sum "$mdev_sum"
meet mdev-returned
meet mdev-checked
theirs=$(vmctl get lender-mdev-sum)
[ "$theirs" = "$mdev_sum" ] || fail "node 2 read md5 ${theirs%% *}, not what the guest wrote"

step "peer-to-peer in a guest: node 2's edu writes into its NVMe's buffer"
say "A guest given two devices of one lender may have one reach the other's"
say "BAR at the guest-physical address it gave that BAR. When the guest turns"
say "the edu's bus mastering on, smartio_mdev has node 2 map the NVMe's BARs"
say "there in the edu's IOMMU domain: the write goes edu to NVMe on node 2."
p2p_uuids=
for f in "$(vmctl get edu-fdid)" "$(vmctl get cmb-fdid)"; do
	u=5a3a0d2e-1c1b-4b0e-9a59-0000000$f
	echo "$u" >"$types/create" || fail "cannot create mdev $u"
	echo "$f" >"/sys/bus/mdev/devices/$u/smartio/fdid"
	say "\$ echo $f >/sys/bus/mdev/devices/$u/smartio/fdid"
	p2p_uuids="$p2p_uuids $u"
done
nested_image ./guest-p2p.sh /tmp/nested-p2p.cpio smartio_edu_test
# shellcheck disable=SC2086 # the two UUIDs
set -- $p2p_uuids
nested_run /tmp/nested-p2p.cpio /tmp/nested-p2p.console \
	-device "vfio-pci,sysfsdev=/sys/bus/mdev/devices/$1" \
	-device "vfio-pci,sysfsdev=/sys/bus/mdev/devices/$2"
arrived=$(nested_said /tmp/nested-p2p.console '^nested: edu wrote into the NVMe.s buffer at ') ||
	fail "the guest's edu did not reach its NVMe's buffer"
say "the guest says: ${arrived#nested: }"
for u in $p2p_uuids; do
	echo 1 >"/sys/bus/mdev/devices/$u/remove"
done
rmmod smartio_mdev
meet mdev-p2p-done

meet finished
demo_unload
echo
say "SUMMARY: node 1 borrowed node 2's NVMe ($fdid) and its stock nvme driver" \
	"wrote and read back 64 MiB (md5 ${sum%% *}) and ran fio at $iops IOPS;" \
	"then node 2's SATA controller ($sata_fdid), whose stock ahci driver wrote" \
	"and read back 64 MiB (md5 ${sata_sum%% *}); returned, node 2 read the" \
	"same data through its own drivers. Node 2's DMA engine, borrowed, wrote" \
	"into node 2's NVMe's buffer, borrowed too, straight through node 2's PCIe." \
	"A guest of node 1's, given node 2's NVMe through a mediated device," \
	"wrote 4 MiB with its own nvme driver (md5 ${mdev_sum%% *}), which node 2" \
	"read back the same; another, given node 2's DMA engine and buffer, had" \
	"the one write into the other at the guest's address, on node 2."
