# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the lending tests: the modules, the node's NVMe function,
# and what its driver binding is.

# shellcheck source=tests/vm/guest/fabric.sh
. /usr/local/lib/vmtest/fabric.sh

# load_lend [PARAM=VALUE...]: smartio's modules and the NTB's driver
# loaded, smartio_ntb with the PARAMs given (none: its defaults).
# shellcheck disable=SC2120 # nested.sh passes parameters
load_lend() {
	modprobe nvme
	ntb_load
	modprobe smartio_ntb "$@"
	modprobe smartio_lend
}

# lend_function BDF: registers the function BDF for lending and makes it
# available; prints its fdid.
lend_function() {
	line=$(smartioctl device add "$1") || fail "cannot register $1 for lending"
	echo "node$NODE: $line" >&2
	smartioctl device available "${line%%:*}" || fail "cannot make $1 available"
	echo "${line%%:*}"
}

# lender_ready: a lender's start: the modules loaded and node 1 joined.
lender_ready() {
	load_lend
	wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
}

# lend_nvme: the lender's side of most lending tests: the modules loaded,
# node 1 joined, and this node's NVMe registered and available (on node 2,
# as fdid 20000).
lend_nvme() {
	lender_ready
	lend_function "$(nvme_bdf)" >/dev/null
}

# lend_edu: after lend_nvme, this node's edu (QEMU's DMA engine, which
# also raises MSIs on demand) registered and available too (on node 2, as
# fdid 20001); sets edu to its PCI name.
lend_edu() {
	edu=$(pci_name_of 0x1234 0x11e8 edu)
	[ "$(lend_function "$edu")" = 20001 ] || fail "the edu is not 20001"
}

# borrower_ready: node 1's start: the modules loaded and node 2 joined.
borrower_ready() {
	load_lend
	wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
}

# loopback_ready: a loopback node's start (two ports of its NTB cabled to
# each other): the modules loaded and each port joined the other.
loopback_ready() {
	load_lend
	wait_until 30 outputs 2 grep -c "^  peer .* joined$" "$adapters" ||
		{ show_adapters; fail "the two ports never joined each other"; }
}

