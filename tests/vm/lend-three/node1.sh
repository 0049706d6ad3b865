#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Node 2 has two adapters, one cabled to node 1, one to node 3, both with
# node id 2 (node_id=2,2), the id its fdids carry; it lends its NVMe. While
# node 1 borrows it, node 3's try changes nothing here: the NVMe stays with
# the stub driver and listed borrowed by node 1, and the lender was never
# asked (node 3's kernel refused it from the listing). Then nodes 1 and 3
# race for it: each round the list names the winner, and the NVMe is
# available again once the winner returns it. The rounds stop once the
# loser got past its listing and the lender itself refused it (EBUSY from
# the borrow handler, counted in <debugfs>/smartio/served), about one
# round in ten, or after 20 rounds (a second each); the loser's message is
# the same either way.
set -eu
. ./three.sh

# Rounds of the race at most; they stop once the lender has refused.
races=20

# Both adapters node 2 (by its port, 0, the second would be node 1):
# smartio_ntb loads first, with node_id; load_lend finds it loaded.
modprobe smartio_ntb node_id=2,2
load_lend
{ own_node 0 2 && own_node 1 2; } || { show_adapters; fail "adapters are not both node 2"; }
wait_until 60 joined 1 || { show_adapters; fail "node 1 never joined"; }
wait_until 60 joined 3 || { show_adapters; fail "node 3 never joined"; }
show_adapters
bdf=$(nvme_bdf)
smartioctl device add "$bdf"
smartioctl device available $fdid
vmctl barrier available

listed() {
	lent_listed $fdid "$bdf" "$1"
}

vmctl barrier borrowed
listed "borrowed by 1"
vmctl barrier refused
listed "borrowed by 1"
[ "$(driver_of "$bdf")" = smartio-lender ] || fail "driver $(driver_of "$bdf") took the NVMe"
calls=$(served $op_borrow)
if [ "$calls" != 1 ] || [ "$(served $op_borrow 0)" != 1 ]; then
	cat $served_file
	fail "the lender was asked $calls times, not once (node 1's)"
fi
vmctl barrier checked
vmctl barrier returned
listed available

round=1
refusals=0
while :; do
	vmctl barrier "race.$round"
	vmctl barrier "raced.$round"
	winner=$(race_winner $round)
	listed "borrowed by $(node_of "$winner")"
	refusals=$(served $op_borrow -16)
	if [ "$refusals" -gt 0 ]; then
		echo "node$NODE: race $round: node $(node_of "$winner") won, the lender refused the other"
		more=no
	else
		echo "node$NODE: race $round: node $(node_of "$winner") won, the other's kernel refused from the listing"
		more=yes
		[ $round -lt $races ] || more=no
	fi
	vmctl put "more.$round" $more
	vmctl barrier "listed.$round"
	vmctl barrier "returned.$round"
	listed available
	[ $more = yes ] || break
	round=$((round + 1))
done
[ "$(served $op_borrow 0)" = $((round + 1)) ] ||
	{ cat $served_file; fail "not one lent per round"; }
echo "node$NODE: $round race(s), $refusals refused by the lender"
vmctl barrier finished

smartioctl device unavailable $fdid
smartioctl device remove $fdid
rmmod smartio_lend smartio_ntb smartio
ntb_unload
