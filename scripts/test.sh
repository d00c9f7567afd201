#!/bin/bash
# Run the whole suite: boot the CET test kernel on Bochs and on QEMU-CET
# (CET CPUs) and on QEMU without CET, judge each boot and each test
# program, compare the two CET CPUs' verdicts, print KTAP and
# one closing line "N passed, N failed, N skipped".  Exit 1 if any failed.
#
# Expects the kernel, emulator and initramfs to be built (make test does).
# CONFIG=debug: every boot uses the debug kernel (configs/debug.config).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

kernel=$BUILD/bzImage
case ${CONFIG:-cet} in
cet) ;;
debug) kernel=$BUILD/kernel-debug/arch/x86/boot/bzImage ;;
*) die "CONFIG=$CONFIG: cet (default) or debug" ;;
esac
tests_cpio=$BUILD/initramfs/test.cpio
bare_cpio=$BUILD/initramfs/bare.cpio
results=$LOGS/results.tsv
: > "$results"
: > "$LOGS/boot-times"
: > "$LOGS/splats"
rm -f "$LOGS"/results-boot-*.tsv

flags() { sed -n 's/\r$//; s/^CETLTS-FLAGS //p' "$1"; }
# What a failed flag check reports: the CET-related flags, not all 100.
cet_flags() { echo "CET flags in cpuinfo: [$(flags "$1" | tr ' ' '\n' | grep -E 'shstk|ibt' | tr '\n' ' ')]"; }
has_flag() { flags "$1" | tr ' ' '\n' | grep -qx "$2"; }
lacks_flag() { ! has_flag "$@"; }
has_line() { grep -q -- "$2" "$1"; }
lacks_line() { ! grep -q -- "$2" "$1"; }
# The kernel's console output on the serial log must not show a splat.
splats() { splat_lines "$1"; }
# guest_results NAME LOG [CET [EMU]]: the tests' results in a serial log, as
# result lines (CET=1: the boot offers shadow stacks, see ktap.awk).
# EMU: the emulator; a failure emulator/differences lists as that
# emulator's error passes as an XFAIL.
guest_results() {
	awk -v boot="$1" -v cet="${3:-0}" -v xfail="$TOP/configs/mainline-xfail" \
		-f "$TOP/scripts/ktap.awk" "$2" |
	awk -v mode=xfail -v emu="${4:-}" -v known="$TOP/emulator/differences" \
		-f "$TOP/scripts/differences.awk"
}

# boot_and_check NAME EMU INITRD CMDLINE [CET]: boot, then the checks
# every boot gets (CET "-": the boot's programs are judged elsewhere).  Returns 1 when the guest did not finish, so the caller
# skips the checks that need its output (they are failed here, not skipped).
boot_and_check() {
	local name=$1 emu=$2 initrd=$3 cmdline=$4 cet=${5:-0} log=$LOGS/$1.serial.log
	if ! "$TOP/scripts/boot.sh" "$emu" "$name" "$kernel" "$initrd" $cmdline; then
		result "not ok" "$name: boot" "did not finish, see $log"
		[ "$cet" = - ] || guest_results "$name" "$log" "$cet" "$emu" | tee "$LOGS/results-boot-$name.tsv" >> "$results"
		return 1
	fi
	result ok "$name: boot"
	check "$name: no WARN/BUG/Oops in the kernel log" \
		"$(splats "$log" | head -n1 | tr -d '\r'), see $log" clean_log "$log"
	[ "$cet" = - ] || guest_results "$name" "$log" "$cet" "$emu" | tee "$LOGS/results-boot-$name.tsv" >> "$results"
}

# same_results A B: do boots A and B give each test the same verdict?
# Prints the first differences.  Numbers of 6+ digits (addresses, counts
# in the names) are left out of the comparison.
outcomes() {
	sed -E "s/^([^\t]*)\t$1: ([^\t]*).*/\1\t\2/; s/(0x)?[0-9a-f]{6,}/#/g" \
		"$LOGS/results-boot-$1.tsv" | sort
}
same_results() {
	local d
	d=$(diff <(outcomes "$1") <(outcomes "$2") | grep '^[<>]' | head -n 2 | tr '\t\n' ': ')
	[ -z "$d" ] || { echo "$1 < > $2: $d"; return 1; }
}

