# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# lend-kinds' work for a storage controller (CLASS storage, kinds.sh): the
# disk behind it, found from the function through sysfs (lend.sh's disk_below).

# disk_of BDF WHAT: waits for the disk below BDF (WHAT, in the failure) and
# prints it. A USB stick or a SCSI disk comes a few seconds after its
# controller's driver binds.
disk_of() {
	wait_until 60 disk_below "$1" >/dev/null || kind_fail "no disk behind $2 after 60 s"
	disk_below "$1"
}

# disk_sum DEV WHAT: sets read_sum to the md5 of the first 64 MiB of DEV,
# read around the page cache; fails as WHAT if they cannot all be read.
disk_sum() {
	bounded 150 "$2" dd if="$1" of=/tmp/back bs=1M count=64 iflag=direct ||
		kind_fail "$2 failed"
	[ "$(stat -c %s /tmp/back)" = $((64 << 20)) ] ||
		kind_fail "$2: $(stat -c %s /tmp/back) bytes"
	read_sum=$(md5sum </tmp/back)
	read_sum=${read_sum%% *}
	rm /tmp/back
}

# storage_own BDF (node 2, before lending): its own driver has a disk
# behind BDF: the rig is right before anything is lent.
storage_own() {
	dev=$(disk_of "$1" "$1 (node 2's own $DRIVER, before lending)")
	echo "node$NODE: $1's disk is $dev"
	# A refused lending must leave the disk as it was: remember it.
	if [ -n "$REFUSED" ]; then
		disk_sum "$dev" "reading 64 MiB from $dev before lending"
		own_sum=$read_sum
	fi
}

# storage_borrowed SHADOW (node 1): 64 MiB of random data go to the disk
# behind the borrowed function SHADOW and read back the same; their md5
# goes to node 2 as "sum".
storage_borrowed() {
	dev=$(disk_of "$1" "the borrowed $KIND ($1)")
	echo "node$NODE: the borrowed $KIND's disk is $dev"
	dd if=/dev/urandom of=/tmp/data bs=1M count=64 2>/dev/null
	sum=$(md5sum </tmp/data)
	sum=${sum%% *}
	echo "node$NODE: writing 64 MiB to $dev"
	start=$(date +%s)
	bounded 150 "writing 64 MiB to the borrowed $KIND's $dev" \
		dd if=/tmp/data of="$dev" bs=1M oflag=direct ||
		kind_fail "writing 64 MiB to the borrowed $KIND's $dev failed"
	rm /tmp/data
	echo "node$NODE: written in $(($(date +%s) - start)) s; reading them back"
	start=$(date +%s)
	disk_sum "$dev" "reading 64 MiB back from the borrowed $KIND's $dev"
	echo "node$NODE: read in $(($(date +%s) - start)) s: wrote md5 $sum, read $read_sum"
	[ "$read_sum" = "$sum" ] || kind_fail "the borrowed $KIND's $dev reads back other data than written"
	vmctl put sum "$sum"
}

# storage_returned BDF (node 2, after the return): its own driver reads
# from the disk behind BDF exactly what node 1 wrote (what it held before,
# where lending was refused).
storage_returned() {
	dev=$(disk_of "$1" "$1 (node 2's own $DRIVER, after the return)")
	if [ -n "$REFUSED" ]; then
		sum=$own_sum
	else
		sum=$(vmctl get sum)
	fi
	disk_sum "$dev" "reading 64 MiB from $dev after the return"
	echo "node$NODE: node 1 wrote md5 $sum, $dev holds $read_sum"
	[ "$read_sum" = "$sum" ] || kind_fail "$dev on node 2 does not hold what node 1 wrote"
}