# loopback_borrow BDF: a loopback node borrows its own NVMe function BDF,
# registered and made available through one port, borrowed through the
# other; sets fdid and shadow (the shadow's PCI name, nvme bound to it).
loopback_borrow() {
	fdid=$(lend_function "$1")
	smartioctl device list | grep -q "^$fdid: $1 " || fail "$1 not listed"
	line=$(smartioctl borrow "$fdid") || fail "borrow $fdid failed"
	echo "node$NODE: $line"
	shadow=${line##* as }
	[ "$(driver_of "$shadow")" = nvme ] || fail "nvme did not bind to $shadow"
}

# borrow_nvme FDID: node 1 borrows node 2's NVMe FDID, nvme binds to its
# shadow and a block device appears; sets shadow and dev, that device.
borrow_nvme() {
	shadow=$(borrow_bound "$1" nvme)
	wait_until 30 nvme_ns_of "$shadow" >/dev/null ||
		{ show_nvme "$shadow"; fail "no block device for the borrowed NVMe"; }
	# shellcheck disable=SC2034 # the caller's
	dev=$(nvme_ns_of "$shadow")
}

# read_sum DEV MIB: checksum of the first MIB MiB of the block device DEV.
read_sum() {
	dd if="$1" bs=1M count="$2" iflag=direct 2>/dev/null | md5sum
}

# write_random DEV MIB: writes MIB MiB of random data to the start of the
# block device DEV and reads them back the same; prints their checksum.
write_random() {
	dd if=/dev/urandom of=/tmp/data bs=1M count="$2" 2>/dev/null
	written=$(md5sum </tmp/data)
	dd if=/tmp/data of="$1" bs=1M oflag=direct 2>/dev/null || fail "cannot write $1"
	rm /tmp/data
	[ "$(read_sum "$1" "$2")" = "$written" ] || fail "$1 reads back other data"
	echo "$written"
}

# write_borrowed FDID: borrows FDID, writes 16 MiB of random data to it,
# reads them back, returns it; prints their checksum.
write_borrowed() {
	line=$(smartioctl borrow "$1") || fail "cannot borrow $1"
	echo "node$NODE: $line" >&2
	shadow=${line##* as }
	wait_until 30 nvme_ns_of "$shadow" >/dev/null || fail "no block device on $shadow"
	dev=$(nvme_ns_of "$shadow")
	dd if=/dev/urandom of=/tmp/data bs=1M count=16 2>/dev/null
	sum=$(md5sum </tmp/data)
	dd if=/tmp/data of="$dev" bs=1M oflag=direct 2>/dev/null || fail "cannot write $dev"
	[ "$(read_sum "$dev" 16)" = "$sum" ] ||
		fail "$dev reads back other data"
	smartioctl return "$1" >&2 || fail "cannot return $1"
	not_present "$shadow" || fail "$shadow still there after the return"
	echo "$sum"
}

# check_written FDID BDF SUM [MIB]: takes FDID (this node's BDF) back from
# lending: its first MIB MiB (16) have the checksum SUM, read by this
# node's own nvme driver.
check_written() {
	smartioctl device unavailable "$1" || fail "cannot take $1 back"
	wait_until 30 nvme_ns_of "$2" >/dev/null || fail "no block device on $2"
	[ "$(read_sum "$(nvme_ns_of "$2")" "${4:-16}")" = "$3" ] ||
		fail "$2 does not hold what the borrower wrote"
}

# lent_listed FDID BDF STATE: a lender's device list is its NVMe BDF alone,
# as FDID, in STATE ("available", "borrowed by 1"...).
lent_listed() {
	list=$(smartioctl device list)
	[ "$list" = "$1: $2 [1b36:0010] class 010802 node 2 $3" ] ||
		fail "listed \"$list\", not $3"
}

# What this node's message handlers returned, by op and status, since its
# smartio_ntb was loaded: the test hooks' <debugfs>/smartio/served
# (ntb/test_hooks.c). Not kretprobes: registering one, or enabling its
# event, patches kernel text at run time, and under TCG a second vCPU at
# the patched site can spin on its int3 for good. The ops' numbers are
# smartio/ntb.h's.
served_file=/sys/kernel/debug/smartio/served
# shellcheck disable=SC2034 # for the scripts that source this
op_borrow=5 op_return=6

# served OP [STATUS]: how often the handler of OP returned (STATUS).
served() {
	awk -v op="$1" -v status="${2-any}" '
		$1 == "op" && $2 == op && (status == "any" || $4 == status) { n += $6 }
		END { print n + 0 }' $served_file
}

# pci_name_of VENDOR DEVICE WHAT: PCI name of this node's first function
# VENDOR:DEVICE; WHAT names it in the failure when there is none.
pci_name_of() {
	d=$(pci_devices "$1" "$2" | head -n 1)
	[ -n "$d" ] || fail "no $3"
	basename "$d"
}

# nvme_bdfs: PCI names of this node's (QEMU) NVMe functions.
nvme_bdfs() {
	for d in $(pci_devices 0x1b36 0x0010); do
		basename "$d"
	done
}

# nvme_bdf: PCI name of this node's first NVMe function.
nvme_bdf() {
	pci_name_of 0x1b36 0x0010 "NVMe function"
}

# driver_of BDF: the driver bound to BDF, or "none".
driver_of() {
	if [ -e "/sys/bus/pci/devices/$1/driver" ]; then
		basename "$(readlink "/sys/bus/pci/devices/$1/driver")"
	else
		echo none
	fi
}

# borrow_bound FDID DRIVER: node 1 borrows node 2's device FDID, and DRIVER
# binds to its shadow device; prints the shadow's PCI name.
borrow_bound() {
	line=$(smartioctl borrow "$1") || fail "borrow $1 failed"
	echo "node$NODE: $line" >&2
	shadow=${line##* as }
	echo "$line" | grep -q " node 2 borrowed by 1 as $shadow\$" ||
		fail "borrow: $line"
	[ "$(driver_of "$shadow")" = "$2" ] || fail "$2 did not bind to $shadow"
	echo "$shadow"
}

# nvme_ctrl_of BDF: the NVMe controller (nvmeN) of the function BDF.
nvme_ctrl_of() {
	for c in /sys/bus/pci/devices/"$1"/nvme/nvme*; do
		[ -e "$c" ] && basename "$c" && return 0
	done
	return 1
}

# nvme_live CTRL: the NVMe controller CTRL is up.
nvme_live() {
	[ "$(cat "/sys/class/nvme/$1/state" 2>/dev/null)" = live ]
}

# nvme_sriov_prepare PF: the NVMe controller of the SR-IOV physical
# function PF gives up its flexible queues and interrupt vectors, for its
# virtual functions' controllers (they leave it at its reset), and is up
# again; its virtual functions are left to no driver here. Prints the
# controller.
nvme_sriov_prepare() {
	wait_until 30 nvme_ctrl_of "$1" >/dev/null || fail "no NVMe controller on $1"
	ctrl=$(nvme_ctrl_of "$1")
	wait_until 30 nvme_live "$ctrl" || fail "$ctrl is not up"
	nvme virt-mgmt "/dev/$ctrl" -c 0 -r 0 -a 1 -n 0 >/dev/null
	nvme virt-mgmt "/dev/$ctrl" -c 0 -r 1 -a 1 -n 0 >/dev/null
	echo 1 >"/sys/bus/pci/devices/$1/reset"
	wait_until 30 nvme_live "$ctrl" || fail "$ctrl did not come back after its reset"
	echo 0 >"/sys/bus/pci/devices/$1/sriov_drivers_autoprobe"
	echo "$ctrl"
}

# nvme_vf_online CTRL CNTLID QUEUES VECTORS NSID: the secondary (virtual
# function's) controller CNTLID of the primary controller CTRL gets QUEUES
# flexible queues (the admin queue is one) and VECTORS interrupt vectors,
# comes online, and gets the detached private namespace NSID attached.
nvme_vf_online() {
	nvme virt-mgmt "/dev/$1" -c "$2" -r 0 -a 8 -n "$3" >/dev/null
	nvme virt-mgmt "/dev/$1" -c "$2" -r 1 -a 8 -n "$4" >/dev/null
	nvme virt-mgmt "/dev/$1" -c "$2" -r 0 -a 9 -n 0 >/dev/null
	nvme attach-ns "/dev/$1" -n "$5" -c "$2" >/dev/null
}

# not_present BDF: no PCI function BDF.
not_present() {
	[ ! -e "/sys/bus/pci/devices/$1" ]
}


# nvme_ns_of BDF: the block device of the first namespace of the NVMe
# controller BDF; fails while there is none.
nvme_ns_of() {
	for ctrl in /sys/bus/pci/devices/"$1"/nvme/nvme*; do
		nvme_ctrl_ns "$ctrl" && return 0
	done
	return 1
}

# show_nvme BDF: what the NVMe driver made of the function BDF, for a
# failure's report: its controllers' sysfs entries and state, the NVMe
# subsystems with their members, the block devices, and every blocked
# task's stack (sysrq w, in the kernel log), since a namespace that does
# not come is most often a scan that waits.
show_nvme() {
	for ctrl in /sys/bus/pci/devices/"$1"/nvme/nvme*; do
		echo "node$NODE: $ctrl ($(cat "$ctrl/state" 2>/dev/null)):" \
			"$(names "$ctrl"/nvme*)"
	done
	for subsys in /sys/class/nvme-subsystem/*; do
		[ -e "$subsys" ] || continue
		echo "node$NODE: $subsys: $(names "$subsys"/nvme*)"
	done
	echo "node$NODE: block devices: $(names /sys/class/block/*)"
	echo w >/proc/sysrq-trigger
}

# names PATH...: the last components of the PATHs that exist, on one line.
names() {
	for path; do
		[ -e "$path" ] && printf '%s ' "${path##*/}"
	done
	echo
}

# blockdev_open DEV: DEV is a block device that opens. Its node appears
# before it does: device_add_disk() adds the device (and with it the
# devtmpfs node and the sysfs directory) before bdev_add(), and an open in
# between fails with ENXIO (make check-debug's lend-cycles once met it).
blockdev_open() {
	[ -b "$1" ] && { : <"$1"; } 2>/dev/null
}

# nvme_ctrl_ns CTRL: the block device of the first namespace of the NVMe
# controller whose sysfs directory is CTRL (PCI or fabrics); fails while
# there is none. With native multipath the controller has a hidden path,
# nvmeScCnN, of the subsystem's block device nvmeSnN (the namespace of this
# controller, not just any of its subsystem's: the virtual functions of
# one NVMe share a subsystem).
nvme_ctrl_ns() {
	for ns in "$1"/nvme*n*; do
		ns=${ns##*/}
		case $ns in
		nvme*c*n*) ns=${ns%%c*}n${ns##*n} ;;
		esac
		blockdev_open "/dev/$ns" && echo "/dev/$ns" && return 0
	done
	return 1
}

# under BDF PATH: the sysfs device PATH is the function BDF or below it.
under() {
	case $(readlink -f "$2") in
	*/"$1" | */"$1"/*) return 0 ;;
	esac
	return 1
}

# disk_below BDF: the first disk below the function BDF, by its sysfs
# path whatever the layers between (SCSI host and target, ATA port, USB
# device, NVMe controller); fails while there is none. An NVMe namespace
# under native multipath is a hidden path, nvmeScCnN, of the block device
# nvmeSnN.
disk_below() {
	for b in /sys/class/block/*; do
		[ ! -e "$b/partition" ] || continue
		under "$1" "$b" || continue
		name=${b##*/}
		case $name in
		nvme*c*n*) name=${name%%c*}n${name##*n} ;;
		esac
		blockdev_open "/dev/$name" && [ "$(cat "$b/size")" -gt 0 ] &&
			echo "/dev/$name" && return 0
	done
	return 1
}

# blockdev_sum DEV: checksum of the first 64 MiB of a block device.
blockdev_sum() {
	dd if="$1" bs=1M count=64 iflag=direct 2>/dev/null | md5sum
}

# borrower_ntb_identity: inbound accesses through the NTB reach memory
# untranslated (the borrower's DMA window covers its RAM), so the NTB's
# IOMMU group must be of type identity; set before its driver binds.
borrower_ntb_identity() {
	ntb=$(ntb_ports | head -n 1)
	[ -n "$ntb" ] || fail "no NTB"
	echo identity >"/sys/bus/pci/devices/$ntb/iommu_group/type" ||
		fail "cannot make the NTB's IOMMU group identity"
}

# borrower_dma_window MODE, before the modules load: the borrower's DMA
# window is "ram" (all of RAM, the NTB's inbound accesses untranslated) or
# "iommu" (the NTB's IOVA window in its IOMMU domain, the default).
borrower_dma_window() {
	case $1 in
	ram) borrower_ntb_identity ;;
	iommu) ;;
	*) fail "borrower_dma_window: $1?" ;;
	esac
}

