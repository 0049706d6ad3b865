#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The lender of scale-functions: enables its NVMe's virtual functions,
# brings each one's controller online with its own namespace and lends
# them all; reports its memory and windows while node 1 borrows them all.
set -eu
. ./functions.sh

lender_ready
pf=$(nvme_bdf)
ctrl=$(nvme_sriov_prepare "$pf")
echo "$count" >"/sys/bus/pci/devices/$pf/sriov_numvfs"
# Virtual function N is secondary controller N, namespace N its own.
for n in $(seq "$count"); do
	vf=$(basename "$(readlink "/sys/bus/pci/devices/$pf/virtfn$((n - 1))")")
	nvme_vf_online "$ctrl" "$n" 2 1 "$n"
	[ "$(lend_function "$vf" 2>/dev/null)" = "$(fdid_of "$n")" ] ||
		fail "$vf is not fdid $(fdid_of "$n")"
done
echo "node$NODE: $count virtual functions of $pf lent"
mem=$(meminfo MemAvailable)
vmctl barrier available

vmctl barrier borrowed
vmctl put lender_mem_kib $((mem - $(meminfo MemAvailable)))
vmctl put lender_lut_slots "$(lut_slots)"
show_adapters
vmctl barrier returned
for n in $(seq "$count"); do
	smartioctl device unavailable "$(fdid_of "$n")"
	smartioctl device remove "$(fdid_of "$n")"
done
echo 0 >"/sys/bus/pci/devices/$pf/sriov_numvfs"
