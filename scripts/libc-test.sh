#!/bin/bash
# libc-test.sh VERSION...: real C libraries built with CET, on cet-lts and
# on mainline 6.12, on the Bochs CET CPU.  Builds the userlands
# (scripts/libc.sh), packs them into one initramfs, boots it on:
#   bochs-libc-VERS           cet-lts, default exec policy ("the C library
#                             decides")
#   bochs-libc-VERS-6.12      mainline 6.12 (make reference)
#   bochs-libc-VERS-elf       cet-lts with cet_exec=elf_property (only with
#                             2.36: the 2018 behaviour old glibc was made for)
# and judges the table (scripts/libc.awk).  Writes result lines to
# $results when make test's test.sh calls it (LIBC_RESULTS), else prints
# KTAP and the closing line (make release-check).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: libc-test.sh VERSION..."
vers=$(echo "$@" | tr ' ' '+')
kernel=$BUILD/bzImage
ref_kernel=$BUILD/kernel-reference/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no cet-lts kernel: make kernel"
[ -f "$ref_kernel" ] || die "no mainline 6.12 kernel: make reference"
standalone=
if [ -z "${LIBC_RESULTS:-}" ]; then
	standalone=1
	results=$LOGS/results-libc-$vers.tsv
	: > "$results"
else
	results=$LIBC_RESULTS
fi

"$TOP/scripts/libc.sh" "$@" >&2 || {
	result "not ok" "libc[$vers]: the userlands build" "see the lines above"
	[ -n "$standalone" ] && { ktap_report; ktap_summary "libc"; }
	exit 1
}
cpio=$BUILD/initramfs/libc-$vers.cpio.xz
specs=("$TOP/guest/libc/libc-test" "@$TOP/guest/libc/libc-chroot")
for v in "$@"; do specs+=("^$BUILD/libc-$v/root=glibc-$v"); done
"$TOP/scripts/initramfs.sh" "$cpio" "${specs[@]}" ||
	die "libc: cannot pack $cpio"

cols=
libc_boot() {	# libc_boot NAME KERNEL COLUMN [CMDLINE...]
	local name=$1 k=$2 column=$3 log=$LOGS/$1.serial.log; shift 3
	if "$TOP/scripts/boot.sh" bochs "$name" "$k" "$cpio" "$@"; then
		result ok "$name: boot"
	else
		result "not ok" "$name: boot" "did not finish, see $log"
	fi
	# Our kernel's log must be clean; mainline's is not ours to judge.
	if [ "$column" != 6.12 ] && [ -s "$log" ]; then
		check "$name: no WARN/BUG/Oops in the kernel log" \
			"$(splat_lines "$log" | head -n 1), see $log" clean_log "$log"
	fi
	cols="$cols $column=$log"
}
libc_boot "bochs-libc-$vers" "$kernel" cet-lts
libc_boot "bochs-libc-$vers-6.12" "$ref_kernel" 6.12
case " $* " in
*" 2.36 "*) libc_boot "bochs-libc-$vers-elf" "$kernel" cet-lts/elf_property cet_exec=elf_property ;;
esac

table=$LOGS/libc-table-$vers
awk -v cols="${cols# }" -f "$TOP/scripts/libc.awk" > "$LOGS/libc-$vers.out"
grep '^# ' "$LOGS/libc-$vers.out" > "$table" || true
grep -v '^# ' "$LOGS/libc-$vers.out" >> "$results"
if [ -n "$standalone" ]; then
	ktap_report
	cat "$table"
	ktap_summary "libc"
fi