# iova_pages: pages mapped in the first adapter's IOVA window ("none"
# without one).
iova_pages() {
	sed -n 's/^  iova .* pages \([0-9]*\)$/\1/p' "$adapters" | head -n 1 | grep . ||
		echo none
}

# fio_run RW DEV [SECONDS]: SECONDS (20) of 4 KiB RW (randread, randwrite)
# I/O, direct, queue depth 16, between 64 and 192 MiB of DEV (clear of
# blockdev_sum's data); fails on any I/O error.
fio_run() {
	out=$(fio --name="$1" --filename="$2" --rw="$1" --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=16 --offset=64M --size=128M \
		--time_based --runtime="${3:-20}" 2>&1) || {
		echo "$out"
		fail "fio $1 on $2 failed"
	}
	echo "$out" | grep -q "err= 0:" || { echo "$out"; fail "fio $1 on $2: errors"; }
	echo "node$NODE: fio $1 $2: $(echo "$out" | grep -m1 -o "IOPS=[^,]*")"
}

# fio_until_error DEV: 4 KiB random reads and writes on DEV between 64 and
# 192 MiB (clear of the data checksummed), in the background, until an I/O
# fails or for 10 minutes; /tmp/fio.rc has its exit status at its end.
fio_until_error() {
	(
		rc=0
		fio --name=until-error --filename="$1" --rw=randrw --bs=4k \
			--direct=1 --ioengine=libaio --iodepth=16 --offset=64M \
			--size=128M --time_based --runtime=600 \
			>/tmp/fio.out 2>&1 || rc=$?
		echo $rc >/tmp/fio.rc
	) &
	sleep 5
	[ ! -e /tmp/fio.rc ] || { cat /tmp/fio.out; fail "fio ended at once"; }
}

