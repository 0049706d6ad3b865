# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers of fabric-segment-revoke: unbinding and binding again a node's
# NTB.

# shellcheck source=../fabric-segment/segment.sh
. ./segment.sh

# ntb_unbind: this node's NTB leaves its hardware driver, within 30 s.
ntb_unbind() {
	ntb=$(ntb_ports | head -n 1)
	timeout 30 sh -c "echo $ntb >/sys/bus/pci/drivers/$NTB_DRIVER/unbind" ||
		fail "cannot unbind $ntb from $NTB_DRIVER within 30 s"
	echo "node$NODE: $ntb unbound from $NTB_DRIVER"
}

# ntb_bind NODE: the NTB unbound by ntb_unbind is bound again, and node
# NODE joins again through it.
ntb_bind() {
	echo "$ntb" >"/sys/bus/pci/drivers/$NTB_DRIVER/bind" ||
		fail "cannot bind $ntb to $NTB_DRIVER again"
	wait_until 60 joined "$1" || { show_adapters; fail "node $1 did not join again"; }
	echo "node$NODE: $ntb bound again, node $1 joined"
}
