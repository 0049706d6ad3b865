#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Peer-to-peer DMA with borrowed devices: node 1 borrows node 2's edu and
# NVMe controller, and edu, driven by the smartio_edu_test driver, writes a
# pattern into a controller memory buffer (an NVMe BAR) at the address
# dma_map_resource() gives for the buffer's physical address here, reads it
# back, and the CPU finds it there. Three ways: the borrowed edu into the
# borrowed NVMe's buffer (both on node 2, so straight there: the address
# is the buffer's bus address on node 2), the borrowed edu into node 1's
# own NVMe's buffer, and node 1's own edu into the borrowed buffer. Every
# mapping is gone from the DMA window afterwards.
#
# Then the lender's isolation: the borrowed edu, told to DMA where nothing
# maps for it (node 2's memory, at the address of a page node 2 filled,
# and near address 0, and the NVMe's buffer once the NVMe is returned), is
# stopped by node 2's IOMMU (a DMAR fault there, test.conf), and node 2
# finds the page unchanged (node1.sh).
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

# bar_phys BDF N: the CPU physical address of BAR N of BDF, in hex.
bar_phys() {
	sed -n "$(($2 + 1))p" "/sys/bus/pci/devices/$1/resource" | cut -d' ' -f1
}

# p2p EDU TARGET SEED [NODE [ADDR]]: EDU DMAs SEED's pattern into BAR 2 of
# TARGET, which is node NODE's when given and not empty (EDU is then listed
# in the requester-ID table of the NTB toward it), at EDU's address ADDR
# when given.
p2p() {
	phys=$(bar_phys "$2" 2)
	[ "$((phys))" -ne 0 ] || fail "$2 has no BAR 2"
	echo "$phys $3${4:+ $4}" >"$(edu_test_file "$1" p2p)" ||
		fail "edu $1 could not write into BAR 2 of $2 at $phys:" \
			"$(dmesg | grep "smartio_edu_test $1: " | tail -1)"
	dmesg | grep -q "smartio_edu_test $1: p2p: 2048 bytes into $phys at ${5:-.*}, read back, arrived" ||
		fail "no arrival line for $1 into $2${5:+ at $5}:" \
			"$(dmesg | grep "smartio_edu_test $1: p2p: " | tail -1)"
	echo "node$NODE: edu $1 wrote into BAR 2 of $2 ($phys)"
}

# stray EDU ADDR SEED: EDU writes SEED's pattern to bus address ADDR,
# which nothing maps.
stray() {
	echo "$2 $3" >"$(edu_test_file "$1" stray)" ||
		fail "edu $1 could not be told to write to $2"
	echo "node$NODE: edu $1 wrote astray, to $2"
}

load_lend
modprobe smartio_edu_test
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
own_edu=$(pci_name_of 0x1234 0x11e8 "edu")
own_nvme=$(nvme_bdf)
vmctl barrier available

pages=$(iova_pages)
edu=$(borrow_bound 20000 smartio_edu_test)
nvme=$(borrow_bound 20001 nvme)

# Same lender: straight to the buffer's bus address there.
nvme_bus=$(vmctl get nvme_bar2)
p2p "$edu" "$nvme" 1 "" "$nvme_bus"
p2p "$edu" "$own_nvme" 2	# target local to the borrower
p2p "$own_edu" "$nvme" 3 2	# local source, borrowed target (node 2's)

stray "$edu" "$(vmctl get guard)" 4	# node 2's memory
stray "$edu" 0x1000 5			# near address 0
# Returned, the NVMe's buffer is out of the edu's reach.
smartioctl return 20001 || fail "return 20001 failed"
vmctl barrier buffer-returned
stray "$edu" "$nvme_bus" 6
vmctl barrier strayed

rmmod smartio_edu_test
smartioctl return 20000 || fail "return 20000 failed"
not_present "$edu" || fail "shadow edu still there"
not_present "$nvme" || fail "shadow NVMe still there"
[ "$(iova_pages)" = "$pages" ] ||
	fail "DMA window holds $(iova_pages) pages after the return, $pages before"
vmctl barrier returned
rmmod smartio_lend smartio_ntb smartio
ntb_unload