# fio_failed: the fio of fio_until_error ended within 30 s, with I/O errors.
fio_failed() {
	wait_until 30 test -e /tmp/fio.rc || fail "fio still running after 30 s"
	grep -m1 "err=" /tmp/fio.out || true
	[ "$(cat /tmp/fio.rc)" != 0 ] || { cat /tmp/fio.out; fail "fio saw no error"; }
	grep -q "err= *[1-9]" /tmp/fio.out ||
		{ cat /tmp/fio.out; fail "fio reported no I/O error"; }
	echo "node$NODE: fio ended with I/O errors"
}

# driven_by BDF DRIVER: BDF is bound to DRIVER.
driven_by() {
	[ "$(driver_of "$1")" = "$2" ]
}

# write_synced DEV: 64 MiB of random data written to DEV and synced; prints
# their md5 sum.
write_synced() {
	dd if=/dev/urandom of=/tmp/data bs=1M count=64 2>/dev/null
	synced_sum=$(md5sum </tmp/data)
	dd if=/tmp/data of="$1" bs=1M conv=fsync 2>/dev/null || fail "cannot write $1"
	rm /tmp/data
	echo "$synced_sum"
}

# host_reads_synced BDF SUM: nvme has BDF back, and its namespace starts
# with the 64 MiB whose md5 sum is SUM (write_synced on the borrower).
host_reads_synced() {
	wait_until 30 driven_by "$1" nvme ||
		fail "nvme did not get $1 back: $(driver_of "$1")"
	wait_until 30 nvme_ns_of "$1" >/dev/null || fail "no block device on $1"
	[ "$(read_sum "$(nvme_ns_of "$1")" 64)" = "$2" ] ||
		fail "$1 reads other data than node 1 synced"
	echo "node$NODE: nvme has $1 back and reads what node 1 synced"
}
