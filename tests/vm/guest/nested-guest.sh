# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the scripts that run inside a nested guest (nested.sh puts
# this file in its initramfs as /lib/nested-guest.sh): the guest's stock
# drivers at work on the devices passed to it. What they print begins
# "nested:", which the node reads back (nested_said).

# within SECONDS WHAT COMMAND...: COMMAND succeeds within SECONDS, or the
# script ends saying that WHAT did not come.
within() {
	seconds=$1 what=$2
	tries=$((seconds * 5))
	shift 2
	until "$@"; do
		tries=$((tries - 1))
		if [ $tries = 0 ]; then
			echo "nested: no $what within $seconds s"
			exit 1
		fi
		sleep 0.2
	done
}

# opens DEV: the block device DEV opens (its node comes before it does).
opens() {
	[ -b "$1" ] && { : <"$1"; } 2>/dev/null
}

# carrier IFNAME: IFNAME's link is up.
carrier() {
	ip link show "$1" | grep -q LOWER_UP
}

# nested_nvme MIB: the stock nvme driver binds the guest's NVMe, writes
# MIB MiB of random data to it and reads them back the same; prints
# "nested: wrote MIB MiB, read them back the same, md5 SUM" and the
# interrupts of its queues ("nested: nvme interrupts N").
nested_nvme() {
	modprobe nvme
	within 30 /dev/nvme0n1 opens /dev/nvme0n1
	echo "nested: nvme bound, model $(cat /sys/class/nvme/nvme0/model)"
	dd if=/dev/urandom of=/tmp/data bs=1M count="$1" 2>/dev/null
	sum=$(md5sum </tmp/data)
	dd if=/tmp/data of=/dev/nvme0n1 bs=1M oflag=direct 2>/dev/null
	if [ "$(dd if=/dev/nvme0n1 bs=1M count="$1" iflag=direct 2>/dev/null |
		md5sum)" != "$sum" ]; then
		echo "nested: /dev/nvme0n1 reads back other data"
		exit 1
	fi
	rm /tmp/data
	echo "nested: wrote $1 MiB, read them back the same, md5 ${sum%% *}"
	# Every queue's interrupts, summed over the CPUs' columns.
	echo "nested: nvme interrupts $(awk '/nvme0q/ { for (i = 2; i <= NF; i++)
		if ($i ~ /^[0-9]+$/) n += $i } END { print n + 0 }' /proc/interrupts)"
}

# nested_ping DRIVER IP PEER: the stock DRIVER binds the guest's NIC, up
# as IP/24, its link up, and pings PEER 3 times; prints "nested: DRIVER
# pinged PEER: N packets received".
nested_ping() {
	modprobe "$1"
	within 30 eth0 test -e /sys/class/net/eth0
	ip link set eth0 up
	ip addr add "$2/24" dev eth0
	within 30 "carrier on eth0" carrier eth0
	ping -c 3 -w 30 "$3" >/tmp/ping || true
	tail -n 2 /tmp/ping
	echo "nested: $1 pinged $3: $(grep -o '[0-9]* packets received' /tmp/ping)"
}

# pci_function VENDOR DEVICE: the PCI name of the guest's first function
# with those ids; fails where there is none.
pci_function() {
	for d in /sys/bus/pci/devices/*; do
		if [ "$(cat "$d/vendor")" = "$1" ] && [ "$(cat "$d/device")" = "$2" ]; then
			basename "$d"
			return 0
		fi
	done
	return 1
}

# nested_p2p: peer-to-peer between two devices passed to the guest, an
# edu (QEMU's DMA engine) and an NVMe with a controller memory buffer
# (BAR 2): the NVMe's memory decoding on, the edu's driver
# (smartio_edu_test, which turns its bus mastering on as it binds) has it
# write a pattern into the buffer at the guest-physical address the guest
# gave it and read it back, and the CPU finds it there. Prints "nested:
# edu wrote into the NVMe's buffer at ADDR, read back, arrived".
nested_p2p() {
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
	dmesg | grep -q "smartio_edu_test $edu: p2p: 2048 bytes into $buffer at $buffer, read back, arrived" || {
		dmesg | grep "smartio_edu_test $edu: p2p: " | tail -n 1
		echo "nested: no arrival at the buffer's guest-physical address"
		exit 1
	}
	echo "nested: edu wrote into the NVMe's buffer at $buffer, read back, arrived"
}
