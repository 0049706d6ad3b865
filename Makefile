# SPDX-License-Identifier: GPL-2.0
#
# smartio top-level build.
#
#   make            kernel modules (against KDIR) and userspace programs:
#                   what make install installs, nothing for tests
#   make check      install dependencies, build for the reference kernel and
#                   run every test: unit, style, VM, benchmark smoke runs;
#                   ends "N passed, N failed"
#   make check-debug  the fabric, lending, NTB, mdev and fuzzing tests on the debug kernel
#                   (KASAN, lockdep, kmemleak, DMA-API debug: scripts/
#                   debug-kernel, built once and cached); TESTS="DIR[@MODEL]
#                   ..." runs only those
#   make demo       install dependencies and boot the emulated 2-node cluster:
#                   node 2 lends its NVMe, its SATA controller and a DMA
#                   engine; node 1 borrows, uses and returns them, then
#                   passes the NVMe to QEMU through a mediated device
#   make bench      the benchmarks: bench/RESULTS.md and bench/plots/
#   make install    install modules (into KDIR's kernel) and programs, and
#                   smartio_mdev's udev rule for mdevctl (UDEVRULESDIR)
#
# SMARTIO_TEST_HOOKS=1 builds for tests: the test hooks linked into the
# modules (Kbuild's CONFIG_SMARTIO_TEST_HOOKS, see Kbuild), the test and
# benchmark modules (tests/kmod/, bench/kmod/) and the test programs
# (tests/tools/). vm-image, and so check, check-slow, demo and bench, and
# check-debug set it for the emulated cluster; make install refuses it.
#
# KDIR defaults to the running kernel's build tree and, where that is absent
# (containers, other distributions' CI), to the reference kernel: Debian 12's
# linux-headers-amd64, which is also what the emulated cluster boots.

RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
REF_KDIR = $(shell scripts/refkernel headers)
KDIR ?= $(if $(wildcard $(RUNNING_KDIR)/Makefile),$(RUNNING_KDIR),$(REF_KDIR))

BUILD := build
SMARTIO_TEST_HOOKS ?=
test_hooks := $(filter-out 0,$(SMARTIO_TEST_HOOKS))
PREFIX ?= /usr/local
DESTDIR ?=
# systemd-udevd reads /usr/local/lib/udev/rules.d as /usr/lib/udev/rules.d.
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d

CC ?= gcc
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror
override CPPFLAGS += -Iinclude -Iinclude/uapi -MMD -MP

CHECK_CFLAGS = $(shell pkg-config --cflags check)
CHECK_LIBS = $(shell pkg-config --libs check)

