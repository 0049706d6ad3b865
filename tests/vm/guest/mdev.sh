# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the mediated-device tests (mdev-*, lend-three, bench/mdev):
# smartio_mdev loaded, an mdev made for a device of the cluster.

# shellcheck source=tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

mdev_type=/sys/class/smartio/smartio/mdev_supported_types/smartio-pci

# mdev_load: VFIO's type1 container (what the clients open) and
# smartio_mdev loaded.
mdev_load() {
	modprobe vfio_iommu_type1
	modprobe smartio_mdev
}

# mdev_create UUID FDID: an mdev UUID of type smartio-pci, standing for
# the device FDID.
mdev_create() {
	echo "$1" >"$mdev_type/create" || fail "cannot create mdev $1"
	echo "$2" >"/sys/bus/mdev/devices/$1/smartio/fdid" ||
		fail "mdev $1 did not take fdid $2"
}

# mdev_borrower UUID FDID: node 1's start in the mdev tests: the modules
# loaded, node 2 joined and its devices lent (the barrier "available",
# which its lend_nvme meets), and an mdev UUID for its device FDID.
mdev_borrower() {
	borrower_ready
	mdev_load
	vmctl barrier available
	mdev_create "$1" "$2"
}

# listed_available FDID: FDID is listed available (given back, or lent
# again).
listed_available() {
	smartioctl device list | grep -q "^$1: .* available\$"
}
