# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Running the kernel's NTB selftest, ntb_test.sh, unmodified, on two NTB
# devices of this VM; sourced by node scripts (after testlib.sh).

# Through bash explicitly: the script says #!/bin/bash, and the image
# carries bash on PATH, not necessarily at /bin/bash.
ntb_test=$(command -v ntb_test.sh) || fail "ntb_test.sh not installed"

# ntb_test.sh expects the GNU and kmod tools; the image has busybox's. Put
# two small adapters in front of them:
#  - cmp: ntb_test.sh compares windows with "cmp -n 0x400000"; GNU cmp takes
#    the hexadecimal count, busybox cmp refuses it;
#  - modprobe -r: kmod removes the module and ignores dependencies still in
#    use (here "ntb", held by the hardware driver); busybox fails on them
#    after removing the module, and ntb_test.sh, under set -e, stops there.
shim=/tmp/ntb-test-bin
mkdir -p "$shim"
cat >"$shim/cmp" <<'SHIM'
#!/bin/sh
if [ "$1" = -n ]; then
	n=$(($2))
	shift 2
	exec busybox cmp -n "$n" "$@"
fi
exec busybox cmp "$@"
SHIM
cat >"$shim/modprobe" <<'SHIM'
#!/bin/sh
[ "$1" = -r ] || exec busybox modprobe "$@"
shift
busybox modprobe -r "$@" 2>/dev/null
for m in "$@"; do
	[ ! -e "/sys/module/$m" ] || { echo "modprobe: cannot remove $m" >&2; exit 1; }
done
SHIM
chmod +x "$shim/cmp" "$shim/modprobe"
PATH=$shim:$PATH

# ntb_test_devices: the two NTB devices, as "ntb_test.sh -l" lists them
# ("Local Devices:", one device a line, a blank line), on one line.
ntb_test_devices() {
	bash "$ntb_test" -l | sed -n '/^[0-9a-f]\{4\}:/p' | tr '\n' ' '
}

ntb_test_log=/tmp/ntb_test.log

# ntb_test_run DEV1 DEV2 ARGS...: runs ntb_test.sh with ARGS on the two
# devices, once, its output to the console as it runs (to show where a hang
# is) and to $ntb_test_log; fails the test on a non-zero exit status. Its
# doorbell and scratchpad tests read one port's register or memory right
# after the other port wrote it: the model performs such a write before
# the writing access completes (qemu/smartio-ntb.md, "Ordering"), so a
# mismatch is a fault, never a late write to wait out.
ntb_test_run() {
	d1=$1
	d2=$2
	shift 2
	{
		rc=0
		bash "$ntb_test" "$@" "$d1" "$d2" 2>&1 || rc=$?
		echo "$rc" >/tmp/ntb_test.status
	} | tee "$ntb_test_log"
	ntb_test_status=$(cat /tmp/ntb_test.status)
	[ "$ntb_test_status" -eq 0 ] || fail "ntb_test.sh exited with status $ntb_test_status"
}

# ntb_test_passed PASSED UNSUPPORTED: not every failure changes ntb_test.sh's
# exit status (ntb_perf reports a failed transfer in its statistics and the
# script still says "Passed", a subtest the driver does not support is
# skipped), so count what passed and what was unsupported, and see that
# ntb_perf copied data both ways.
ntb_test_passed() {
	passed=$(grep -c '^  Passed$' "$ntb_test_log") || true
	[ "$passed" -eq "$1" ] || fail "$passed of $1 ntb_test.sh subtests passed"
	unsupported=$(grep -c '^  Unsupported$' "$ntb_test_log") || true
	[ "$unsupported" -eq "$2" ] || fail "$unsupported subtests unsupported, expected $2"
	! grep -q 'error status' "$ntb_test_log" || fail "ntb_perf reported an error"
	[ "$(grep -c 'copied [1-9][0-9]* bytes' "$ntb_test_log")" -eq 2 ] ||
		fail "ntb_perf did not copy data both ways"
}
