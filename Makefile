# cet-lts: Intel CET user shadow stacks for Linux 6.1 LTS.
# See README.md.  Everything generated lands in build/.

SHELL := /bin/bash
BUILD := $(CURDIR)/build
S := $(CURDIR)/scripts

# Knobs (see README.md)
# make run's machine (make bench: Bochs, unless EMU is given).
EMU ?= qemu-cet
PROG ?=
# make run: 1 or 2 runs one of its two demos (default both).
DEMO ?=
ARGS ?=
EXTRA ?=
BOOT_TIMEOUT ?= 300
# make check: per-patch builds none (default, CI), quick or full.
BISECT ?= none
# make test CONFIG=debug: the whole suite on the debug kernel.
CONFIG ?= cet
SEED ?= 1
# make bench: samples per operation (the median is reported).
REPS ?= 11
# make bench: boots of each kernel (the median over them is reported).
BOOTS ?= 3
# make stress KASAN=1: on the debug kernel with KASAN (slow, not in make test).
KASAN ?=
# make kself-runs: runs, machine, programs (none: the whole comparison).
RUNS ?= 10
MACHINE ?= qemu
PROGS ?=
export EMU PROG DEMO ARGS BOOT_TIMEOUT BISECT CONFIG SEED KASAN REPS BOOTS

.PHONY: all deps tree export qemu kernel kernel-off kernel-debug kernel-kasan emulator selftests \
	mainline initramfs reference base kselftests libc run test stress bench check release-check \
	distro-build kself-runs \
	clean distclean help

all: test

help:
	@echo "make run | make test  (see README.md)"
	@echo "other targets: deps tree export kernel kernel-off kernel-debug emulator"
	@echo "               selftests mainline initramfs reference base kselftests libc"
	@echo "               stress bench check release-check distro-build kself-runs"
	@echo "               clean distclean"

deps:
	@$(S)/deps.sh

tree: deps
	@$(S)/tree.sh

export:
	@$(S)/export.sh

kernel: tree
	@$(S)/kernel.sh cet

# The series with CONFIG_X86_USER_SHADOW_STACK=n (make release-check,
# make bench).
kernel-off: tree
	@$(S)/kernel.sh cet-off

# The CET kernel with lockdep, DEBUG_VM, kmemleak, fault injection
# (configs/debug.config): make stress runs on it.
kernel-debug: tree
	@$(S)/kernel.sh debug

# The debug kernel with KASAN (make stress KASAN=1).
kernel-kasan: tree
	@$(S)/kernel.sh kasan

emulator: deps
	@$(S)/emulator.sh

# QEMU 10.0 (Debian 13) with our TCG CET patches (emulator/qemu):
# build/qemu-cet, booted by EMU=qemu-cet.
qemu: deps
	@$(S)/qemu.sh

selftests: tree
	@$(S)/selftests.sh

# Mainline's test_shadow_stack from Debian's linux-source-6.12, built at
# test time (unmodified, and a variant that does not stop at a failure).
mainline: deps
	@$(S)/mainline.sh

# Mainline 6.12 itself, same config fragments: the reference make test
# runs the same tests on.
reference: deps
	@$(S)/kernel.sh reference

# The plain 6.1 base (no patches), same config fragments less the
# series' options: the second reference make test runs 6.1's own
# selftests on.
base: tree
	@$(S)/kernel.sh base

# 6.1's own selftests (configs/kselftests), built from the base tree.
kselftests: base
	@$(S)/kselftests.sh

# glibc 2.41 built with CET from Debian 13's source, and a small userland
# on it (scripts/glibc.sh, scripts/libc.sh); make test boots it.
libc: deps
	@$(S)/libc.sh 2.41

# The test initramfs (our selftests + EXTRA), a bare one (no tests) and
# the one with 6.1's own selftests.
initramfs: selftests mainline kselftests
	@$(S)/demo.sh
	@$(S)/initramfs.sh $(BUILD)/initramfs/test.cpio \
		+$(BUILD)/selftests/list \
		$(BUILD)/mainline/ml_test_shadow_stack \
		$(BUILD)/mainline/ml_test_shadow_stack_nostop \
		$(BUILD)/demo/demo @$(BUILD)/demo/demo-shstk $(BUILD)/cetdiff/cetdiff \
		$(if $(EXTRA),$$(find $(EXTRA) -maxdepth 1 -type f -perm -u+x | sort)) \
		+$(BUILD)/selftests/last-list
	@$(S)/initramfs.sh $(BUILD)/initramfs/bare.cpio
	@$(S)/initramfs.sh $(BUILD)/initramfs/kself.cpio.xz +$(BUILD)/kselftests/list \
		+$(BUILD)/selftests/kself-list

