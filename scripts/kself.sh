#!/bin/bash
# 6.1's own selftests (configs/kselftests) on the plain 6.1 base and on
# cet-lts, same config and initramfs, on each machine given: a program
# that passes on the base must pass on cet-lts (scripts/kself.awk judges).
#
#   kself.sh base MACHINE...      the base boots (M-NAME-base)
#   kself.sh cet-lts MACHINE...   the cet-lts boots (M-NAME-cet-lts)
#   kself.sh judge MACHINE...     confirmation boots, the splat check,
#                                 the judgement and the table
#   kself.sh all MACHINE...       the three in turn, then KTAP, the table
#                                 and the closing line (make release-check
#                                 runs it on Bochs)
# make test runs "base" in its second lane, beside "cet-lts" in the
# first, then "judge".  Each boot goes through scripts/resume-boot.sh: a
# guest that stops in a program is booted again after it, and the boot's
# line says where it stopped, why and the console's last lines.
#
# Environment: results (the result file lines are added to); KSELF_NAME
# (kself; the boots' and the table's names), KSELF_CPIO, KSELF_KERNEL,
# KSELF_BASE_KERNEL (default: make test's), KSELF_REPEAT (5: runs of
# each program in a confirmation boot), KSELF_CACHE (1: a finished base
# boot of the same kernel, initramfs, command line and emulator is
# reused from build/kself-cache), KSELF_INJECT ("SIDE=PROG ...": boots
# of SIDE, one of base, cet-lts, base.confirm, cet-lts.confirm, get
# cetlts.poweroff-at=PROG; only the harness's own crash test sets it).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

what=$1; shift
if [ "$what" = all ]; then
	export results=$LOGS/results-kself-all.tsv
	: > "$results"
	for w in base cet-lts judge; do "$0" "$w" "$@"; done
	ktap_report
	cat "$LOGS/${KSELF_NAME:-kself}-table"
	ktap_summary "kself[$*]"
	exit
fi
: "${results:?results: the result file}"
tag=${KSELF_NAME:-kself}
cpio=${KSELF_CPIO:-$BUILD/initramfs/kself.cpio.xz}
kernel=${KSELF_KERNEL:-$BUILD/bzImage}
base_kernel=${KSELF_BASE_KERNEL:-$BUILD/kernel-base/arch/x86/boot/bzImage}
repeat=${KSELF_REPEAT:-5}
common="cetlts.hugepages=32 cetlts.blockfs cetlts.timeout=${KSELF_TIMEOUT:-120}"

cmdline() {		# cmdline MACHINE SIDE
	local skip_on p
	skip_on=$(paste -sd, "$BUILD/kselftests/skip-on-$1")
	echo "$common${skip_on:+ cetlts.skip=$skip_on}"
	for p in ${KSELF_INJECT:-}; do
		[ "${p%%=*}" = "$2" ] && echo "cetlts.poweroff-at=${p#*=}"
	done
}

# 2 GiB: the initramfs with 6.1's selftests takes 160 MiB of it, and
# khugepaged's collapse_compound_extreme holds up to 512 huge pages at a
# time; with 1 GiB it ran out now on one kernel, now on the other.
megs=2048
kboot() {		# kboot MACHINE NAME KERNEL SIDE [CMDLINE...]
	local m=$1 b=$2 k=$3 side=$4; shift 4
	# shellcheck disable=SC2046
	BOCHS_MEGS=$megs QEMU_MEGS=$megs BOOT_TIMEOUT=${KSELF_BOOT_TIMEOUT:-1800} \
		"$TOP/scripts/resume-boot.sh" "$m" "$b" "$k" "$cpio" $(cmdline "$m" "$side") "$@"
}

# stops NAME: where the boot stopped and was booted again, for its line.
stops() {
	local s
	s=$(cut -f2 "$LOGS/$1.stops" 2>/dev/null | sed 's/^CETLTS-STOPPED //' | paste -sd';')
	[ -z "$s" ] || echo "stopped: $s (booted again after each)"
}

# boot_result NAME STATUS: the boot's one line.
boot_result() {
	local s
	s=$(stops "$1")
	if [ "$2" = 0 ]; then
		result ok "$1: boot" "$s"
	else
		result "not ok" "$1: boot" "did not finish: $(cat "$LOGS/$1.why" 2>/dev/null)${s:+; $s}; what it did not reach is '-' in the table; see $LOGS/$1.serial.log"
	fi
}

