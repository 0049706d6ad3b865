# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The function lent (see lend-nvme/node*.sh): node 2's NVMe, which offers
# MSI only (the qemu file's msix=off,msi=on: qemu/patches/nvme-msi.patch),
# so that its driver takes MSI, on the borrower through the shadow's MSI
# capability.
export DEVICE=NVMe
export DEVICE_DRIVER=nvme
export DEVICE_IRQ=msi

# lent_bdf: PCI name of the function to lend.
lent_bdf() {
	nvme_bdf
}

# blockdev_of BDF: the block device behind BDF; fails while there is none.
blockdev_of() {
	nvme_ns_of "$1"
}

# load_device: the driver's modules (load_lend loads nvme).
load_device() {
	:
}
