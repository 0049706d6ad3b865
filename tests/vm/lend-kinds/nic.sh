# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# lend-kinds' work for a NIC (CLASS nic, kinds.sh). Node 2 has two NICs
# cabled to each other (the qemu file; tests/vm/guest/nic.sh): the lent
# one, found by its PCI address (LENT_BDF), and its peer. Traffic is a
# ping and 4 MiB of random data each way, through busybox nc, compared by
# md5 (some 3,000 full-size frames each way: more than a turn of each
# NIC's rings).

# shellcheck source=../guest/ntb-clients.sh
. /usr/local/lib/vmtest/ntb-clients.sh
# shellcheck source=../guest/nic.sh
. /usr/local/lib/vmtest/nic.sh

# What each side sends the other, in MiB.
MIB=4

# nic_stats IFNAME BDF: the interface's counters and its function's
# interrupts, for a failure's report (busybox ip has no -s).
nic_stats() {
	stats=/sys/class/net/$1/statistics
	for c in tx_packets tx_errors tx_dropped rx_packets rx_errors rx_dropped; do
		printf '%s %s ' "$c" "$(cat "$stats/$c" 2>/dev/null)"
	done
	echo "; $2: $(irq_count "$2") interrupts"
}

# netif_up BDF IP WHAT: the interface of the function BDF (WHAT, in
# failures) is up as IP, its link up; prints its name.
netif_up() {
	wait_until 30 netif_of "$1" >/dev/null || kind_fail "no network interface on $3"
	ifname=$(netif_of "$1")
	ip link set "$ifname" up
	ip addr add "$2/24" dev "$ifname"
	wait_until 30 has_carrier "$ifname" || kind_fail "no carrier on $3 ($ifname)"
	echo "$ifname"
}

# ping_peer IP IFNAME BDF WHAT: 3 pings to IP from this node's initial
# namespace through IFNAME, the interface of BDF, all answered: over WHAT
# (in the failure).
ping_peer() {
	out=$(ping -c 3 -w 30 "$1" 2>&1) || true
	echo "$out" | tail -n 2
	echo "$out" | grep -q "3 packets received" || {
		nic_stats "$2" "$3"
		ip neigh show
		kind_fail "$1 does not answer pings over $4"
	}
}

# receive NS PORT FILE: in the background, a listener in namespace NS on
# PORT writes what it receives to FILE, ending when the sender is done or
# after 150 s; sets receiver (its pid). Its input, a FIFO it holds open
# itself, never ends: busybox nc closes the connection when its input does.
receive() {
	rm -f "$3" "$3.hold"
	mkfifo "$3.hold"
	in_ns "$1" timeout 150 nc -l -p "$2" <>"$3.hold" >"$3" &
	receiver=$!
	wait_until 10 listening "$1" "$2" || kind_fail "nc does not listen on port $2"
}

# send NS IP PORT FILE: sends FILE from namespace NS to IP:PORT, giving up
# after 120 s: before the receiver does, so that each side says what it saw.
send() {
	in_ns "$1" timeout 120 nc "$2" "$3" <"$4"
}

# received FILE: waits for the receiver; FILE, what it received, holds
# MIB MiB.
received() {
	wait "$receiver" || true
	[ "$(stat -c %s "$1")" = $((MIB << 20)) ]
}

# random_file FILE: MIB MiB of random data in FILE; prints their md5.
random_file() {
	dd if=/dev/urandom of="$1" bs=1M count=$MIB 2>/dev/null
	sum=$(md5sum <"$1")
	echo "${sum%% *}"
}

# file_sum FILE: md5 of FILE, if it is MIB MiB long.
file_sum() {
	[ "$(stat -c %s "$1")" = $((MIB << 20)) ] || { echo "$(stat -c %s "$1") bytes"; return 0; }
	sum=$(md5sum <"$1")
	echo "${sum%% *}"
}

