#!/bin/bash
# make test's check of how a crashed kself boot is reported and resumed
# (scripts/kself.sh, resume-boot.sh, kself.awk): four of 6.1's selftests
# on QEMU, the base and cet-lts, with /init told to power the guest off
# (cetlts.poweroff-at) as one program begins:
#   - the base stops in the second program in its full boot only: that
#     is the base's crash, never a failure of ours;
#   - cet-lts stops in the third program in every boot, confirmation
#     runs included: exactly one failure, that program's, naming the
#     boot and the console's last lines.
# Every program must still have a result on both kernels (the boots are
# resumed after each stop).  Result lines go to $results.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

: "${results:?results: the result file}"
progs=(exec-null-argv exec-recursion-depth futex-functional-futex_wait proc-proc-loadavg-001)
base_stop=${progs[1]} cet_stop=${progs[2]}
cpio=$BUILD/initramfs/kself-crash.cpio
"$TOP/scripts/initramfs.sh" "$cpio" "${progs[@]/#/$BUILD/kselftests/bin/}"

mine=$LOGS/results-kself-crash.tsv
: > "$mine"
(
	results=$mine KSELF_NAME=kself-crash KSELF_CPIO=$cpio KSELF_CACHE=0 KSELF_REPEAT=2 \
	KSELF_INJECT="base=$base_stop cet-lts=$cet_stop cet-lts.confirm=$cet_stop"
	export results KSELF_NAME KSELF_CPIO KSELF_CACHE KSELF_REPEAT KSELF_INJECT
	for what in base cet-lts judge; do
		"$TOP/scripts/kself.sh" $what qemu
	done
) 2>> "$LOGS/kself-crash.out"

name="harness: a simulated kself crash"
row() { awk -F'\t' -v n="$1" '$2 == n' "$mine"; }
# expect WHAT STATUS NAME REGEX: NAME's line has STATUS and matches REGEX.
expect() {
	local l
	l=$(row "$3")
	if [ -n "$l" ] && [ "${l%%$'\t'*}" = "$2" ] && echo "$l" | cut -f3 | grep -qE -- "$4"; then
		result ok "$name: $1"
	else
		result "not ok" "$name: $1" "$(echo "${l:-no line '$3'}" | tr '\t' ' ') (see $LOGS/kself-crash-table)"
	fi
}
expect "the base boot is resumed after the program it stopped in" \
	ok "qemu-kself-crash-base: boot" "stopped: boot=qemu-kself-crash-base prog=$base_stop why=.* \\| console: .*booted again"
expect "the cet-lts boot is resumed after the program it stopped in" \
	ok "qemu-kself-crash-cet-lts: boot" "prog=$cet_stop why="
expect "a crash of the base is not counted against cet-lts" \
	ok "kself[qemu]: $base_stop" "^CRASH on base, PASS on cet-lts .*confirmation boots: 2 PASS on base, 2 PASS on cet-lts"
expect "a crash of cet-lts in every run is one failure, named" \
	"not ok" "kself[qemu]: $cet_stop" "^PASS on base, CRASH on cet-lts .*\\[cet-lts: boot=qemu-kself-crash-cet-lts prog=$cet_stop .*console: .*confirmation boots: 2 PASS on base, 2 CRASH on cet-lts$"
n_rows=$(awk -F'\t' '$2 ~ /^kself\[qemu\]: /' "$mine" | wc -l)
n_bad=$(awk -F'\t' '$1 == "not ok"' "$mine" | wc -l)
check "$name: every program has a result on both kernels, one failure in all" \
	"$n_rows program lines of ${#progs[@]}, $n_bad failures: $(awk -F'\t' '$1 == "not ok" {print $2}' "$mine" | paste -sd,)" \
	test "$n_rows" = "${#progs[@]}" -a "$n_bad" = 1
