# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The script of mdev-guest's nested guest in its lender-lost case
# (node0.sh): the NVMe, passed to it behind a hot-plug slot (a PCIe root
# port), works; then it is read without end while node 1 kills the
# lender's VM. The reads fail (the NVMe reads all ones, as a function
# that is gone does), and QEMU, asked by smartio_mdev to release it,
# unplugs it from the guest: the guest's pciehp removes it.

# shellcheck source=../guest/nested-guest.sh
. /lib/nested-guest.sh

nested_nvme 4
nvme=$(basename "$(readlink -f /sys/class/nvme/nvme0/device)")
(
	while dd if=/dev/nvme0n1 of=/dev/null bs=1M count=16 iflag=direct 2>/dev/null; do
		:
	done
	touch /tmp/reads-failed
) &
echo "nested: reading $nvme"
within 120 "failed read of the lost NVMe" test -e /tmp/reads-failed
echo "nested: the reads of the lost NVMe failed"
within 60 "unplug of $nvme" test ! -e "/sys/bus/pci/devices/$nvme"
echo "nested: $nvme unplugged"
