# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The script of mdev-guest's nested guest (node0.sh), with the stock
# drivers of the two devices passed to it. The nvme driver writes 16 MiB
# of random data to the NVMe and reads them back; the e1000e, up as
# 10.0.0.1, pings the lender's peer NIC (10.0.0.2, tests/vm/guest/nic.sh).
# The lines that begin "nested:" are what node0.sh reads.

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

modprobe nvme
within 30 /dev/nvme0n1 opens /dev/nvme0n1
echo "nested: nvme bound, model $(cat /sys/class/nvme/nvme0/model)"
dd if=/dev/urandom of=/tmp/data bs=1M count=16 2>/dev/null
sum=$(md5sum </tmp/data)
dd if=/tmp/data of=/dev/nvme0n1 bs=1M oflag=direct 2>/dev/null
if [ "$(dd if=/dev/nvme0n1 bs=1M count=16 iflag=direct 2>/dev/null | md5sum)" != "$sum" ]; then
	echo "nested: /dev/nvme0n1 reads back other data"
	exit 1
fi
echo "nested: wrote 16 MiB, read them back the same, md5 ${sum%% *}"
# Every queue's interrupts, summed over the CPUs' columns.
echo "nested: nvme interrupts $(awk '/nvme0q/ { for (i = 2; i <= NF; i++)
	if ($i ~ /^[0-9]+$/) n += $i } END { print n + 0 }' /proc/interrupts)"

modprobe e1000e
within 30 eth0 test -e /sys/class/net/eth0
ip link set eth0 up
ip addr add 10.0.0.1/24 dev eth0
within 30 "carrier on eth0" carrier eth0
ping -c 3 -w 30 10.0.0.2 >/tmp/ping || true
tail -n 2 /tmp/ping
echo "nested: e1000e pinged 10.0.0.2: $(grep -o '[0-9]* packets received' /tmp/ping)"
