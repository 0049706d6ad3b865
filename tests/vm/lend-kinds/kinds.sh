# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The kinds of device lend-kinds lends, one a case (test.conf's cases):
# CASE is KIND, node 2's IOMMU on, or KIND-noiommu, node 2 booted with
# intel_iommu=off. Everything that depends on the kind is here; node0.sh
# and node1.sh tell only storage from NICs (storage.sh, nic.sh). Per kind:
#
#   CLASS    storage (64 MiB written, read back, read again by node 2) or
#            nic (ping and 4 MiB each way with a peer NIC, nic.sh)
#   DRIVER   its stock PCI driver, the same on both nodes
#   MODULES  what that driver and the block or network layer above it need,
#            loaded before the function appears: no udev loads them here
#   IRQ      the interrupts its driver takes: msix, or msi for a function
#            without MSI-X
#   PCI_ID   vendor:device of what the qemu file puts at LENT_BDF on node 2

# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

# kind_fail MESSAGE: the one failure line, naming the case (kind and IOMMU
# mode), so that a matrix of failures reads at a glance.
kind_fail() {
	fail "$CASE: $*"
}

[ -n "${CASE:-}" ] || fail "lend-kinds: no CASE (tests/vm/run sets it from test.conf's cases)"
KIND=${CASE%-noiommu}

# The qemu file puts the lent function (for nvme-vf, its physical function)
# in slot 8 of node 2: found by address, not by ids, since q35 has an
# AHCI of its own (00:1f.2) and a NIC's peer may share the lent one's ids.
LENT_BDF=0000:00:08.0

case $KIND in
nvme) CLASS=storage DRIVER=nvme IRQ=msix PCI_ID=1b36:0010 MODULES=nvme ;;
# QEMU's NVMe with MSI-X off (qemu/patches/nvme-msi.patch): plain MSI.
nvme-msi) CLASS=storage DRIVER=nvme IRQ=msi PCI_ID=1b36:0010 MODULES=nvme ;;
# An SR-IOV virtual function of an NVMe; node 2 keeps the physical one.
nvme-vf) CLASS=storage DRIVER=nvme IRQ=msix PCI_ID=1b36:0010 MODULES=nvme ;;
# QEMU's ICH9 AHCI: one MSI vector, no MSI-X.
ahci) CLASS=storage DRIVER=ahci IRQ=msi PCI_ID=8086:2922 MODULES="sd_mod ahci" ;;
virtio-blk)
	CLASS=storage DRIVER=virtio-pci IRQ=msix PCI_ID=1af4:1042
	MODULES="virtio_pci virtio_blk"
	;;
virtio-scsi)
	CLASS=storage DRIVER=virtio-pci IRQ=msix PCI_ID=1af4:1048
	MODULES="sd_mod virtio_pci virtio_scsi"
	;;
# LSI MegaRAID SAS 2108: megaraid_sas sets a 32-bit coherent DMA mask.
megasas)
	CLASS=storage DRIVER=megaraid_sas IRQ=msix PCI_ID=1000:0079
	MODULES="sd_mod megaraid_sas"
	;;
# A USB stick behind QEMU's xHCI: usb-storage, SCSI, sd.
xhci-storage)
	CLASS=storage DRIVER=xhci_hcd IRQ=msix PCI_ID=1b36:000d
	MODULES="sd_mod usb_storage xhci_pci"
	;;
# NICs: both drivers everywhere, the peer NIC being of the other kind.
e1000e)
	CLASS=nic DRIVER=e1000e IRQ=msix PCI_ID=8086:10d3
	MODULES="e1000e virtio_pci virtio_net"
	;;
virtio-net)
	CLASS=nic DRIVER=virtio-pci IRQ=msix PCI_ID=1af4:1041
	MODULES="e1000e virtio_pci virtio_net"
	;;
# VMware's paravirtual NIC (vmxnet3): rings and a shared area the
# device reads on its own, MSI-X.
vmxnet3)
	CLASS=nic DRIVER=vmxnet3 IRQ=msix PCI_ID=15ad:07b0
	MODULES="vmxnet3 virtio_pci virtio_net"
	;;
*) fail "lend-kinds: no kind $KIND (case $CASE): see kinds.sh" ;;
esac