# same_on_emulators A B: boots A (Bochs) and B (QEMU-CET) of the same
# kernel and initramfs give each test the same verdict, but for the tests
# emulator/differences lists ("ERE<TAB>WRONG<TAB>WHY": an extended regular
# expression on "PROG: TEST", the emulator that is wrong, why, checked
# against the SDM).  Each difference seen goes to $LOGS/emu-diffs, for
# the check that every listed one still shows (emu_stale).
emu_known=$TOP/emulator/differences
: > "$LOGS/emu-diffs"
emu_listed() { sed -e 's/\r$//' -e '/^#/d' -e '/^[[:space:]]*$/d' "$emu_known"; }
emu_unlisted() {
	local re
	re=$(emu_listed | cut -f1 | paste -sd'|')
	awk -F'\t' -v re="${re:-^$}" '$2 !~ re'
}
same_on_emulators() {
	local d
	diff <(outcomes "$1") <(outcomes "$2") | sed -n 's/^[<>] //p' >> "$LOGS/emu-diffs"
	d=$(diff <(outcomes "$1" | emu_unlisted) <(outcomes "$2" | emu_unlisted) |
		grep '^[<>]' | head -n 2 | tr '\t\n' ': ')
	[ -z "$d" ] || { echo "$1 < > $2, not in emulator/differences: $d"; return 1; }
}
# emu_stale: the listed differences no boot pair showed (the emulator was
# fixed, or the test changed: the entry must go).
emu_stale() {
	emu_listed | cut -f1 | while read -r re; do
		cut -f2 "$LOGS/emu-diffs" | grep -qE -- "$re" || echo "$re"
	done
}
# emu_table BOOT...: each program's verdicts (passed/failed/skipped) in
# each boot, side by side.
emu_table() {
	local b files=
	for b in "$@"; do
		[ -f "$LOGS/results-boot-$b.tsv" ] && files="$files $LOGS/results-boot-$b.tsv"
	done
	# shellcheck disable=SC2086
	awk -F'\t' -v boots="$*" '
		BEGIN { nb = split(boots, bn, " ") }
		{
			b = FILENAME; sub(/.*results-boot-/, "", b); sub(/\.tsv$/, "", b)
			n = $2; sub(/^[^:]*: /, "", n); p = n; sub(/: .*/, "", p)
			if (!(p in seen)) { seen[p] = 1; order[np++] = p }
			k = p SUBSEP b
			if ($1 == "ok") ok[k]++; else if ($1 == "skip") sk[k]++; else nok[k]++
		}
		END {
			printf "# emulators: passed/failed/skipped per program\n# %-28s", "program"
			for (i = 1; i <= nb; i++) printf " %-14s", bn[i]
			print ""
			for (j = 0; j < np; j++) {
				p = order[j]; printf "# %-28s", p
				for (i = 1; i <= nb; i++) {
					k = p SUBSEP bn[i]
					printf " %-14s", (ok[k] + nok[k] + sk[k] ? ok[k]+0 "/" nok[k]+0 "/" sk[k]+0 : "-")
				}
				print ""
			}
		}' $files
}

xsave_cet='Supporting XSAVE feature 0x800'