# The emulator it needs (Bochs or QEMU-CET) is built by run.sh.
run: kernel
	@$(S)/run.sh

# glibc's build (make libc, 20 minutes cold) keeps about one core busy
# (configure and its serial steps): it runs beside the kernel builds,
# which keep two, and QEMU-CET's build (make qemu) follows it there.
test: deps
	@{ $(MAKE) --no-print-directory libc; rc=$$?; \
	   $(MAKE) --no-print-directory qemu || rc=1; exit $$rc; } & lane=$$!; rc=0; \
	$(MAKE) --no-print-directory $(if $(filter debug,$(CONFIG)),kernel-debug,kernel) \
		emulator initramfs reference base || rc=1; \
	wait $$lane || rc=1; \
	exit $$rc
	@$(S)/test.sh

# Storms, fault injection, kmemleak and the fuzzer on the debug kernel
# (lockdep, DEBUG_VM; make test runs the same on the test kernel); ends
# with the "stress: ..." line.
stress: $(if $(KASAN),kernel-kasan,kernel-debug) emulator selftests
	@$(S)/stress.sh

# Guest TSC cycles per operation on cet-lts (shadow stack off and on),
# cet-lts built without the option, and mainline 6.12 (off and on):
# build/bench/results.csv, results.svg and a table (scripts/bench.sh).
bench: kernel kernel-off reference emulator selftests
	@EMU=$(if $(filter file,$(origin EMU)),bochs,$(EMU)) $(S)/bench.sh

# How often the kself comparison of make test goes wrong on a machine,
# nothing cached: RUNS runs of it on MACHINE (default qemu); with PROGS
# (6.1 selftests by their kself names), RUNS boots of each kernel with
# just those programs, an oops killing only the task (scripts/kself-runs.sh).
kself-runs: kernel base emulator qemu initramfs
	@$(S)/kself-runs.sh $(RUNS) $(MACHINE) $(PROGS)

# Debian's own 6.1 amd64 config: the plain base, the series with the
# option on and with it off must build, and the series must add no
# compiler warning (scripts/distro-build.sh).  Slow: not in make test.
distro-build: deps base
	@$(S)/distro-build.sh

# The series' quality gates (checkpatch, form, option off, i386, W=1,
# sparse, docs, MAINTAINERS; per-patch builds with BISECT=quick|full);
# see scripts/check.sh.
check: tree kernel base
	@$(S)/check.sh

# The gates too slow for CI, run before a release (README): make check
# with a build after every patch, the whole option-off and i386 builds,
# make bench's smoke run (one boot, one sample, of each of its kernels:
# the option-off kernel boots), the stress boots on the debug kernel
# (Bochs, QEMU-CET on 2 and on 4 CPUs),
# Debian's own config, glibc 2.36 (the ARCH_CET_* ABI) on cet-lts and
# mainline 6.12, 6.1's own selftests on Bochs (make test runs them on
# QEMU-CET).  Each runs even if one before it failed; the target fails
# if any did.
release-check: tree kernel kernel-off kernel-debug emulator qemu selftests base reference initramfs
	@rc=0; \
	BISECT=$(if $(filter none,$(BISECT)),quick,$(BISECT)) RELEASE=1 $(S)/check.sh || rc=1; \
	BENCH_OUT=$(BUILD)/bench-smoke BOOTS=1 REPS=1 $(S)/bench.sh || rc=1; \
	$(S)/stress.sh || rc=1; \
	STRESS_EMU=qemu-cet CPUS=2 $(S)/stress.sh || rc=1; \
	STRESS_EMU=qemu-cet CPUS=4 $(S)/stress.sh || rc=1; \
	$(S)/distro-build.sh || rc=1; \
	$(S)/libc-test.sh 2.36 || rc=1; \
	$(S)/kself.sh all bochs || rc=1; \
	exit $$rc

clean:
	rm -rf $(BUILD)/boot $(BUILD)/initramfs $(BUILD)/logs $(BUILD)/selftests

distclean:
	rm -rf $(BUILD)
