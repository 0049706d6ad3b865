#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: the nodes of one cluster. Node 1 is the hub of a star, an
# adapter cabled to each other node; the other nodes join one at a time,
# each lending its NVMe, and after the Kth has joined (K+1 nodes) node 1
# lists the cluster's devices and borrows the Kth lender's NVMe, keeping
# all it borrowed; then it reads a block of each and returns them
# (about.md). Prints "result:" lines; fails if a node does not join or a
# listing, borrow, read or return fails.
set -eu
# shellcheck source=../lib/result.sh
. /usr/local/lib/vmbench/result.sh
# shellcheck source=../../tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh
# shellcheck source=../lib/borrow.sh
. /usr/local/lib/vmbench/borrow.sh

leaves=$((NODES - 1))
# Every adapter of this node is node 1 (by their ports they would be 12
# and up): smartio_ntb loads first, with node_id; load_lend finds it loaded.
ids=1
for k in $(seq 2 "$leaves"); do
	ids=$ids,1
done
modprobe smartio_ntb node_id=$ids
load_lend
[ "$(grep -c "^adapter [0-9]* port [0-9]* node 1 " "$adapters")" = "$leaves" ] ||
	{ show_adapters; fail "not $leaves adapters, all node 1"; }
mem=$(meminfo MemAvailable) slab0=$(meminfo Slab)

join_ms=0 join_kib=0 borrow_kib=0
shadows=
for k in $(seq "$leaves"); do
	node=$((k + 1))
	fdid=$(printf '%x' $((node << 16)))
	vmctl barrier "join.$k"
	start=$(now_ns)
	wait_until 120 joined "$node" || { show_adapters; fail "node $node never joined"; }
	ms=$((($(now_ns) - start) / 1000000))
	join_ms=$((join_ms + ms))
	vmctl barrier "lent.$k"
	now=$(meminfo MemAvailable)
	join_kib=$((join_kib + mem - now))
	mem=$now

	start=$(now_ns)
	list=$(smartioctl device list) || fail "no listing with $node nodes"
	list_ms=$((($(now_ns) - start) / 1000000))
	if [ "$(echo "$list" | grep -c " node [0-9]* borrowed by 1 as ")" != $((k - 1)) ] ||
		! echo "$list" | grep -q "^$fdid: .* node $node available\$"; then
		echo "$list"
		fail "with $node nodes, not $((k - 1)) borrowed and $fdid available"
	fi

	start=$(now_ns)
	line=$(smartioctl borrow "$fdid") || fail "borrow $fdid failed with $node nodes"
	shadow=${line##* as }
	ms=$(ready_after "$start" "$shadow")
	shadows="$shadows $shadow"
	now=$(meminfo MemAvailable)
	borrow_kib=$((borrow_kib + mem - now))
	mem=$now
	echo "node$NODE: $node nodes: node $node joined, $(echo "$list" | wc -l) devices" \
		"listed in $list_ms ms, $fdid borrowed as $shadow in $ms ms"
	result scale-nodes/list-ms-at-"$node" "$list_ms" ms
	result scale-nodes/borrow-ms-at-"$node" "$ms" ms
done
show_adapters
slab1=$(meminfo Slab)

# shellcheck disable=SC2086 # one word each
read_each $shadows

result scale-nodes/nodes "$NODES" nodes
result scale-nodes/borrowed "$(echo "$shadows" | wc -w)" devices
result scale-nodes/join-ms-mean $((join_ms / leaves)) ms
result scale-nodes/mem-kib-per-node "$(ratio "$join_kib" "$leaves" 1)" KiB
result scale-nodes/mem-kib-per-borrow "$(ratio "$borrow_kib" "$leaves" 1)" KiB
result scale-nodes/slab-kib-per-node "$(ratio $((slab1 - slab0)) "$leaves" 1)" KiB
result scale-nodes/lut-slots "$(lut_slots)" slots

for k in $(seq "$leaves"); do
	smartioctl return "$(printf '%x' $(((k + 1) << 16)))" || fail "return from node $((k + 1)) failed"
done
vmctl barrier returned
