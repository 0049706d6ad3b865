#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Isolation: through a LUT window node0 writes to a bus address that node1
# never mapped for its NTB. node1's NTB performs the write as a requester
# behind node1's IOMMU, which must block it and report a fault (node1.sh).
set -eu
# shellcheck source=../guest/ntb-clients.sh
. /usr/local/lib/vmtest/ntb-clients.sh

modprobe ntb_hw_smartio use_lut_mws=1
ntb_tool_up
vmctl barrier up

# The first LUT window comes after the direct ones, which are the inbound
# windows (mw_trans*).
lut=0
for _ in "$tool"/peer0/mw_trans*; do
	lut=$((lut + 1))
done
echo "node0: $lut direct windows, first LUT window is peer_mw$lut"
echo "0x7f000000:0x200000" >"$tool/peer0/peer_mw_trans$lut" ||
	fail "could not point a LUT window at node1's 0x7f000000"
head -c 4096 /dev/urandom | dd of="$tool/peer0/peer_mw$lut" bs=4096 2>/dev/null ||
	fail "write through the LUT window failed"
vmctl put written yes
vmctl barrier checked
