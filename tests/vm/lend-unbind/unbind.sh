# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers of lend-unbind: fio that runs until an I/O of it fails.

# shellcheck source=../lend-devices/lend.sh
. ./lend.sh

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
