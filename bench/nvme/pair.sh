# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034 # its variables are node0.sh's
#
# The two NVMe controllers node0.sh compares, on two VMs: this node's own,
# and node 2's, lent as fdid 20000 (node1.sh) and borrowed here.

# The benchmark, naming its results.
bench=nvme

# nvme_pair: sets local_dev and borrowed_dev, block devices of the two.
nvme_pair() {
	borrower_ready
	own=$(nvme_bdf)
	wait_until 30 nvme_ns_of "$own" >/dev/null || fail "no block device for $own"
	vmctl barrier available
	shadow=$(borrow_bound 20000 nvme)
	wait_until 30 nvme_ns_of "$shadow" >/dev/null || fail "no block device for $shadow"
	local_dev=$(nvme_ns_of "$own")
	borrowed_dev=$(nvme_ns_of "$shadow")
}

# nvme_unpair: returns the borrowed one, for good.
nvme_unpair() {
	smartioctl return 20000 || fail "return failed"
	vmctl barrier returned
}
