# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers of lend-rmmod: which node unloads its modules, in which order
# (by case), and unloading them so.

# shellcheck source=../lend-devices/lend.sh
. ./lend.sh

# The case names the node that unloads (borrower: node 1, lender: node 2)
# and the order it tries its modules in; ORDER is that order.
case $CASE in
*-hw-first) ORDER="ntb_hw_smartio smartio_lend smartio_ntb smartio ntb" ;;
*-lend-first) ORDER="smartio_lend ntb_hw_smartio smartio_ntb ntb smartio" ;;
*-ntb-first) ORDER="smartio_lend smartio_ntb smartio ntb_hw_smartio ntb" ;;
*-reverse) ORDER="ntb smartio smartio_ntb smartio_lend ntb_hw_smartio" ;;
*) fail "no case $CASE" ;;
esac
# shellcheck disable=SC2034 # the node scripts'
UNLOADER=${CASE%%-*}

loaded() {
	[ -e "/sys/module/$1" ]
}

# unload_in_order: tries to unload each module of ORDER in turn; one in
# use must be refused (EAGAIN) and is tried again in the next pass,
# until all are gone. Each rmmod ends within 30 s, and so does every task
# (the hung-task detector fails the node on one blocked for 30 s).
unload_in_order() {
	echo 30 >/proc/sys/kernel/hung_task_timeout_secs ||
		fail "cannot shorten the hung-task timeout"
	left=$ORDER
	pass=0
	while [ -n "$left" ]; do
		pass=$((pass + 1))
		[ $pass -le 10 ] || fail "still loaded after 10 passes:$left"
		again=
		for m in $left; do
			loaded "$m" || continue
			rc=0
			out=$(timeout 30 rmmod "$m" 2>&1) || rc=$?
			if [ $rc = 0 ]; then
				echo "node$NODE: rmmod $m"
				continue
			fi
			[ $rc != 124 ] || fail "rmmod $m took more than 30 s"
			# Refused: EAGAIN (busybox's rmmod says so), or in use.
			echo "$out" | grep -q "in use\|Resource temporarily unavailable" ||
				fail "rmmod $m: $out"
			echo "node$NODE: rmmod $m: in use"
			again="$again $m"
		done
		left=$again
		[ -z "$left" ] || sleep 1
	done
}

# lent_is_available BDF: this node lists its NVMe BDF, available, as 20000.
lent_is_available() {
	[ "$(smartioctl device list)" = "20000: $1 [1b36:0010] class 010802 node 2 available" ]
}
