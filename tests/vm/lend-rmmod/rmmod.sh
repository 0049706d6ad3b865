# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers of lend-rmmod: which node unloads its modules, in which order
# (by case), and unloading them so.
#
# A case is NODE-M1-M2-M3-M4-M5: the node that unloads (borrower: node 1,
# lender: node 2) and the order its five modules go in, by short name:
#   lend    smartio_lend      fabric  smartio_ntb     core  smartio
#   hw      the NTB's driver  ntb     ntb (the NTB core)
# (the NTB's driver: ntb_hw_smartio, or on the Switchtec models
# ntb_hw_switchtec, whose switchtec.ko, not an NTB module, stays loaded).
# The kernel refuses a module while another uses it, so whichever of the
# 120 orders a user tries them in, they go in one of the orders that
# respect NEEDS_GONE below: 7 on the lender, 4 on the borrower, where a
# process maps a segment and holds smartio_ntb until the adapter goes.
# test.conf lists these 11; each step here checks that every module whose
# users are still loaded is refused, so that any other order comes down
# to them.

# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

# shellcheck disable=SC2034 # the node scripts'
UNLOADER=${CASE%%-*}
case $NTB_MODEL in
switchtec*) HW_MODULE=ntb_hw_switchtec ;;
*) HW_MODULE=ntb_hw_smartio ;;
esac
[ "$UNLOADER" = borrower ] || [ "$UNLOADER" = lender ] ||
	fail "case $CASE: no node $UNLOADER"

module_named() {
	case $1 in
	lend) echo smartio_lend ;;
	fabric) echo smartio_ntb ;;
	core) echo smartio ;;
	hw) echo "$HW_MODULE" ;;
	ntb) echo ntb ;;
	*) fail "case $CASE: no module $1" ;;
	esac
}

ORDER=
for name in $(echo "${CASE#*-}" | tr - ' '); do
	ORDER="$ORDER $(module_named "$name")"
done
[ "$(echo "$ORDER" | wc -w)" = 5 ] || fail "case $CASE: not five modules"

# needs_gone MODULE: the modules that must be unloaded before MODULE can
# be: those that use it, and on the borrower the NTB's driver before
# smartio_ntb (the segment's process holds smartio_ntb until its adapter
# goes and it gets SIGBUS).
needs_gone() {
	case $1 in
	smartio) echo smartio_lend smartio_ntb ;;
	smartio_ntb)
		echo smartio_lend
		[ "$UNLOADER" != borrower ] || echo "$HW_MODULE"
		;;
	ntb) echo smartio_ntb "$HW_MODULE" ;;
	esac
}

loaded() {
	[ -e "/sys/module/$1" ]
}

# removable MODULE: every module it needs gone is gone.
removable() {
	for n in $(needs_gone "$1"); do
		! loaded "$n" || return 1
	done
}

# refused MODULE: rmmod MODULE is refused as in use, and changes nothing.
refused() {
	rc=0
	out=$(timeout 30 rmmod "$1" 2>&1) || rc=$?
	[ $rc != 0 ] || fail "rmmod $1 worked while $(needs_gone "$1" | tr '\n' ' ')still loaded"
	[ $rc != 124 ] || fail "a refused rmmod $1 took more than 30 s"
	# busybox's rmmod says EAGAIN; others say "in use".
	echo "$out" | grep -q "in use\|Resource temporarily unavailable" ||
		fail "rmmod $1: $out"
	loaded "$1" || fail "$1 gone after a refused rmmod"
}

# unload_in_order: unloads each module of ORDER in turn. Before each, every
# module still loaded that is not removable must be refused; each rmmod ends
# within 30 s, and so does every task (the hung-task detector fails the
# node on one blocked for 30 s).
unload_in_order() {
	echo 30 >/proc/sys/kernel/hung_task_timeout_secs ||
		fail "cannot shorten the hung-task timeout"
	for m in $ORDER; do
		removable "$m" || fail "case $CASE: $m before $(needs_gone "$m" | tr '\n' ' ')"
		for o in $ORDER; do
			if [ "$o" != "$m" ] && loaded "$o" && ! removable "$o"; then
				refused "$o"
				echo "node$NODE: rmmod $o: in use"
			fi
		done
		# The segment's process lets go of smartio_ntb as it dies of its
		# SIGBUS, soon after the NTB's driver went.
		[ "$m:$UNLOADER" != smartio_ntb:borrower ] ||
			wait_until 30 grep -qx 0 /sys/module/smartio_ntb/refcnt ||
			fail "smartio_ntb still held 30 s after the NTB's driver went"
		timeout 30 rmmod "$m" || fail "rmmod $m failed or took more than 30 s"
		echo "node$NODE: rmmod $m"
	done
}

# lent_is_available BDF: this node lists its NVMe BDF, available, as 20000.
lent_is_available() {
	[ "$(smartioctl device list)" = "20000: $1 [1b36:0010] class 010802 node 2 available" ]
}