# REFUSED: where lending the kind must fail, the borrower's one kernel
# message that says why; REFUSED_ERRNO: where the borrow itself then fails,
# the error smartioctl names (else the borrow succeeds, and the driver
# refuses the shadow). Either way the lender's device is as it was.
# - On NTBs with inbound-translated windows (NTB_WINDOWS=direct: the
#   direct and Switchtec models; Intel, AMD, Switchtec), a lender without an IOMMU cannot move a BAR to where its
#   windows lead: the borrower reaches a BAR only where it already lies in
#   one of them (ntb/README.md, "NTB families"). Here the memory window
#   leads onto RAM and the interrupt window onto 0xc0000000-0xfeefffff,
#   where the 32-bit BARs of ahci, xhci and e1000e lie (those cases pass);
#   the 64-bit BARs of nvme, virtio and megasas lie above 4 GiB, and the
#   borrower finds it cannot map them. The interrupt window spans that
#   much only because the direct model's windows are translated in 1 GiB
#   units (ntb/reach.c rounds it to the window's alignment); a Switchtec's
#   are in finer units, its interrupt window spans 0xfee00000+1 MiB alone,
#   and no BAR of a lender without an IOMMU is in reach there.
# - megaraid_sas's 32-bit coherent mask cannot reach the lender's NTB
#   window, above 4 GiB, without the lender's IOMMU to put it lower
#   (lend/README.md, "32-bit devices").
case $CASE:$NTB_WINDOWS:$NTB_MODEL in
nvme*-noiommu:direct:* | virtio-*-noiommu:direct:* | megasas-noiommu:direct:* | \
*-noiommu:direct:switchtec*)
	REFUSED="cannot be mapped: no window of ours leads there"
	REFUSED_ERRNO=ENXIO
	;;
megasas-noiommu:*:*)
	REFUSED="DMA mask 0xffffffff does not reach the window"
	REFUSED_ERRNO=
	;;
*) REFUSED='' REFUSED_ERRNO='' ;;
esac

export CASE KIND CLASS DRIVER IRQ PCI_ID MODULES REFUSED REFUSED_ERRNO

# load_kind: the kind's driver and what it needs.
load_kind() {
	for m in $MODULES; do
		modprobe "$m" || kind_fail "cannot load $m"
	done
}

# kind_ready PEER: a node's start: the kind's modules and smartio's loaded,
# and node PEER joined across the NTB.
kind_ready() {
	load_kind
	load_lend
	wait_until 30 joined "$1" || { show_adapters; kind_fail "node $1 never joined"; }
}

# pci_id BDF: vendor:device of the PCI function BDF (1b36:0010), or none.
pci_id() {
	d=/sys/bus/pci/devices/$1
	[ -e "$d" ] || { echo none; return 0; }
	v=$(cat "$d/vendor")
	p=$(cat "$d/device")
	echo "${v#0x}:${p#0x}"
}

# bound BDF: DRIVER drives BDF.
bound() {
	[ "$(driver_of "$1")" = "$DRIVER" ]
}

# lent_function (node 2): the function to lend, driven by this node's own
# driver; prints its PCI name.
lent_function() {
	[ "$(pci_id $LENT_BDF)" = "$PCI_ID" ] ||
		kind_fail "$LENT_BDF is $(pci_id $LENT_BDF), not $PCI_ID: the qemu file's line for $CASE?"
	case $KIND in
	nvme-vf) nvme_vf_of $LENT_BDF ;;
	*) echo $LENT_BDF ;;
	esac
}

