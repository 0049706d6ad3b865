#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What a user without CAP_NET_ADMIN (nobody) can ask of node 2 from here,
# counted in the messages this node sends it (smartio_ntb's debugfs): a
# ping is refused (EPERM); device list and show are answered from one
# listing of the cluster, made by one of them at a time and at most
# device_cache_ms old (netlink/README.md). With device_cache_ms long, 30
# listings and shows by three concurrent users cost node 2 exactly one
# listing's round trips, and show a change on node 2 only once a new
# listing is made (device_cache_ms 0); root is answered by node 2 every
# time. With the default, root borrows, uses and returns the NVMe while
# two users list in a loop.
set -eu
# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

cache_ms=/sys/module/smartio/parameters/device_cache_ms

# sent: messages this node has sent to node 2.
sent() {
	sed -n 's/^    messages sent \([0-9]*\) received .*$/\1/p' "$adapters"
}

# cost COMMAND...: messages COMMAND sends to node 2 (nothing else talks to
# it meanwhile); COMMAND's output goes to /tmp/out.
cost() {
	before=$(sent)
	"$@" >/tmp/out || fail "$* failed"
	echo $(($(sent) - before))
}

# nobody_lists N OUT: N listings and shows as nobody, each checked against
# the root listing in /tmp/root; exits 1 at the first that differs.
nobody_lists() {
	i=0
	while [ $i -lt "$1" ]; do
		as_nobody smartioctl device list >"$2" 2>&1 && cmp -s "$2" /tmp/root || exit 1
		as_nobody smartioctl device show 20000 >"$2" 2>&1 && cmp -s "$2" /tmp/root || exit 1
		i=$((i + 1))
	done
}

load_lend
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }
[ "$(cat $cache_ms)" = 1000 ] || fail "device_cache_ms is $(cat $cache_ms), not 1000"
vmctl barrier available

# Ping: root only.
expect_eperm smartioctl node ping 2 count 10
smartioctl node ping 2 count 10 >/dev/null || fail "root cannot ping"

# A listing for root asks node 2 every time: what one listing costs.
echo 600000 >$cache_ms
listing=$(cost smartioctl device list)
cp /tmp/out /tmp/root
grep -qx "20000: .* node 2 available" /tmp/root || fail "node 2's NVMe not listed available"
[ "$listing" -gt 0 ] || fail "a listing sent node 2 nothing"
[ "$(cost smartioctl device list)" = "$listing" ] || fail "a second root listing did not ask node 2"
echo "node$NODE: a listing costs $listing messages to node 2"

# Three users at once, 10 lists and 10 shows each: one listing in all.
before=$(sent)
for u in 1 2 3; do
	nobody_lists 10 "/tmp/nobody.$u" &
	eval "pid$u=\$!"
done
for u in 1 2 3; do
	eval "wait \$pid$u" || { cat "/tmp/nobody.$u"; fail "user $u was told other than root"; }
done
spent=$(($(sent) - before))
echo "node$NODE: 60 unprivileged lists and shows cost $spent messages"
[ "$spent" = "$listing" ] || fail "they cost $spent messages, not one listing's $listing"
vmctl barrier listed

# A change on node 2: root sees it at once, nobody once a new listing is
# made.
vmctl barrier unavailable
[ "$(cost smartioctl device list)" = "$listing" ] || fail "root's listing did not ask node 2"
grep -qx "20000: .* node 2 unavailable" /tmp/out || fail "root: not listed unavailable"
[ "$(cost as_nobody smartioctl device list)" = 0 ] || fail "nobody's listing asked node 2"
cmp -s /tmp/out /tmp/root || fail "nobody's listing is not the one made before"
echo 0 >$cache_ms
[ "$(cost as_nobody smartioctl device list)" = "$listing" ] ||
	fail "with device_cache_ms 0, nobody's listing did not ask node 2"
grep -qx "20000: .* node 2 unavailable" /tmp/out || fail "nobody: not listed unavailable"
vmctl barrier stale

# The default: root borrows while two users list in a loop, until it is done.
echo 1000 >$cache_ms
vmctl barrier available-again
smartioctl device list >/tmp/root
rm -f /tmp/stop
for u in 1 2; do
	(
		n=0
		while [ ! -e /tmp/stop ]; do
			as_nobody smartioctl device list >"/tmp/loop.$u" 2>&1 || exit 1
			grep -q "^20000: " "/tmp/loop.$u" || exit 1
			n=$((n + 1))
		done
		echo $n >"/tmp/count.$u"
	) &
	eval "pid$u=\$!"
done
borrow_nvme 20000
write_random "$dev" 4 >/dev/null
smartioctl return 20000 || fail "return 20000 failed"
touch /tmp/stop
for u in 1 2; do
	eval "wait \$pid$u" || { cat "/tmp/loop.$u"; fail "user $u's listing failed"; }
	echo "node$NODE: user $u listed $(cat "/tmp/count.$u") times meanwhile"
	[ "$(cat "/tmp/count.$u")" -gt 0 ] || fail "user $u never listed"
done
vmctl barrier finished
rmmod smartio_lend smartio_ntb smartio
ntb_unload