lib_src := $(wildcard lib/*.c)
smartioctl_src := $(wildcard tools/*.c)
unit_src := $(wildcard tests/unit/*.c)
# smartioctl's pure helpers, unit tested: no main(), no libmnl.
unit_tools_src := tools/args.c tools/errname.c tools/json.c

smartioctl_obj := $(patsubst %.c,$(BUILD)/%.o,$(smartioctl_src))
lib_obj := $(patsubst %.c,$(BUILD)/%.o,$(lib_src))
unit_obj := $(patsubst %.c,$(BUILD)/%.o,$(unit_src))
unit_tools_obj := $(patsubst %.c,$(BUILD)/%.o,$(unit_tools_src))

# Test programs go into the VM image with the programs (tests/vm/mkinitramfs);
# built only with SMARTIO_TEST_HOOKS.
genl_send_obj := $(patsubst %.c,$(BUILD)/%.o,tests/tools/genl-send.c \
	tools/nl.c tools/usage.c $(unit_tools_src))
nl_fuzz_obj := $(patsubst %.c,$(BUILD)/%.o,tests/tools/nl-fuzz.c \
	tests/tools/fuzz.c tools/nl.c tools/usage.c $(unit_tools_src))
dev_fuzz_obj := $(patsubst %.c,$(BUILD)/%.o,tests/tools/dev-fuzz.c \
	tests/tools/fuzz.c)
# The clients that drive a device with no kernel driver: through a mediated
# device (VFIO) and through QEMU's qtest protocol; nvme.c is their NVMe host.
vfio_obj := $(patsubst %.c,$(BUILD)/%.o,tests/tools/vfio-client.c \
	tests/tools/vfio.c tests/tools/vfio-edu.c tests/tools/vfio-nvme.c \
	tests/tools/nvme.c)
qtest_obj := $(patsubst %.c,$(BUILD)/%.o,tests/tools/qtest-client.c \
	tests/tools/qtest.c tests/tools/nvme.c)

test_programs := $(BUILD)/bin/smartio-genl-send $(BUILD)/bin/smartio-seg \
	$(BUILD)/bin/smartio-nl-fuzz $(BUILD)/bin/smartio-dev-fuzz \
	$(BUILD)/bin/smartio-vfio $(BUILD)/bin/smartio-qtest
programs := $(BUILD)/bin/smartioctl $(if $(test_hooks),$(test_programs))
unit := $(BUILD)/tests/unit/smartio-unit


.PHONY: all ntb-core modules programs unit deps check check-slow check-debug demo bench vm-image install clean

all: modules programs unit

# Distribution header packages ship no vmlinux, so module BTF cannot be
# generated against them; say so by turning it off rather than by a note on
# every build.
KBUILD_OPTS = M=$(CURDIR) $(if $(wildcard $(KDIR)/vmlinux),,CONFIG_DEBUG_INFO_BTF_MODULES=) \
	$(if $(test_hooks),CONFIG_SMARTIO_TEST_HOOKS=y)

# Debian's kernel has no NTB core: build it (and the upstream NTB clients)
# from its source package with our patches (ntb/patches/), and build our
# modules against its symbols and its patched <linux/ntb.h> (see Kbuild).
# build/ntb-core holds the directory, or "builtin" where KDIR has CONFIG_NTB.
NTB_CORE = $(shell cat $(BUILD)/ntb-core)
NTB_CORE_OPTS = $(if $(filter builtin,$(NTB_CORE)),,KBUILD_EXTRA_SYMBOLS=$(NTB_CORE)/Module.symvers SMARTIO_NTB_CORE=$(NTB_CORE))

ntb-core:
	@mkdir -p $(BUILD)
	scripts/build-ntb-core $(KDIR) >$(BUILD)/ntb-core.tmp
	@mv $(BUILD)/ntb-core.tmp $(BUILD)/ntb-core

modules: ntb-core
	$(MAKE) -C $(KDIR) $(KBUILD_OPTS) $(NTB_CORE_OPTS) modules

programs: $(programs)
unit: $(unit)

$(BUILD)/bin/smartioctl: $(smartioctl_obj) $(lib_obj)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lmnl

$(BUILD)/bin/smartio-genl-send: $(genl_send_obj) $(lib_obj)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lmnl

$(BUILD)/bin/smartio-seg: $(BUILD)/tests/tools/segment.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

$(BUILD)/bin/smartio-vfio: $(vfio_obj)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

$(BUILD)/bin/smartio-qtest: $(qtest_obj)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

$(BUILD)/bin/smartio-nl-fuzz: $(nl_fuzz_obj) $(lib_obj)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lmnl

$(BUILD)/bin/smartio-dev-fuzz: $(dev_fuzz_obj)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

$(BUILD)/tests/tools/%.o: CPPFLAGS += -Itools

$(unit): $(unit_obj) $(lib_obj) $(unit_tools_obj)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS)

$(unit_obj): override CFLAGS += $(CHECK_CFLAGS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

deps:
	@scripts/deps

# The emulated cluster boots the reference kernel, so check and demo build
# the modules for it whatever KDIR says, and runs a QEMU with the emulated
# NTB (build/qemu names it; built from Debian's source by scripts/build-qemu).
vm-image: deps
	$(MAKE) KDIR=$(REF_KDIR) SMARTIO_TEST_HOOKS=1 all
	scripts/build-qemu >$(BUILD)/qemu.tmp
	@mv $(BUILD)/qemu.tmp $(BUILD)/qemu
	tests/vm/mkinitramfs $(BUILD)/vm/base.cpio

check: vm-image
	@tests/check

# What make check leaves out for time: the VM tests' slow cases and models.
check-slow: vm-image
	@tests/check slow

# The VM tests on the debug kernel (scripts/debug-kernel). Our modules and
# the NTB core are built for it in a copy of the tree, build/debug/tree, as
# Kbuild writes next to the sources and the reference kernel's modules must
# stay as they are; its initramfs is build/debug/base.cpio, made the same
# way as vm-image's. tests/check debug runs the tests (TESTS: only these).
DEBUG_TREE := $(BUILD)/debug/tree
check-debug: deps
	@mkdir -p $(DEBUG_TREE)
	scripts/debug-kernel image >/dev/null
	scripts/build-qemu >$(BUILD)/qemu.tmp
	@mv $(BUILD)/qemu.tmp $(BUILD)/qemu
	git ls-files -z -co --exclude-standard | \
		tar -c --null -T - --ignore-failed-read | tar -x -C $(DEBUG_TREE)
	$(MAKE) -C $(DEBUG_TREE) KDIR=$$(scripts/debug-kernel headers) SMARTIO_TEST_HOOKS=1 \
		modules programs
	cp $(BUILD)/qemu $(DEBUG_TREE)/build/qemu
	$(DEBUG_TREE)/tests/vm/mkinitramfs $(BUILD)/debug/base.cpio $(CURDIR)/scripts/debug-kernel
	@SMARTIO_DEBUG_TESTS="$(TESTS)" tests/check debug

demo: vm-image
	tests/vm/run --console scripts/demo

# The benchmarks (not part of check, which runs each once, tiny): they
# rewrite bench/RESULTS.md and bench/plots/.
bench: vm-image
	bench/run

# Production modules only (see SMARTIO_TEST_HOOKS above), under DESTDIR
# too (as INSTALL_MOD_PATH); tests/check's install suite checks what lands.
ifneq ($(filter install,$(MAKECMDGOALS)),)
ifneq ($(test_hooks),)
$(error make install installs no test hooks or test modules: drop SMARTIO_TEST_HOOKS)
endif
endif
install: all
	$(MAKE) -C $(KDIR) $(KBUILD_OPTS) INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=extra \
		modules_install
	install -D -m 0755 $(BUILD)/bin/smartioctl $(DESTDIR)$(PREFIX)/sbin/smartioctl
	install -D -m 0644 man/smartioctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/smartioctl.8
	install -D -m 0644 man/smartio_mdev.4 $(DESTDIR)$(PREFIX)/share/man/man4/smartio_mdev.4
	install -D -m 0644 mdev/60-smartio-mdev.rules $(DESTDIR)$(UDEVRULESDIR)/60-smartio-mdev.rules

clean:
	$(MAKE) -C $(KDIR) $(KBUILD_OPTS) clean
	rm -rf $(BUILD)
