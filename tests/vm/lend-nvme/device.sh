# shellcheck shell=sh
# The function lent (see lend-nvme/node*.sh): the node's NVMe, whose
# driver takes MSI-X.
export DEVICE=NVMe
export DEVICE_DRIVER=nvme
export DEVICE_IRQ=msix

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
