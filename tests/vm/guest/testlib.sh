# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for VM test scripts, in every node's image (tests/vm/mkinitramfs
# installs tests/vm/guest/*.sh in /usr/local/lib/vmtest/: this and the
# helpers more than one test shares). Source it with
#
#	# shellcheck source=../guest/testlib.sh
#	. /usr/local/lib/vmtest/testlib.sh
#
# (from a benchmark, source=../../tests/vm/guest/testlib.sh). Helpers here
# that source each other name the file from the top of the tree
# (source=tests/vm/guest/NAME.sh), which shellcheck, run there by
# tests/check, finds whatever directory the script it checks is in.

# fail MESSAGE: the script's one clear failure line, and its end.
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# The NTB model the test runs under (NTB_MODEL, from tests/vm/run; models
# in tests/vm/ntb-models) decides the NTB's hardware driver: NTB_DRIVER,
# the PCI driver bound to each NTB port (for /sys/bus/pci/drivers/
# $NTB_DRIVER/bind and unbind), and NTB_VENDOR and NTB_DEVICE, the ports'
# PCI ids (see ntb_ports). NTB_WINDOWS is the kind of window smartio_ntb
# maps remote memory through on it: "lut" (outbound, translated by the
# sender) or "direct" (inbound, translated by the receiver when asked).
# NTB_LINK_DOWN matches the hardware driver's kernel message for a link
# that went down. A new model: a case here, in ntb_load and in ntb_unload.
NTB_MODEL=${NTB_MODEL:-lut}
case $NTB_MODEL in
lut | direct)
	NTB_DRIVER=ntb_hw_smartio
	NTB_VENDOR=0x1234
	NTB_DEVICE=0x4e54
	NTB_WINDOWS=$NTB_MODEL
	NTB_LINK_DOWN='ntb_hw_smartio.*: link down$'
	;;
switchtec | switchtec-patched)
	# The emulated Switchtec: switchtec.ko binds the PCI function,
	# ntb_hw_switchtec.ko (upstream's, or with ntb/patches/) makes it an
	# NTB device.
	NTB_DRIVER=switchtec
	NTB_VENDOR=0x11f8
	NTB_DEVICE=0x8532
	NTB_WINDOWS=direct
	NTB_LINK_DOWN='switchtec[0-9]*: ntb link down$'
	;;
*) fail "testlib.sh: no NTB model $NTB_MODEL" ;;
esac
export NTB_MODEL NTB_DRIVER NTB_VENDOR NTB_DEVICE NTB_WINDOWS NTB_LINK_DOWN

# ntb_patched MODULE: MODULE is to load with ntb/patches/ applied: the
# image has it unmodified in the module tree and patched aside
# (tests/vm/mkinitramfs); the patched one takes its place.
ntb_patched() {
	cp "/usr/local/lib/vmtest/ntb-patched/$1.ko" \
		"/lib/modules/$(uname -r)/extra/ntb-core/$1.ko"
}

# module_live MODULE: MODULE is loaded and its init has returned.
module_live() {
	[ "$(cat "/sys/module/$1/initstate" 2>/dev/null)" = live ]
}

# ntb_load [PARAM=VALUE...]: loads the NTB model's hardware driver, with
# these module parameters besides the model's own.
# shellcheck disable=SC2120 # the parameters are optional
ntb_load() {
	case $NTB_MODEL in
	lut) modprobe ntb_hw_smartio use_lut_mws=1 "$@" ;;
	direct) modprobe ntb_hw_smartio use_lut_mws=0 "$@" ;;
	switchtec | switchtec-patched)
		# switchtec.ko's probe loads ntb_hw_switchtec itself, by name,
		# without parameters and without waiting: the parameters go in
		# modprobe's configuration, and a modprobe that finds the module
		# loading returns before its init (which adds the NTB devices)
		# has run, so wait for that.
		opts=$*
		if [ "$NTB_MODEL" = switchtec-patched ]; then
			# Outbound windows as large as the BARs (the emulated
			# Switchtec's BAR 4 is 1 GiB), not max_mw_size's 2 MiB:
			# the peer opens its 256 MiB IOVA window (or all of its
			# RAM) to us through window 1. Window 0 shares BAR 2 with
			# the LUT windows, and the driver keeps it as small as
			# they are (2 MiB with 32): interrupts.
			ntb_patched ntb_hw_switchtec || return 1
			opts="max_mw_size=0x40000000 $opts"
		fi
		mkdir -p /etc/modprobe.d &&
			echo "options ntb_hw_switchtec $opts" >/etc/modprobe.d/ntb-model.conf &&
			modprobe switchtec && modprobe ntb_hw_switchtec &&
			wait_until 60 module_live ntb_hw_switchtec
		;;
	esac
}

# ntb_unload: unloads the NTB model's hardware driver (its clients first:
# smartio_ntb, ntb_transport...).
ntb_unload() {
	case $NTB_MODEL in
	switchtec | switchtec-patched) rmmod ntb_hw_switchtec switchtec ;;
	*) rmmod "$NTB_DRIVER" ;;
	esac
}

# phase_begin NAME, phase_end NAME: the script is in phase NAME between
# the two, as the kernel log shows (tests/vm/run): an allowance of
# test.conf written allow.N@NAME holds for faults logged in it alone.
phase_begin() {
	echo "<6>vmtest: phase $1 begins" >/dev/kmsg
}

phase_end() {
	echo "<6>vmtest: phase $1 ends" >/dev/kmsg
}

# wait_until SECONDS COMMAND...: polls COMMAND every 0.2 s; fails when it
# has not succeeded in time. COMMAND runs anew at each try, but not what
# the shell expanded in its arguments: "wait_until 30 outputs 0 iova_pages"
# waits, "wait_until 30 test "$(iova_pages)" = 0" compares the one output
# taken before the first try, over and over.
wait_until() {
	limit=$(($1 * 5))
	shift
	while ! "$@"; do
		limit=$((limit - 1))
		[ $limit -gt 0 ] || return 1
		sleep 0.2
	done
}

# outputs VALUE CMD [ARG...]: CMD prints VALUE (a condition for wait_until).
outputs() {
	want=$1
	shift
	[ "$("$@")" = "$want" ]
}

# pci_devices VENDOR DEVICE: the sysfs directories of matching PCI functions,
# one per line, in bus order.
pci_devices() {
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = "$1" ] &&
			[ "$(cat "$d/device")" = "$2" ] && echo "$d"
	done
	return 0
}

# ntb_ports: the PCI names of this node's NTB ports (functions of the
# model's NTB), one per line, in bus order.
ntb_ports() {
	for d in $(pci_devices "$NTB_VENDOR" "$NTB_DEVICE"); do
		basename "$d"
	done
}

# edu_test_file BDF FILE: the debugfs FILE (copy, p2p, stray) through which the
# smartio_edu_test driver has the edu function BDF move data; BDF "first"
# names this node's first edu.
edu_test_file() {
	bdf=$1
	if [ "$bdf" = first ]; then
		bdf=$(pci_devices 0x1234 0x11e8 | head -n 1)
		bdf=${bdf##*/}
	fi
	echo "/sys/kernel/debug/smartio_edu_test/$bdf/$2"
}

# as_nobody COMMAND...: COMMAND as an unprivileged user (nobody), through
# sh -c, so that tests can check what only root may do.
as_nobody() {
	grep -q '^nobody:' /etc/passwd 2>/dev/null ||
		echo "nobody:x:65534:65534:nobody:/:/bin/sh" >>/etc/passwd
	su -s /bin/sh nobody -c "$*"
}
