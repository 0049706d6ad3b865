# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for a nested guest: a guest that a test node runs under its own
# KVM, with QEMU as users run it (mdev-guest: a borrowed device passed to
# it with -device vfio-pci,sysfsdev=...). The nodes' CPU (TCG's -cpu max)
# is an AMD one with SVM and nested paging, so kvm_amd loads in a node and
# its guest runs at about the node's own speed, where TCG inside TCG
# would be tens of times slower. The guest boots the node's own kernel
# (the image carries it) with qboot, which probes no device, and an
# initramfs of busybox, the node's modules and the test's script.

# shellcheck source=tests/vm/guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

nested_kernel=/usr/local/share/vmtest/vmlinuz
# The guest's RAM, in MiB. Each device passed to it maps all of it, and
# its firmware's 64 KiB, into the node's IOVA window (smartio_ntb
# iova_window_mb, 256 MiB by default): 112 MiB fit twice, and suffice for
# the reference kernel, but the debug kernel's KASAN needs more
# (nested_lend_load).
nested_mib=112

# nested_image SCRIPT OUT MODULE...: writes to OUT the nested guest's
# initramfs, whose init (tests/vm/guest/nested-init) runs SCRIPT with
# sh -eu, with the node's MODULEs and what they depend on, for modprobe
# (not every module: the guest's RAM is small, see nested_run), and the
# helpers of tests/vm/guest/nested-guest.sh as /lib/nested-guest.sh.
nested_image() {
	script=$1 out=$2
	shift 2
	stage=/tmp/nested-stage
	moddir=/lib/modules/$(uname -r)
	rm -rf "$stage"
	mkdir -p "$stage/bin" "$stage$moddir"
	# Links, which cpio -L archives as the files they name.
	ln -s /bin/busybox "$stage/bin/busybox"
	ln -s /usr/local/lib/vmtest/nested-init "$stage/init"
	ln -s "$(readlink -f "$script")" "$stage/nested.sh"
	ln -s /usr/local/lib/vmtest/nested-guest.sh "$stage/lib/nested-guest.sh"
	for f in "$moddir"/modules.*; do
		ln -s "$f" "$stage$f"
	done
	for path in $(nested_modules "$moddir/modules.dep" "$@"); do
		mkdir -p "$stage$moddir/${path%/*}"
		ln -s "$moddir/$path" "$stage$moddir/$path"
	done
	(cd "$stage" && find . | cpio -o -H newc -L 2>/dev/null) >"$out" ||
		fail "cannot make the nested guest's initramfs"
	rm -rf "$stage"
}

# nested_modules MODULES.DEP MODULE...: the paths of the MODULEs and of
# every module they depend on, as MODULES.DEP lists them.
nested_modules() {
	dep=$1
	shift
	awk -v want="$*" '
		{ path = $1; sub(/:$/, "", path); name = path
		  sub(/.*\//, "", name); sub(/\.ko.*$/, "", name); gsub(/-/, "_", name)
		  line[name] = $0; of[name] = path }
		function add(name,   n, i, f, d) {
			gsub(/-/, "_", name)
			if (name in done) return
			if (!(name in of)) { print "no module " name > "/dev/stderr"; exit 1 }
			done[name] = 1; print of[name]
			n = split(line[name], f, " ")
			for (i = 2; i <= n; i++) {
				d = f[i]; sub(/.*\//, "", d); sub(/\.ko.*$/, "", d); add(d)
			}
		}
		END { n = split(want, w, " "); for (i = 1; i <= n; i++) add(w[i]) }
	' "$dep" || fail "the nested guest's modules not found: $*"
}

# nested_lend_load DEVICES: smartio's modules loaded (lend.sh's load_lend)
# with an IOVA window (smartio_ntb iova_window_mb) of 512 MiB for each of
# the nested guest's DEVICES, and the guest given 384 MiB, which any of
# the nodes' kernels boots in.
nested_lend_load() {
	load_lend iova_window_mb=$(($1 * 512))
	nested_mib=384
}

# nested_run IMAGE CONSOLE [QEMU-ARG...]: boots the nested guest with the
# initramfs IMAGE under KVM, its console kept in the file CONSOLE and
# copied to this node's, each line after "nested| " (a kernel fault there
# fails the node as one here does). QEMU's own messages come here as they
# are. Fails unless the guest's script ended with status 0. The guest has
# nested_mib MiB (see nested_lend_load). Its CPU is qemu64, not the host's:
# the nodes' emulated CPU reports XSAVE state sizes that KVM passes on
# inconsistent, and a guest kernel with -cpu host warns at boot ("XSAVE
# consistency problem"); qemu64 has no XSAVE.
nested_run() {
	image=$1 console=$2
	shift 2
	modprobe kvm_amd || fail "kvm_amd does not load"
	[ -c /dev/kvm ] || fail "no /dev/kvm with kvm_amd loaded"
	status=0
	timeout 900 qemu-system-x86_64 -machine q35 -accel kvm -cpu qemu64 \
		-smp 1 -m "${nested_mib}M" -nodefaults -display none -no-reboot \
		-bios qboot.rom -kernel "$nested_kernel" -initrd "$image" \
		-append "console=ttyS0 panic=-1 loglevel=6" \
		-serial "file:$console" "$@" || status=$?
	tr -d '\r' <"$console" | sed 's/^/nested| /'
	[ "$status" = 0 ] || fail "the nested guest's QEMU ended with status $status"
	grep -q "^nested: exit 0 " "$console" ||
		fail "the nested guest's script failed"
}

# nested_said CONSOLE PATTERN: the line of the nested guest's console
# CONSOLE that matches the extended regular expression PATTERN, without
# its carriage return; fails when none does.
nested_said() {
	tr -d '\r' <"$1" | grep -m1 -E "$2"
}