# nvme_vf_of PF: the physical function PF's NVMe controller gives its
# virtual function's controller (1) flexible queues and vectors and brings
# it online with namespace 2 (the qemu file's) attached, as lend-sriov
# does; then node 2's nvme driver binds to the virtual function as to any
# function (VFs are left unbound until their controller is online).
# Prints the virtual function's PCI name.
nvme_vf_of() {
	sysfs=/sys/bus/pci/devices/$1
	wait_until 30 nvme_ctrl_of "$1" >/dev/null || kind_fail "no NVMe controller on $1"
	ctrl=$(nvme_ctrl_of "$1")
	wait_until 30 nvme_live "$ctrl" || kind_fail "$ctrl on $1 is not up"
	# The primary controller gives up its flexible resources; its reset
	# lets them go.
	nvme virt-mgmt "/dev/$ctrl" -c 0 -r 0 -a 1 -n 0 >/dev/null ||
		kind_fail "$ctrl keeps its flexible queues"
	nvme virt-mgmt "/dev/$ctrl" -c 0 -r 1 -a 1 -n 0 >/dev/null ||
		kind_fail "$ctrl keeps its flexible interrupt vectors"
	echo 1 >"$sysfs/reset"
	wait_until 30 nvme_live "$ctrl" || kind_fail "$ctrl did not come back after its reset"
	echo 0 >"$sysfs/sriov_drivers_autoprobe"
	echo 1 >"$sysfs/sriov_numvfs" || kind_fail "cannot enable $1's virtual function"
	vf=$(basename "$(readlink "$sysfs/virtfn0")")
	nvme_vf_online "$ctrl" 1 3 3 2
	nvme list-secondary "/dev/$ctrl" | grep -q "Secondary Controller State.*Online" ||
		kind_fail "the controller of $vf did not come online"
	echo 1 >"$sysfs/sriov_drivers_autoprobe"
	echo "$vf" >/sys/bus/pci/drivers_probe
	echo "$vf"
}

# lend BDF (node 2): registers BDF for lending and makes it available;
# prints its fdid.
lend() {
	line=$(smartioctl device add "$1") || kind_fail "cannot register $1 for lending"
	echo "node$NODE: $line" >&2
	smartioctl device available "${line%%:*}" || kind_fail "cannot make $1 available"
	[ "$(driver_of "$1")" = smartio-lender ] ||
		kind_fail "$1 is held by $(driver_of "$1"), not smartio-lender"
	echo "${line%%:*}"
}

# bounded SECONDS WHAT COMMAND...: runs COMMAND, its output in
# /tmp/bounded.out, and returns its exit status; if it has not finished
# after SECONDS, fails saying so of WHAT. A command stuck in the kernel (a
# driver waiting for a device that never answers) cannot be killed, but
# the script can still end with the reason, rather than at the runner's
# timeout.
bounded() {
	bounded_secs=$1
	bounded_what=$2
	shift 2
	rm -f /tmp/bounded.rc
	# Its stdout is not the caller's: a $(...) would wait for it.
	{
		rc=0
		"$@" >/tmp/bounded.out || rc=$?
		echo $rc >/tmp/bounded.rc
	} >/dev/null &
	wait_until "$bounded_secs" test -s /tmp/bounded.rc ||
		kind_fail "$bounded_what has not finished after $bounded_secs s"
	wait $!
	return "$(cat /tmp/bounded.rc)"
}

