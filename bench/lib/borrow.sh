# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# What the borrowing benchmarks time and weigh on a node: how long until a
# borrowed NVMe's block device is there, memory, and smartio's windows in
# use. result.sh and lend.sh come first.

# ready_after START BDF: ms from START (now_ns) until the NVMe controller
# BDF has a block device, polling every 10 ms; fails after 60 s (by the
# clock: on a busy host a round of polling takes far longer than 10 ms).
ready_after() {
	until nvme_ns_of "$2" >/dev/null; do
		[ $(($(now_ns) - $1)) -lt 60000000000 ] ||
			fail "no block device for $2 after 60 s"
		sleep 0.01
	done
	echo $((($(now_ns) - $1) / 1000000))
}

# read_each BDF...: a block read through each borrowed NVMe controller
# BDF, all of them bound at once.
read_each() {
	for bdf in "$@"; do
		dev=$(nvme_ns_of "$bdf")
		dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null ||
			fail "cannot read $dev ($bdf)"
	done
	echo "node$NODE: a block read from each of the $# borrowed NVMe"
}

# meminfo FIELD: FIELD of /proc/meminfo (MemAvailable, Slab...), in KiB.
meminfo() {
	awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo
}

# $adapters is fabric.sh's debugfs file (lend.sh sources fabric.sh).
# shellcheck disable=SC2154
# lut_slots: LUT windows in use, on all of this node's adapters.
lut_slots() {
	awk '$1 == "windows" && $2 == "lut" { split($3, a, "/"); n += a[1] }
		END { print n + 0 }' "$adapters"
}

# shellcheck disable=SC2154
# iova_pages_all: pages mapped in all of this node's IOVA windows.
iova_pages_all() {
	awk '$1 == "iova" && $3 == "pages" { n += $4 } END { print n + 0 }' "$adapters"
}
