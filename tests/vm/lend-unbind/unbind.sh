# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers of lend-unbind: unbinding and binding again a node's NTB, and
# fio that runs until an I/O of it fails.

# shellcheck source=../lend-devices/lend.sh
. ./lend.sh

# ntb_unbind: this node's NTB leaves its hardware driver; it must not take
# more than 30 s, whatever its adapter's users were doing (the hung-task
# detector fails the node on a task blocked for 30 s).
ntb_unbind() {
	echo 30 >/proc/sys/kernel/hung_task_timeout_secs ||
		fail "cannot shorten the hung-task timeout"
	ntb=$(ntb_ports | head -n 1)
	start=$(date +%s)
	echo "$ntb" >"/sys/bus/pci/drivers/$NTB_DRIVER/unbind" ||
		fail "cannot unbind $ntb from $NTB_DRIVER"
	took=$(($(date +%s) - start))
	echo "node$NODE: $ntb unbound from $NTB_DRIVER in $took s"
	[ "$took" -le 30 ] || fail "unbinding $ntb took $took s"
	grep -q "^adapter " "$adapters" && { show_adapters; fail "an adapter is left"; }
	return 0
}

# ntb_bind: the NTB unbound by ntb_unbind is bound again, and node NODE
# joins again through it.
ntb_bind() {
	echo "$ntb" >"/sys/bus/pci/drivers/$NTB_DRIVER/bind" ||
		fail "cannot bind $ntb to $NTB_DRIVER again"
	wait_until 60 joined "$1" || { show_adapters; fail "node $1 did not join again"; }
	echo "node$NODE: $ntb bound again, node $1 joined"
}

# fio_until_error DEV: 4 KiB random reads and writes on DEV between 64 and
# 192 MiB (clear of the data checksummed), in the background, until an I/O
# fails or for 10 minutes; /tmp/fio.rc has its exit status at its end.
fio_until_error() {
	(
		rc=0
		fio --name=unbind --filename="$1" --rw=randrw --bs=4k \
			--direct=1 --ioengine=libaio --iodepth=16 --offset=64M \
			--size=128M --time_based --runtime=600 \
			>/tmp/fio.out 2>&1 || rc=$?
		echo $rc >/tmp/fio.rc
	) &
	sleep 5
	[ ! -e /tmp/fio.rc ] || { cat /tmp/fio.out; fail "fio ended at once"; }
}

# fio_failed: the fio of fio_until_error ended within 30 s, with I/O errors.
fio_failed() {
	wait_until 30 test -e /tmp/fio.rc || fail "fio still running after 30 s"
	grep -m1 "err=" /tmp/fio.out || true
	[ "$(cat /tmp/fio.rc)" != 0 ] || { cat /tmp/fio.out; fail "fio saw no error"; }
	grep -q "err= *[1-9]" /tmp/fio.out ||
		{ cat /tmp/fio.out; fail "fio reported no I/O error"; }
	echo "node$NODE: fio ended with I/O errors"
}
