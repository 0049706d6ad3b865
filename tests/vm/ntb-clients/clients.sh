# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# ntb_pingpong counts up, ntb_perf completes and reports a throughput, and
# ntb_netdev carries a ping and a 16 MiB transfer with matching checksum.
set -eu
# shellcheck source=../guest/ntb-clients.sh
. /usr/local/lib/vmtest/ntb-clients.sh

peer=$((1 - NODE))
modprobe ntb_hw_smartio
port=$(ntb_ports)
[ -n "$port" ] || fail "no emulated NTB port"
echo "node$NODE: NTB port $port"

pingpong_count() {
	cat "/sys/kernel/debug/ntb_pingpong/$port/count"
}

modprobe ntb_pingpong
wait_until 60 sh -c "[ \$(cat /sys/kernel/debug/ntb_pingpong/$port/count) -gt 0 ]" ||
	fail "ntb_pingpong never counted"
first=$(pingpong_count)
sleep 2
second=$(pingpong_count)
echo "node$NODE: pingpong count $first -> $second"
[ "$second" -gt "$first" ] || fail "ntb_pingpong stopped counting"
vmctl barrier pingpong
rmmod ntb_pingpong
vmctl barrier pingpong-unloaded

# Windows are 4 MiB; 1 MiB of traffic keeps TCG's time reasonable.
modprobe ntb_perf total_order=20 max_mw_size=0x400000
vmctl barrier perf-loaded
perf=/sys/kernel/debug/ntb_perf/$port
if [ "$NODE" = 0 ]; then
	echo 0 >"$perf/run"
	result=$(cat "$perf/run")
	echo "$result"
	echo "$result" | grep -q 'MBytes/s' || fail "ntb_perf reported no throughput"
fi
vmctl barrier perf-done
rmmod ntb_perf

ifname=$(ntb_netdev_up "$port" "169.254.77.$((NODE + 1))")
wait_until 60 has_carrier "$ifname" || fail "$ifname never got a carrier"
vmctl barrier netdev-up
ping -c 3 -W 5 "169.254.77.$((peer + 1))" || fail "no ping over ntb_netdev"

# 16 MiB over HTTP (busybox httpd and wget: unlike nc, both end a transfer
# cleanly at its end).
if [ "$NODE" = 0 ]; then
	mkdir -p /tmp/www
	dd if=/dev/urandom of=/tmp/www/blob bs=1M count=16 2>/dev/null
	httpd -p 169.254.77.1:8080 -h /tmp/www
	vmctl put serving "$(md5sum </tmp/www/blob)"
else
	sent=$(vmctl get serving)
	wget -q -O /tmp/received http://169.254.77.1:8080/blob ||
		fail "download over ntb_netdev failed"
	received=$(md5sum </tmp/received)
	echo "node1: $(wc -c </tmp/received) bytes, md5 $received (sent $sent)"
	[ "$sent" = "$received" ] || fail "16 MiB transfer corrupted"
fi
vmctl barrier transferred

# One side at a time: ntb_transport frees its windows both when it is
# unloaded and when its link goes down, and does not survive the two at
# once (an upstream race). Node 1 waits for its link to go down first.
if [ "$NODE" = 0 ]; then
	rmmod ntb_netdev ntb_transport ntb_hw_smartio
	vmctl barrier unloaded
else
	vmctl barrier unloaded
	wait_until 30 no_carrier "$ifname" ||
		fail "$ifname kept its carrier after the peer left"
	rmmod ntb_netdev ntb_transport ntb_hw_smartio
fi
