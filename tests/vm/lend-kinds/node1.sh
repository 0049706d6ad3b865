#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 lends its device of the case's kind (kinds.sh) to node 1, after
# its own driver used it (so a failure later is lending's, not the rig's);
# for a NIC it keeps the peer NIC node 1 talks to. Once node 1 has
# returned it, node 2's own driver takes it back and uses it again: a
# storage controller's disk holds exactly what node 1 wrote, a NIC talks
# with the peer again, on interrupts of the same kind.
set -eu
. ./kinds.sh
. ./storage.sh
. ./nic.sh

kind_ready 1
bdf=$(lent_function)
wait_until 30 bound "$bdf" || kind_fail "node 2's own $DRIVER does not drive $bdf ($(driver_of "$bdf"))"
case $CLASS in
storage) storage_own "$bdf" ;;
nic)
	peer_up
	nic_own "$bdf" "before lending" 5003
	;;
esac
irqs_taken "$bdf" "node 2's own $DRIVER, before lending"

fdid=$(lend "$bdf")
vmctl put fdid "$fdid"
step available
case $CLASS:$REFUSED in
nic:) nic_serve ;;
esac
step returned

smartioctl device list | grep -q "^$fdid: .* available$" ||
	kind_fail "$fdid is not available again after its return"
bounded 60 "smartioctl device unavailable $fdid" smartioctl device unavailable "$fdid" ||
	kind_fail "cannot make $fdid unavailable"
wait_until 30 bound "$bdf" || kind_fail "$DRIVER did not take $bdf back ($(driver_of "$bdf"))"
case $CLASS in
storage) storage_returned "$bdf" ;;
nic) nic_own "$bdf" "after the return" 5005 ;;
esac
irqs_taken "$bdf" "node 2's own $DRIVER, after the return"
step checked
smartioctl device remove "$fdid"
rmmod smartio_lend smartio_ntb smartio
ntb_unload