# local_traffic NS_A IP_A NS_B IP_B PORT WHAT (node 2): MIB MiB from
# namespace NS_A to IP_B and back from NS_B to IP_A, over WHAT.
local_traffic() {
	sum=$(random_file /tmp/tx)
	receive "$3" "$5" /tmp/rx
	start=$(date +%s)
	send "$1" "$4" "$5" /tmp/tx || kind_fail "cannot send $MIB MiB to $4 in 120 s over $6"
	received /tmp/rx || kind_fail "$4 received $(stat -c %s /tmp/rx) bytes of $MIB MiB over $6"
	[ "$(file_sum /tmp/rx)" = "$sum" ] || kind_fail "$4 received other data than sent over $6"
	receive "$1" $(($5 + 1)) /tmp/rx
	send "$3" "$2" $(($5 + 1)) /tmp/tx || kind_fail "cannot send $MIB MiB to $2 in 120 s over $6"
	received /tmp/rx || kind_fail "$2 received $(stat -c %s /tmp/rx) bytes of $MIB MiB over $6"
	[ "$(file_sum /tmp/rx)" = "$sum" ] || kind_fail "$2 received other data than sent over $6"
	echo "node$NODE: $MIB MiB each way between $2 and $4 in $(($(date +%s) - start)) s, md5 $sum"
	rm /tmp/tx /tmp/rx
}

# nic_own BDF WHEN PORT (node 2, before lending and after the return): its
# own driver's interface on BDF pings the peer and exchanges MIB MiB each
# way with it (ports PORT and PORT+1); it is left down, without address.
nic_own() {
	what="$1 (node 2's own $DRIVER, $2)"
	ifname=$(netif_up "$1" $LENDER_IP "$what")
	ping_peer $PEER_IP "$ifname" "$1" "$what"
	local_traffic 1 $LENDER_IP "$peer_ns" $PEER_IP "$3" "$what"
	ip addr flush dev "$ifname"
	ip link set "$ifname" down
}

# nic_borrowed SHADOW (node 1): the borrowed NIC pings node 2's peer and
# exchanges MIB MiB each way with it (nic_serve is node 2's side).
nic_borrowed() {
	what="the borrowed $KIND ($1)"
	ifname=$(netif_up "$1" $BORROWER_IP "$what")
	echo "node$NODE: the borrowed $KIND is $ifname, $BORROWER_IP"
	ping_peer $PEER_IP "$ifname" "$1" "$what"
	sum=$(random_file /tmp/tx)
	step peer-listens
	start=$(date +%s)
	send 1 $PEER_IP 5001 /tmp/tx || {
		nic_stats "$ifname" "$1"
		kind_fail "cannot send $MIB MiB to the peer in 120 s over $what"
	}
	step peer-received
	got=$(vmctl get peer-received)
	echo "node$NODE: sent $MIB MiB in $(($(date +%s) - start)) s, md5 $sum; the peer received $got"
	[ "$got" = "$sum" ] || kind_fail "the peer received other data than sent over $what"
	receive 1 5002 /tmp/rx
	step node1-listens
	start=$(date +%s)
	received /tmp/rx || {
		nic_stats "$ifname" "$1"
		kind_fail "received $(stat -c %s /tmp/rx) bytes of $MIB MiB from the peer over $what"
	}
	got=$(file_sum /tmp/rx)
	sum=$(vmctl get peer-sent)
	echo "node$NODE: received $MIB MiB in $(($(date +%s) - start)) s, md5 $got; the peer sent $sum"
	[ "$got" = "$sum" ] || kind_fail "received other data than the peer sent over $what"
	rm /tmp/tx /tmp/rx
}

# nic_serve (node 2, while node 1 borrows): the peer's side of
# nic_borrowed.
nic_serve() {
	receive "$peer_ns" 5001 /tmp/rx
	step peer-listens
	received /tmp/rx ||
		kind_fail "the peer received $(stat -c %s /tmp/rx) bytes of $MIB MiB from node 1's borrowed $KIND"
	vmctl put peer-received "$(file_sum /tmp/rx)"
	step peer-received
	sum=$(random_file /tmp/tx)
	vmctl put peer-sent "$sum"
	step node1-listens
	send "$peer_ns" $BORROWER_IP 5002 /tmp/tx ||
		kind_fail "the peer cannot send $MIB MiB to node 1's borrowed $KIND in 120 s"
	rm /tmp/tx /tmp/rx
}
