#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 1 borrows node 2's xHCI controller, which has plain MSI and no
# MSI-X: the stock xhci_hcd binds to the shadow device with one MSI vector,
# whose message Linux writes into config space (the shadow forwards it to
# the lender, which writes it to the function). xHCI signals every command
# and transfer completion by an interrupt (there is no polling), so the
# USB tablet behind it enumerating proves that the interrupt arrives; it is
# configured again to count more. Its descriptors read the same here as on
# node 2 after the return. Borrowed again, node 2 reclaims it.
set -eu
. ./usb.sh

borrower_ntb_identity
load_lend
load_usb
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
vmctl barrier available

shadow=$(borrow_bound 20000 xhci_hcd)
wait_until 30 tablet_of "$shadow" >/dev/null || fail "no tablet behind $shadow"
tablet=$(tablet_of "$shadow")
echo "node$NODE: $(cat "$tablet/product") at ${tablet##*/} behind $shadow"

# One vector, plain MSI, through the shadow's MSI domain.
msi=/sys/bus/pci/devices/$shadow/msi_irqs
irq=$(ls "$msi")
[ "$(echo "$irq" | wc -l)" = 1 ] || fail "more than one vector: $irq"
[ "$(cat "$msi/$irq")" = msi ] || fail "irq $irq is not MSI: $(cat "$msi/$irq")"
interrupts() {
	grep "^ *$irq:" /proc/interrupts
}
# irq_count: how often the vector fired, on all CPUs.
irq_count() {
	interrupts | awk '{ n = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; print n }'
}
interrupts | grep -q 'smartio-MSI' || fail "irq $irq is not the shadow's: $(interrupts)"
echo "node$NODE: $(interrupts | tr -s ' ')"
before=$(irq_count)
sum=$(usb_sum "$tablet")

# Configured again, three times: more control transfers, each completion
# an interrupt.
for i in 1 2 3; do
	echo 0 >"$tablet/authorized"
	echo 1 >"$tablet/authorized"
	wait_until 30 tablet_of "$shadow" >/dev/null || fail "tablet not configured again ($i)"
done
after=$(irq_count)
echo "node$NODE: $(interrupts | tr -s ' ')"
[ "$after" -gt "$before" ] ||
	fail "irq $irq did not count while the tablet was configured again ($before, then $after)"
[ "$(usb_sum "$tablet")" = "$sum" ] || fail "the tablet reads otherwise the second time"
! xhci_errors || fail "xHCI commands or transfers did not complete"

smartioctl return 20000 || fail "return 20000 failed"
not_present "$shadow" || fail "shadow device still there"
[ ! -e "$tablet" ] || fail "tablet still there"
vmctl put sum "$sum"
vmctl barrier returned
vmctl barrier off

# Borrowed again, and reclaimed: the shadow goes as a surprise removal.
shadow=$(borrow_bound 20000 xhci_hcd)
wait_until 30 tablet_of "$shadow" >/dev/null || fail "no tablet behind $shadow"
vmctl barrier borrowed
vmctl barrier reclaimed
wait_until 30 not_present "$shadow" || fail "shadow device still there after the reclaim"
vmctl barrier checked
rmmod smartio_lend smartio_ntb smartio
ntb_unload
