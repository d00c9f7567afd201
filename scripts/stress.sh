#!/bin/bash
# Stress boot: boot a CET kernel on the CET CPU with the whole suite plus
# the load tests (configs/stress: storms, fault injection, the fuzzer),
# judge every test, and end with
#
#   stress: N threads, N forks, N fuzz calls, N injected faults, N leaks, N oops
#
# counted from what the guest reported, after the KTAP report.  Exit 1 on
# any failed test, leak or oops.  The result lines stay in
# build/logs/results-NAME.tsv (make test counts them with its own).
#
# STRESS_KERNEL picks the kernel:
#   cet    the test kernel (make test): kmemleak and fault injection
#          (base.config) switched on for this boot;
#   debug  the debug kernel (make stress, make release-check): the same
#          plus lockdep, DEBUG_VM, DEBUG_LIST, atomic-sleep checks
#          (configs/debug.config), several times slower;
#   kasan  the debug kernel with KASAN (make stress KASAN=1).
#
# SEED (default 1) seeds the fuzzer; SEED=random picks one (printed).
# STRESS_EMU (default bochs) and CPUS (default 1) pick the machine
# (scripts/boot.sh); other than one-CPU Bochs, they name the boot, e.g.
# stress-qemu-cet-smp4.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

variant=${STRESS_KERNEL:-debug}
[ -n "${KASAN:-}" ] && variant=kasan	# make stress KASAN=1
case $variant in
cet) name=stress ;;
debug|kasan) name=stress-$variant ;;
*) die "STRESS_KERNEL=$variant: cet, debug or kasan" ;;
esac
emu=${STRESS_EMU:-bochs}
export CPUS=${CPUS:-1}
label=stress
if [ "$emu" != bochs ] || [ "$CPUS" != 1 ]; then
	name=$name-$emu-smp$CPUS label="stress[$emu, $CPUS CPUs]"
fi
kernel=$BUILD/kernel-$variant/arch/x86/boot/bzImage
cpio=$BUILD/initramfs/$name.cpio
log=$LOGS/$name.serial.log
results=$LOGS/results-$name.tsv
: > "$results"
seed=${SEED:-1}
[ "$seed" = random ] && seed=$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')

[ -f "$kernel" ] || die "no $variant kernel $kernel: run 'make kernel-$variant'"
[ -s "$BUILD/selftests/stress-list" ] || die "no load tests: run 'make selftests'"

args=()
while read -r prog; do
	case ${prog##*/} in
	test_shstk_fuzz_64) args+=("$prog=seed=$seed") ;;
	*) args+=("$prog") ;;
	esac
done < "$BUILD/selftests/stress-list"
"$TOP/scripts/initramfs.sh" "$cpio" +"$BUILD/selftests/list" "${args[@]}" \
	+"$BUILD/selftests/kself-list" +"$BUILD/selftests/last-list" ||
	die "cannot pack $cpio"

# Everything the checkers print when they catch something: the usual
# splats, lockdep's reports and DEBUG_LIST's.
splat_re="$SPLAT_RE"'|possible circular locking|inconsistent lock state|possible recursive locking|suspicious RCU usage|list_(add|del) corruption'

start=$(date +%s)
# The debug kernel is several times slower than the test kernel, KASAN
# four times slower again (the timeout is a cap, not a target).
timeout=${STRESS_TIMEOUT:-1800}
[ "$variant" = kasan ] && timeout=${STRESS_TIMEOUT:-5400}
# cet_exec=always_off: the stress boot also covers the exec policy that
# keeps every CET feature off (the other CET boots use the default); the
# tests check what the boot policy gives.  kmemleak=on: the leak checks
# (off by default, base.config).  cetlts.blockfs: the block device file
# system test_shstk_integrity uses.  vsyscall=emulate: the vsyscall page
# is readable, so test_shstk_attacks can try to write it (a skip here
# would be a failure).
if BOOT_TIMEOUT=$timeout "$TOP/scripts/boot.sh" "$emu" "$name" "$kernel" "$cpio" \
	cet_exec=always_off kmemleak=on cetlts.blockfs vsyscall=emulate; then
	result ok "$name: boot of the $variant kernel"
	done=1
else
	result "not ok" "$name: boot of the $variant kernel" "did not finish, see $log"
	done=0
fi
secs=$(( $(date +%s) - start ))
oops=$(splat_lines "$log" "$splat_re" | wc -l)
if [ "$oops" = 0 ]; then
	result ok "$name: no WARN, BUG, Oops or lockdep report from the $variant kernel"
else
	result "not ok" "$name: no WARN, BUG, Oops or lockdep report from the $variant kernel" \
		"$(splat_lines "$log" "$splat_re" | head -n 1), see $log"
fi
# Every case can run on this kernel and CPU: a skip is a failure here,
# but for the tests emulator/differences says the emulator cannot run.
awk -v boot="$name" -v cet=1 -f "$TOP/scripts/ktap.awk" "$log" |
	awk -v mode=strict -v skipwhy="skipped on the $variant kernel with CET" \
		-v emu="$emu" -v known="$TOP/emulator/differences" \
		-f "$TOP/scripts/differences.awk" \
	>> "$results"

# What the programs report they ran: "# STRESS <what> <count>" lines.
count() { tr -d '\r' < "$log" | awk -v w="$1" '$1 == "#" && $2 == "STRESS" && $3 == w { n += $4 } END { print n + 0 }'; }
leaks=$(count leaks)
line="$label: $(count threads) threads, $(count forks) forks, $(count fuzz) fuzz calls, $(count faults) injected faults, $leaks leaks, $oops oops"
echo "# stress: $variant kernel on $emu ($CPUS CPUs), $secs s, fuzzer seed $seed (log: $log)" >&2

bad=0
[ "$done" = 1 ] && [ "$leaks" = 0 ] && [ "$oops" = 0 ] || bad=1
awk -F'\t' '$1 == "not ok" { f = 1 } END { exit f }' "$results" || bad=1
ktap_report
echo "$line"
exit $bad
