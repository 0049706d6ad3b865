# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The script of mdev-guest's nested guest in its peer-to-peer case
# (node0.sh): node 2's edu and its NVMe with a controller memory buffer,
# both passed to it. The NVMe's memory decoding on, then the edu's driver
# (smartio_edu_test, which turns the edu's bus mastering on as it binds)
# has the edu write a pattern into the buffer (BAR 2) at the
# guest-physical address the guest gave it, read it back, and the CPU
# find it there: the edu's request goes from one device to the other on
# node 2, mapped there at the guest's address.

# pci_function VENDOR DEVICE: the guest's PCI name of the function.
pci_function() {
	for d in /sys/bus/pci/devices/*; do
		if [ "$(cat "$d/vendor")" = "$1" ] && [ "$(cat "$d/device")" = "$2" ]; then
			basename "$d"
			return 0
		fi
	done
	return 1
}

edu=$(pci_function 0x1234 0x11e8) || { echo "nested: no edu"; exit 1; }
nvme=$(pci_function 0x1b36 0x0010) || { echo "nested: no NVMe"; exit 1; }
buffer=$(sed -n 3p "/sys/bus/pci/devices/$nvme/resource" | cut -d' ' -f1)
[ "$((buffer))" -ne 0 ] || { echo "nested: the NVMe has no BAR 2"; exit 1; }
echo "nested: edu $edu, NVMe $nvme, its buffer at $buffer"
echo 1 >"/sys/bus/pci/devices/$nvme/enable"
mount -t debugfs debugfs /sys/kernel/debug
modprobe smartio_edu_test
if ! echo "$buffer 4242" >"/sys/kernel/debug/smartio_edu_test/$edu/p2p"; then
	dmesg | grep smartio_edu_test | tail -n 3
	echo "nested: the edu did not write into the buffer"
	exit 1
fi
dmesg | grep "smartio_edu_test $edu: p2p: " | tail -n 1
dmesg | grep -q "smartio_edu_test $edu: p2p: 2048 bytes into $buffer at $buffer, read back, arrived" ||
	{ echo "nested: no arrival at the buffer's guest-physical address"; exit 1; }
echo "nested: edu wrote into the NVMe's buffer at $buffer, read back, arrived"