# 7 (started first, collected last): a second lane beside the boots
# below (Bochs uses one core): the base boots of section 4b when they
# are not cached, the harness's own test of a crashed kself boot
# (scripts/kself-crash-test.sh, QEMU), then the stress boot
# (scripts/stress.sh) on the test kernel (CONFIG=debug: the debug
# kernel).  It writes its own results files; section 4b waits for the
# base boots.
# The kself machines: QEMU-CET (CET CPU) and the same QEMU without CET;
# make release-check runs the same comparison on Bochs.
kself_machines="qemu-cet qemu"
kself_base_done=$LOGS/kself-base.done
rm -f "$kself_base_done"
# The stress boots (EMU:CPUS): Bochs.  QEMU-CET on 2 and 4 CPUs runs in
# make release-check until its KSM finding is explained (README).
stress_runs="bochs:1"
(
	results=$LOGS/results-kself-base.tsv
	: > "$results"
	results=$results KSELF_KERNEL=$kernel "$TOP/scripts/kself.sh" base $kself_machines
	touch "$kself_base_done"
	results=$LOGS/results-kself-crash-test.tsv
	: > "$results"
	results=$results "$TOP/scripts/kself-crash-test.sh"
	for r in $stress_runs; do
		STRESS_EMU=${r%:*} CPUS=${r#*:} STRESS_KERNEL=${CONFIG:-cet} \
			"$TOP/scripts/stress.sh" > "$LOGS/stress-${r/:/-}.out" 2>&1
	done
) &
lane2_pid=$!

# 1. Bochs, CET CPU: the hardware and the kernel both report shadow stack.
# cet_exec=elf_property: exec turns CET on for marked programs, as the
# 2018 design did (the default, "the C library decides", is what the
# nouseribt, QEMU and kself boots run under).
b=bochs-cet log=$LOGS/$b.serial.log
if boot_and_check $b bochs "$tests_cpio" "cet_exec=elf_property" 1; then
	check "$b: cpuinfo has shstk" "$(cet_flags "$log")" has_flag "$log" shstk
	check "$b: cpuinfo has user_shstk" "$(cet_flags "$log")" has_flag "$log" user_shstk
	check "$b: cpuinfo has ibt" "$(cet_flags "$log")" has_flag "$log" ibt
	check "$b: cpuinfo has user_ibt" "$(cet_flags "$log")" has_flag "$log" user_ibt
	check "$b: XSAVES manages the CET user state" "no '$xsave_cet' in $log" \
		has_line "$log" "$xsave_cet"
	check "$b: CET user XSAVE component is 16 bytes" \
		"$(grep -a 'xstate_sizes\[11\]' "$log" | tr -d '\r' || echo 'no size line for component 11')" \
		has_line "$log" 'xstate_sizes\[11\]: *16[^0-9]*$'
fi

# 1b. The same boot on two CPUs: Bochs built with --enable-smp runs them
# one after another on one host thread, a few instructions each, so
# threads, forks, signals and TLB shootdowns interleave across CPUs (they
# never run at the same instant: that needs an emulator with threads).
# Each test must give the verdict it gives on one CPU.
# Its Bochs build is made here, in this lane, which has time to spare
# while the second lane runs the base boots on a cold run.
b=bochs-smp2 log=$LOGS/$b.serial.log
"$TOP/scripts/emulator.sh" smp || result "not ok" "$b: Bochs built with --enable-smp" "see build/bochs-smp-src/build.log"
if CPUS=2 boot_and_check $b bochs "$tests_cpio" "cet_exec=elf_property" 1; then
	check "$b: the kernel brought up 2 CPUs" \
		"$(grep -a -m1 'smp: Brought up' "$log" | tr -d '\r' || echo "no 'smp: Brought up' line")" \
		has_line "$log" 'smp: Brought up .* 2 CPUs'
	check "$b: every test's verdict is the one-CPU boot's (bochs-cet)" \
		"$(same_results bochs-cet $b)" same_results bochs-cet $b
fi

# 1c. The same boots on QEMU-CET (make qemu: our QEMU 10.0, TCG with
# shadow stacks; no IBT yet), on one CPU and on two.  QEMU runs each CPU
# on a host thread of its own (-accel tcg,thread=multi): two CPUs touch
# the same page table entry or token at the same instant, which Bochs
# never does.  Each test must give the verdict it gave on Bochs, but for
# the differences emulator/differences lists.
for cpus in 1 2; do
	b=qemu-cet bb=bochs-cet
	[ $cpus = 2 ] && b=qemu-cet-smp2 bb=bochs-smp2
	log=$LOGS/$b.serial.log
	CPUS=$cpus boot_and_check $b qemu-cet "$tests_cpio" "cet_exec=elf_property" 1 || continue
	check "$b: cpuinfo has shstk" "$(cet_flags "$log")" has_flag "$log" shstk
	check "$b: cpuinfo has user_shstk" "$(cet_flags "$log")" has_flag "$log" user_shstk
	if [ $cpus = 1 ]; then
		check "$b: XSAVES manages the CET user state" "no '$xsave_cet' in $log" \
			has_line "$log" "$xsave_cet"
	else
		check "$b: the kernel brought up 2 CPUs" \
			"$(grep -a -m1 'smp: Brought up' "$log" | tr -d '\r' || echo "no 'smp: Brought up' line")" \
			has_line "$log" 'smp: Brought up .* 2 CPUs'
	fi
	check "$b: every test's verdict is Bochs's ($bb)" \
		"$(same_on_emulators $bb $b)" same_on_emulators $bb $b
done

# 2. Bochs with "nousershstk" (mainline's name): the CPU still has it,
# the kernel does not use it. The selftests run too: every enabling call
# must fail with EOPNOTSUPP. cet_exec=always_off: the exec policy every
# process starts with comes from the boot parameter (test_shstk_exec
# checks it against the command line on every boot).
b=bochs-nousershstk log=$LOGS/$b.serial.log
if boot_and_check $b bochs "$tests_cpio" "nousershstk cet_exec=always_off"; then
	check "$b: cpuinfo has shstk" "$(cet_flags "$log")" has_flag "$log" shstk
	check "$b: cpuinfo lacks user_shstk" "$(cet_flags "$log")" lacks_flag "$log" user_shstk
	check "$b: cpuinfo lacks user_ibt (needs user_shstk)" "$(cet_flags "$log")" lacks_flag "$log" user_ibt
	check "$b: no CET user XSAVE state" "'$xsave_cet' in $log" lacks_line "$log" "$xsave_cet"
fi
# 2+. The same on QEMU-CET: every verdict must be Bochs's.
b=qemu-cet-nousershstk log=$LOGS/$b.serial.log
if boot_and_check $b qemu-cet "$tests_cpio" "nousershstk cet_exec=always_off"; then
	check "$b: cpuinfo has shstk" "$(cet_flags "$log")" has_flag "$log" shstk
	check "$b: cpuinfo lacks user_shstk" "$(cet_flags "$log")" lacks_flag "$log" user_shstk
	check "$b: every test's verdict is Bochs's (bochs-nousershstk)" \
		"$(same_on_emulators bochs-nousershstk $b)" same_on_emulators bochs-nousershstk $b
fi
# 2a. "noshstk", the name earlier cet-lts releases used, still works.
b=bochs-noshstk log=$LOGS/$b.serial.log
if boot_and_check $b bochs "$bare_cpio" "noshstk"; then
	check "$b: cpuinfo lacks user_shstk" "$(cet_flags "$log")" lacks_flag "$log" user_shstk
	check "$b: no CET user XSAVE state" "'$xsave_cet' in $log" lacks_line "$log" "$xsave_cet"
fi

# 2b. Bochs with "nouseribt": shadow stacks stay, user IBT goes; the
# selftests run: shadow stack ones pass, IBT enabling must be refused.
# vsyscall=emulate maps the kernel's vsyscall page readable into every
# process (what old static binaries need; the other boots but the stress
# one have the default, xonly): test_shstk_attacks checks that WRSS
# cannot write it.
b=bochs-nouseribt log=$LOGS/$b.serial.log
vsyscall_line='ok [0-9]* WRSS to the vsyscall page: refused'
if boot_and_check $b bochs "$tests_cpio" "nouseribt vsyscall=emulate" 1; then
	check "$b: cpuinfo has ibt" "$(cet_flags "$log")" has_flag "$log" ibt
	check "$b: cpuinfo has user_shstk" "$(cet_flags "$log")" has_flag "$log" user_shstk
	check "$b: cpuinfo lacks user_ibt" "$(cet_flags "$log")" lacks_flag "$log" user_ibt
	check "$b: the vsyscall page test ran, not skipped" \
		"no '$vsyscall_line' in $log" has_line "$log" "$vsyscall_line"
fi

# 3. Bochs with "clearcpuid=user_shstk": same effect through the generic switch.
b=bochs-clearcpuid log=$LOGS/$b.serial.log
if boot_and_check $b bochs "$bare_cpio" "clearcpuid=user_shstk"; then
	check "$b: cpuinfo lacks user_shstk" "$(cet_flags "$log")" lacks_flag "$log" user_shstk
	check "$b: cpuinfo lacks user_ibt" "$(cet_flags "$log")" lacks_flag "$log" user_ibt
	check "$b: no CET user XSAVE state" "'$xsave_cet' in $log" lacks_line "$log" "$xsave_cet"
fi

# 4. QEMU without the CET properties: no CET at all; boots cleanly, tests
# skip.
b=qemu-nocet log=$LOGS/$b.serial.log
if boot_and_check $b qemu "$tests_cpio" ""; then
	check "$b: cpuinfo lacks shstk" "$(cet_flags "$log")" lacks_flag "$log" shstk
	check "$b: cpuinfo lacks user_shstk" "$(cet_flags "$log")" lacks_flag "$log" user_shstk
	check "$b: cpuinfo lacks user_ibt" "$(cet_flags "$log")" lacks_flag "$log" user_ibt
	check "$b: no CET user XSAVE state" "'$xsave_cet' in $log" lacks_line "$log" "$xsave_cet"
fi

# 4b. 6.1's own selftests (configs/kselftests) on the plain 6.1 base and
# on cet-lts, same config and initramfs, on both machines: a program that
# passes on the base must pass on cet-lts (scripts/kself.sh, kself.awk).
# The base boots run in the second lane (started above).
results=$results KSELF_KERNEL=$kernel "$TOP/scripts/kself.sh" cet-lts $kself_machines
while [ ! -f "$kself_base_done" ] && kill -0 "$lane2_pid" 2>/dev/null; do
	sleep 5
done
cat "$LOGS/results-kself-base.tsv" >> "$results"
results=$results KSELF_KERNEL=$kernel "$TOP/scripts/kself.sh" judge $kself_machines

# 6. Mainline 6.12 (make reference) on the same CPU with the same tests:
# the yardstick for mainline's selftest.  Its results are not ours and
# are not counted; every case it passes must pass on cet-lts too.
ref_kernel=$BUILD/kernel-reference/arch/x86/boot/bzImage
ref_results=$LOGS/results-reference.tsv
: > "$ref_results"
ref_log=$LOGS/reference.serial.log
ref_cmdline="cetlts.nolast sysctl.debug.exception-trace=0"
if [ -f "$ref_kernel" ]; then
	# Without the tests that may crash or hang a kernel (cetlts.nolast):
	# the reference is for mainline's own selftest.  Mainline prints a
	# "traps: ... control protection" line for each #CP a test causes;
	# on the serial console it can land inside a test's result line and
	# change its name (seen once, in "signal: 10000 signals").
	# exception-trace off keeps them out.
	if "$TOP/scripts/boot.sh" bochs reference "$ref_kernel" "$tests_cpio" $ref_cmdline; then
		guest_results reference "$ref_log" 1 bochs > "$ref_results"
	else
		echo "# reference: mainline 6.12 boot did not finish, see $ref_log"
	fi
fi
compare_mainline() {
	local why
	[ -s "$ref_results" ] || { echo "no reference results (make reference; see $ref_log)"; return 1; }
	why=$("$TOP/scripts/compare.sh" missing "$results" "$ref_results") ||
		{ echo "mainline passes, cet-lts does not: $why"; return 1; }
}
check "mainline selftest: every case mainline 6.12 passes on this CPU passes on cet-lts" \
	"$(compare_mainline)" compare_mainline
# 6b. Mainline 6.12 on QEMU-CET: its verdicts must be the ones it gets on
# Bochs (a difference is the emulators', not the kernels').
b=qemu-cet-reference log=$LOGS/$b.serial.log
if [ -s "$ref_results" ] && "$TOP/scripts/boot.sh" qemu-cet $b "$ref_kernel" "$tests_cpio" $ref_cmdline; then
	cp "$ref_results" "$LOGS/results-boot-reference.tsv"
	guest_results $b "$log" 1 qemu-cet > "$LOGS/results-boot-$b.tsv"
	check "$b: every test's verdict is Bochs's (mainline 6.12 on Bochs)" \
		"$(same_on_emulators reference $b)" same_on_emulators reference $b
else
	result "not ok" "$b: mainline 6.12 on QEMU-CET and on Bochs" \
		"$([ -s "$ref_results" ] || echo "no Bochs reference results; ")see $log"
fi

# 6c. Real C libraries built with CET: glibc 2.41 (mainline's ABI), its
# userland on cet-lts and on mainline 6.12, same CPU; every cell must be
# the same (scripts/libc-test.sh, scripts/libc.awk).  glibc 2.36 (the
# ARCH_CET_* ABI of glibc 2.28-2.38) runs in make release-check.
LIBC_RESULTS=$results "$TOP/scripts/libc-test.sh" 2.41

# 7. The stress boots (started above): the suite, storms, fault
# injection, kmemleak and the fuzzer; their results count with the rest.
wait "$lane2_pid"
stress_lines=
for r in $stress_runs; do
	n=stress
	[ "${CONFIG:-cet}" = debug ] && n=stress-debug
	[ "$r" = bochs:1 ] || n=$n-${r%:*}-smp${r#*:}
	out=$LOGS/stress-${r/:/-}.out
	l=$(tail -n 1 "$out")
	case $l in
	stress*:*) cat "$LOGS/results-$n.tsv" >> "$results" ;;
	*)	result "not ok" "$n: the stress boot ran" "$l (see $out)"
		l="$n: did not run" ;;
	esac
	stress_lines="$stress_lines# $l"$'\n'
done

# The harness's own check of a crashed kself boot (lane 2).
cat "$LOGS/results-kself-crash-test.tsv" >> "$results"

# Each listed emulator difference must still show somewhere.
stale=$(emu_stale | paste -sd' ')
check "emulator/differences: every listed difference still shows" \
	"listed, but every boot pair agrees: $stale" test -z "$stale"

# Report.
ktap_report
"$TOP/scripts/compare.sh" table "$results" "$ref_results"
cat "$LOGS/kself-table"
emu_table bochs-cet qemu-cet bochs-smp2 qemu-cet-smp2 bochs-nousershstk qemu-cet-nousershstk
cat "$LOGS/libc-table-2.41" 2>/dev/null
printf '%s' "$stress_lines"

echo "# boot times (s): $(tr '\n' ' ' < "$LOGS/boot-times")"
echo "# serial logs: $LOGS"
ktap_summary