case $what in
base)
	for m in "$@"; do
		b=$m-$tag-base
		case $m in
		bochs) emu_bin=$BUILD/bochs/bin/bochs ;;
		qemu|qemu-cet) emu_bin=$BUILD/qemu-cet/build/qemu-system-x86_64 ;;
		*) die "kself.sh: no cache key for machine $m" ;;
		esac
		key=$(cat "$base_kernel" "$cpio" "$TOP/scripts/boot.sh" "$emu_bin" |
			sha256sum | cut -c1-32)-$m-$megs-$(cmdline "$m" base | paste -sd' ' | tr -c 'a-z0-9\n' _)
		cached=$BUILD/kself-cache/$key.serial.log
		if [ "${KSELF_CACHE:-1}" = 1 ] && [ -f "$cached" ]; then
			cp "$cached" "$LOGS/$b.serial.log"; : > "$LOGS/$b.stops"
			log "boot[$b]: same kernel and initramfs as a finished boot: reusing its log"
			result ok "$b: boot" "the log of a finished boot of the same kernel and initramfs"
			continue
		fi
		kboot "$m" "$b" "$base_kernel" base; rc=$?
		boot_result "$b" $rc
		# Only a boot that never stopped: a crash is not kept for good.
		if [ $rc = 0 ] && [ ! -s "$LOGS/$b.stops" ]; then
			mkdir -p "$BUILD/kself-cache"
			cp "$LOGS/$b.serial.log" "$cached"
		fi
	done ;;
cet-lts)
	for m in "$@"; do
		b=$m-$tag-cet-lts
		kboot "$m" "$b" "$kernel" cet-lts
		boot_result "$b" $?
	done ;;
judge)
	logs=
	for m in "$@"; do
		logs="$logs $m/base=$LOGS/$m-$tag-base.serial.log $m/cet-lts=$LOGS/$m-$tag-cet-lts.serial.log"
	done
	# Confirmation logs of an earlier run must not count in this one.
	for m in "$@"; do
		rm -f "$LOGS/$m-$tag"-{base,cet-lts}-confirm{,.part*}.serial.log \
		      "$LOGS/$m-$tag"-{base,cet-lts}-confirm.{stops,why}
	done
	for m in "$@"; do
		only=$(awk -v logs="${logs# }" -v mode=confirm -f "$TOP/scripts/kself.awk" |
			awk -F'\t' -v m="$m" '$1 == m { print $2 }' | paste -sd,)
		[ -n "$only" ] || continue
		log "kself[$m]: $only: again, alone, $repeat times on each kernel"
		for k in base:"$base_kernel" cet-lts:"$kernel"; do
			b=$m-$tag-${k%%:*}-confirm
			kboot "$m" "$b" "${k#*:}" "${k%%:*}.confirm" \
				cetlts.only="$only" cetlts.repeat="$repeat" ||
				log "kself[$m]: the ${k%%:*} confirmation boot did not finish"
			logs="$logs $m/${k%%:*}.confirm=$LOGS/$b.serial.log"
		done
	done
	# A splat counts unless the base showed the same one (by kind, file
	# and function: 6.1's own WARNs under these tests, e.g. exc_debug's
	# on Bochs).  What a program printed before the guest stopped in it
	# belongs to that program's line (judged over its confirmation runs).
	ran_through() {
		tr -d '\r' | awk '
			function flush(  i) { for (i = 0; i < n; i++) print buf[i]; n = 0 }
			/^CETLTS-BEGIN / { flush(); inp = 1 }
			/^CETLTS-STOPPED / { n = 0; inp = 0; next }
			inp { buf[n++] = $0; if ($0 ~ /CETLTS-END [^ ]+ rc=/) { flush(); inp = 0 }; next }
			{ print }
			END { flush() }'
	}
	splat_kinds() {
		splat_lines /dev/stdin | grep -v '^Call Trace:' |
			sed -E 's/^(WARNING|BUG|kernel BUG): CPU: [0-9]+ PID: [0-9]+ at [^ ]*\/([^/: ]+):[0-9]+ ([^+ ]+).*/\1 \2 \3/; s/\[ *[0-9.]+\] //' |
			sort -u
	}
	for m in "$@"; do
		b=$m-$tag-cet-lts
		new_splats=$(comm -13 \
			<(cat "$LOGS/$m-$tag-base"{,-confirm}.serial.log 2>/dev/null | ran_through | splat_kinds) \
			<(cat "$LOGS/$b"{,-confirm}.serial.log 2>/dev/null | ran_through | splat_kinds))
		check "$b: no WARN/BUG/Oops the base did not show" \
			"$(echo "$new_splats" | head -n 1), see $LOGS/$b.serial.log" test -z "$new_splats"
	done
	awk -v logs="${logs# }" -v table="$LOGS/$tag-table" -f "$TOP/scripts/kself.awk" >> "$results"
	;;
*)	die "kself.sh: base, cet-lts, judge or all, not '$what'" ;;
esac
