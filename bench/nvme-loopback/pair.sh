# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034,SC2154 # node0.sh's variables, lend.sh's
#
# The two NVMe controllers node0.sh compares, in one VM through a loopback
# cable (two ports of its NTB, cabled to each other): its first NVMe, and
# its second, lent through one port and borrowed through the other.

# The benchmark, naming its results.
bench=nvme-loopback

# nvme_pair: sets local_dev and borrowed_dev, block devices of the two.
nvme_pair() {
	loopback_ready
	# shellcheck disable=SC2046 # two PCI names
	set -- $(nvme_bdfs)
	[ $# = 2 ] || fail "$# NVMe functions, not 2"
	own=$1 lent=$2
	wait_until 30 nvme_ns_of "$own" >/dev/null || fail "no block device for $own"
	loopback_borrow "$lent"
	wait_until 30 nvme_ns_of "$shadow" >/dev/null || fail "no block device for $shadow"
	local_dev=$(nvme_ns_of "$own")
	borrowed_dev=$(nvme_ns_of "$shadow")
}

# nvme_unpair: returns the borrowed one and gives it back to its driver.
nvme_unpair() {
	smartioctl return "$fdid" || fail "return failed"
	smartioctl device unavailable "$fdid"
	smartioctl device remove "$fdid"
}