# borrow FDID (node 1): borrows node 2's FDID, whose shadow DRIVER binds
# to; prints the shadow's PCI name. The borrow returns once the driver's
# probe has.
borrow() {
	bounded 90 "smartioctl borrow $1" smartioctl borrow "$1" || kind_fail "cannot borrow $1"
	line=$(cat /tmp/bounded.out)
	echo "node$NODE: $line" >&2
	shadow=${line##* as }
	echo "$line" | grep -q " node 2 borrowed by 1 as $shadow\$" || kind_fail "borrow: $line"
	wait_until 10 bound "$shadow" ||
		kind_fail "$DRIVER did not bind to the borrowed function $shadow ($(driver_of "$shadow"))"
	echo "$shadow"
}

# kernel_said TEXT: the kernel logged TEXT.
kernel_said() {
	dmesg | grep -q -- "$1"
}

# borrow_refused FDID (node 1): borrows node 2's FDID, whose driver must
# refuse the shadow with the kernel message REFUSED; prints the shadow's
# PCI name.
borrow_refused() {
	bounded 90 "smartioctl borrow $1" smartioctl borrow "$1" || kind_fail "cannot borrow $1"
	line=$(cat /tmp/bounded.out)
	echo "node$NODE: $line" >&2
	shadow=${line##* as }
	wait_until 30 kernel_said "$REFUSED" ||
		kind_fail "no \"$REFUSED\" in the kernel log"
	echo "node$NODE: refused, as it must be: $(dmesg | grep "$REFUSED" | tail -n 1)" >&2
	[ "$(dmesg | grep -c "$REFUSED")" = 1 ] || kind_fail "\"$REFUSED\" said more than once"
	! bound "$shadow" || kind_fail "$DRIVER bound to $shadow although refused"
	echo "$shadow"
}

# borrow_told FDID: smartioctl borrow FDID, what it says on either stream
# on stdout.
borrow_told() {
	smartioctl borrow "$1" 2>&1
}

# borrow_failed FDID (node 1): borrowing node 2's FDID must fail with
# REFUSED_ERRNO and the kernel message REFUSED, once, leaving FDID
# available and nothing of it here.
borrow_failed() {
	! bounded 90 "smartioctl borrow $1" borrow_told "$1" ||
		kind_fail "borrowed $1, which must be refused: $(cat /tmp/bounded.out)"
	echo "node$NODE: $(cat /tmp/bounded.out)"
	grep -q "($REFUSED_ERRNO)\$" /tmp/bounded.out ||
		kind_fail "the refused borrow of $1 did not end with $REFUSED_ERRNO"
	wait_until 30 kernel_said "$REFUSED" ||
		kind_fail "no \"$REFUSED\" in the kernel log"
	echo "node$NODE: refused, as it must be: $(dmesg | grep -- "$REFUSED" | tail -n 1)"
	[ "$(dmesg | grep -c -- "$REFUSED")" = 1 ] || kind_fail "\"$REFUSED\" said more than once"
	wait_until 10 available_again "$1" ||
		kind_fail "$1 is not available again after the refused borrow: $(smartioctl device list)"
}

# available_again FDID: FDID is listed as available, borrowed by none.
available_again() {
	smartioctl device list | grep -q "^$1: .* available\$"
}

# step NAME: the barrier NAME; the other node's script ending first (it
# failed, and said why) ends this one. Values go between the nodes (vmctl
# put) before a step and are read (vmctl get) after it: a get would wait
# on for a node that is gone.
step() {
	vmctl barrier "$1" || kind_fail "the other node stopped before \"$1\""
}

# netif_of BDF: the network interface of the function BDF (below it
# in sysfs, as a virtio device's is); fails while there is none.
netif_of() {
	for n in /sys/class/net/*; do
		under "$1" "$n/device" && basename "$n" && return 0
	done
	return 1
}

# irq_kinds BDF: the kinds of interrupt BDF's driver took (msi, msix, one
# a line), or none.
irq_kinds() {
	cat /sys/bus/pci/devices/"$1"/msi_irqs/* 2>/dev/null | sort -u | grep . || echo none
}

# irq_count BDF: interrupts BDF's vectors took, on all CPUs.
irq_count() {
	n=0
	for irq in /sys/bus/pci/devices/"$1"/msi_irqs/*; do
		[ -e "$irq" ] || continue
		c=$(awk -v irq="${irq##*/}:" '$1 == irq {
			for (i = 2; $i ~ /^[0-9]+$/; i++) n += $i; print n + 0 }' /proc/interrupts)
		n=$((n + ${c:-0}))
	done
	echo "$n"
}

# irqs_taken BDF WHAT: the driver of BDF (WHAT, in the failure) took
# interrupts, of the kind IRQ.
irqs_taken() {
	kinds=$(irq_kinds "$1")
	[ "$kinds" = "$IRQ" ] || kind_fail "$2 takes $(echo "$kinds" | tr '\n' ' ')interrupts, not $IRQ"
	count=$(irq_count "$1")
	echo "node$NODE: $2: $count $IRQ interrupts"
	[ "$count" -gt 0 ] || kind_fail "$2 took no interrupt"
}

# irqs_shadow SHADOW: every vector of the borrowed function SHADOW is in
# the shadow's MSI domain: its messages cross the NTB to this node.
irqs_shadow() {
	for irq in /sys/bus/pci/devices/"$1"/msi_irqs/*; do
		grep "^ *${irq##*/}:" /proc/interrupts | grep -q smartio-MSI ||
			kind_fail "irq ${irq##*/} of the borrowed $KIND is not the shadow's: $(grep "^ *${irq##*/}:" /proc/interrupts | tr -s ' ')"
	done
}
