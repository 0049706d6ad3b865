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
