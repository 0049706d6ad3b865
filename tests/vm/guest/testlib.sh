# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for VM test scripts, in every node's image. Source it with
#
#	# shellcheck source=../guest/testlib.sh
#	. /usr/local/lib/vmtest/testlib.sh

# fail MESSAGE: the script's one clear failure line, and its end.
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# wait_until SECONDS COMMAND...: polls COMMAND every 0.2 s; fails when it
# has not succeeded in time.
wait_until() {
	limit=$(($1 * 5))
	shift
	while ! "$@"; do
		limit=$((limit - 1))
		[ $limit -gt 0 ] || return 1
		sleep 0.2
	done
}

# pci_devices VENDOR DEVICE: the sysfs directories of matching PCI functions,
# one per line, in bus order.
pci_devices() {
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = "$1" ] &&
			[ "$(cat "$d/device")" = "$2" ] && echo "$d"
	done
	return 0
}

# edu_test_file BDF FILE: the debugfs FILE (copy, p2p) through which the
# smartio_edu_test driver has the edu function BDF move data; BDF "first"
# names this node's first edu.
edu_test_file() {
	bdf=$1
	if [ "$bdf" = first ]; then
		bdf=$(pci_devices 0x1234 0x11e8 | head -n 1)
		bdf=${bdf##*/}
	fi
	echo "/sys/kernel/debug/smartio_edu_test/$bdf/$2"
}

# as_nobody COMMAND...: COMMAND as an unprivileged user (nobody), through
# sh -c, so that tests can check what only root may do.
as_nobody() {
	grep -q '^nobody:' /etc/passwd 2>/dev/null ||
		echo "nobody:x:65534:65534:nobody:/:/bin/sh" >>/etc/passwd
	su -s /bin/sh nobody -c "$*"
}
