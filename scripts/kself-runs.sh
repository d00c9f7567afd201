#!/bin/bash
# make kself-runs: how often the kself comparison, or one of 6.1's
# selftests, goes wrong on a machine, on either kernel (nothing cached).
#
#   kself-runs.sh RUNS MACHINE [PROG...]
# Without PROG: RUNS times the whole comparison of make test on MACHINE
# (scripts/kself.sh: the base and cet-lts boots side by side, then the
# confirmation boots and the judgement); one line per run with its
# failures and where each kernel's boots stopped, then the totals.
# With PROGs: RUNS boots of each kernel with an initramfs of just those
# programs, an oops killing only the task (BOOT_OOPS_PANIC=0) and QEMU
# logging CPU resets and triple faults (-d cpu_reset, kept in
# build/logs/kself-runs/NAME.qemu.log); one line per boot
# with each program's outcome and the first oops line, then the totals.
# Logs: build/logs/kself-runs/.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

runs=$1 m=$2; shift 2
out=$LOGS/kself-runs
mkdir -p "$out"
base_kernel=$BUILD/kernel-base/arch/x86/boot/bzImage
kernel=$BUILD/bzImage

if [ $# -eq 0 ]; then
	total_bad=0
	for i in $(seq "$runs"); do
		results=$out/run$i.tsv; : > "$results"
		export results KSELF_NAME=kself-run KSELF_CACHE=0
		"$TOP/scripts/kself.sh" base "$m" 2> "$out/run$i.base.err" &
		"$TOP/scripts/kself.sh" cet-lts "$m" 2> "$out/run$i.cet.err"
		wait
		"$TOP/scripts/kself.sh" judge "$m" 2> "$out/run$i.judge.err"
		for f in "$LOGS"/"$m"-kself-run-*.serial.log "$LOGS"/"$m"-kself-run-*.stops "$LOGS/kself-run-table"; do
			[ -f "$f" ] && cp "$f" "$out/run$i.${f##*/}"
		done
		bad=$(awk -F'\t' '$1 == "not ok" {print $2}' "$results" | paste -sd,)
		[ -n "$bad" ] && total_bad=$((total_bad + $(echo "$bad" | tr ',' '\n' | wc -l)))
		stops=$(for s in base cet-lts base-confirm cet-lts-confirm; do
			f=$LOGS/$m-kself-run-$s.stops
			[ -s "$f" ] && echo "$s stopped in $(cut -f1 "$f" | paste -sd,)"
		done | paste -sd';')
		echo "run $i: $(awk -F'\t' '$1 == "ok"' "$results" | wc -l) ok, failed: ${bad:-none}; ${stops:-no boot stopped}"
	done
	echo "kself-runs[$m]: $runs runs, $total_bad failures"
	exit 0
fi

cpio=$BUILD/initramfs/kself-runs.cpio
"$TOP/scripts/initramfs.sh" "$cpio" "${@/#/$BUILD/kselftests/bin/}"
for k in base:"$base_kernel" cet-lts:"$kernel"; do
	side=${k%%:*}
	: > "$out/$side.outcomes"
	for i in $(seq "$runs"); do
		b=kself-runs-$side-$i
		BOOT_OOPS_PANIC=0 QEMU_LOG=cpu_reset QEMU_MEGS=1024 BOOT_TIMEOUT=${BOOT_TIMEOUT:-600} \
			"$TOP/scripts/boot.sh" "$m" "$b" "${k#*:}" "$cpio" 2>/dev/null
		log=$LOGS/$b.serial.log
		cp "$log" "$out/"
		[ -f "$BUILD/boot/$b/qemu.log" ] && cp "$BUILD/boot/$b/qemu.log" "$out/$b.qemu.log"
		line=$(awk -v logs="$m/$side=$log" -v table=/dev/stdout -f "$TOP/scripts/kself.awk" |
			awk '/^# / && ++h > 2 { printf "%s%s=%s", (n++ ? " " : ""), $2, $3 }')
		oops=$(splat_lines "$log" | head -n 1 | sed 's/^\[ *[0-9.]*\] //')
		triple=$(grep -c 'Triple fault' "$out/$b.qemu.log" 2>/dev/null)
		echo "$side $i: $line${oops:+; first splat: $oops}; triple faults: ${triple:-0}" |
			tee -a "$out/$side.outcomes"
	done
	echo "kself-runs[$m] $side: $(grep -o '=[A-Z]*' "$out/$side.outcomes" | sort | uniq -c | tr -s ' \n' ' ') in $runs boots"
done
