#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its xHCI controller to node 1 and gets it back, returned and
# then reclaimed, with MSI off each time (it has no reset method, and after
# a reclaim node 1 turns nothing off); its own driver reads the tablet
# behind it as node 1 did.
set -eu
. ./usb.sh

load_lend
load_usb
wait_until 30 joined 1 || { show_adapters; fail "node 1 never joined"; }
bdf=$(xhci_bdf)
[ "$(driver_of "$bdf")" = xhci_hcd ] || fail "xhci_hcd did not bind to $bdf"
wait_until 30 tablet_of "$bdf" >/dev/null || fail "no tablet behind $bdf"
smartioctl device add "$bdf"
smartioctl device available 20000
[ "$(driver_of "$bdf")" = smartio-lender ] || fail "$bdf not held for lending"
vmctl barrier available
vmctl barrier returned
! msi_on "$bdf" || fail "MSI still on in $bdf after the return"
vmctl barrier off
vmctl barrier borrowed
smartioctl device reclaim 20000 || fail "reclaim 20000 failed"
# Node 1 let go as from a device that fell off its bus, turning nothing
# off, and the function has no reset method: the lender turned MSI off.
! msi_on "$bdf" || fail "MSI still on in $bdf after the reclaim"
vmctl barrier reclaimed
smartioctl device list | grep -q "^20000: .* available$" ||
	fail "not available again after the return"
smartioctl device unavailable 20000
[ "$(driver_of "$bdf")" = xhci_hcd ] || fail "xhci_hcd did not take $bdf back"
wait_until 30 tablet_of "$bdf" >/dev/null || fail "no tablet behind $bdf after unavailable"
sum=$(vmctl get sum)
mine=$(usb_sum "$(tablet_of "$bdf")")
echo "node$NODE: node 1 read the tablet as $sum, we read $mine"
[ "$mine" = "$sum" ] || fail "the tablet reads otherwise here"
! xhci_errors || fail "xHCI commands or transfers did not complete"
vmctl barrier checked
smartioctl device remove 20000
rmmod smartio_lend smartio_ntb smartio
ntb_unload
