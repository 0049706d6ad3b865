# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
set -eu

# shellcheck source=../guest/testlib.sh
. /usr/local/lib/vmtest/testlib.sh

# The rig's own promise: an emulated NVMe per node.
modprobe nvme
for _ in $(seq 50); do
	[ -b /dev/nvme0n1 ] && break
	sleep 0.2
done
[ -b /dev/nvme0n1 ] || fail "no /dev/nvme0n1"

modprobe smartio
[ "$(cat /sys/module/smartio/initstate)" = live ] || fail "smartio not live"
smartioctl version
[ "$(smartioctl -j version)" = \
  "{\"smartioctl\":\"$(cat /sys/module/smartio/version)\",\"module\":\"$(cat /sys/module/smartio/version)\"}" ] ||
	fail "tool and module versions differ"
vmctl barrier loaded

modprobe -r smartio
[ ! -e /sys/module/smartio ] || fail "smartio still loaded"
smartioctl version | grep -q 'not loaded' || fail "smartioctl still sees the module"
vmctl barrier unloaded
echo "node$NODE: modules loaded and unloaded"

# The NTB core and the upstream clients (built by scripts/build-ntb-core
# where the kernel lacks them) load and unload cleanly with no NTB present.
# (ntb_netdev is left out: it refuses to load, by design, until an NTB
# transport device exists.)
for m in ntb_tool ntb_perf ntb_pingpong ntb_transport; do
	modprobe "$m" || fail "modprobe $m"
done
for m in ntb_tool ntb_perf ntb_pingpong ntb_transport ntb; do
	rmmod "$m" || fail "rmmod $m"
done
[ ! -e /sys/module/ntb ] || fail "ntb still loaded"
vmctl barrier ntb-core
