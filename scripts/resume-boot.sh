#!/bin/bash
# Boot like boot.sh, and when the guest stops in one of its programs
# (a crash, a power-off, a hang up to the timeout), boot again with
# cetlts.resume=N so that /init starts after the run it stopped in: one
# crashed program no longer takes every later one with it.
#
#   resume-boot.sh EMU NAME KERNEL INITRD [EXTRA CMDLINE...]
#
# $LOGS/NAME.serial.log is then the boots' serial logs one after the
# other (NAME.part1.serial.log, NAME.part2...), each stop marked by one
# line that scripts/kself.awk reads:
#   CETLTS-STOPPED boot=PART prog=PROG why=... | console: L1 | L2 | L3
# (PART: NAME for the first boot, NAME.resumeK for the Kth boot again)
# (the last three lines the console showed after PROG began).  A guest
# that stops outside a program (before the first or after the last) is
# not booted again.  At most RESUMES (default 10) boots more.
# $LOGS/NAME.stops has one line per stop: "PROG<TAB>the marker's text";
# $LOGS/NAME.why, boot.sh's reason when the last boot did not finish.
# Exit 0 when the last boot reached the end of /init.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

emu=$1 name=$2 kernel=$3 initrd=$4; shift 4
max=${RESUMES:-10}
joined=$LOGS/$name.serial.log
rm -f "$LOGS/$name".part*.serial.log
: > "$LOGS/$name.stops"

# stop_line LOG PART: prints "RAN<TAB>PROG<TAB>MARKER": the runs that
# began in LOG, the program the boot stopped in and its marker line
# (PROG and MARKER empty when it stopped outside any program).
stop_line() {
	tr -d '\r' < "$1" | awk -v part="$2" -v why="$(cat "$BUILD/boot/$2/why" 2>/dev/null)" '
		/^CETLTS-BEGIN / { prog = $2; ran++; n = 0; next }
		/CETLTS-END [^ ]+ rc=/ { prog = ""; next }
		prog != "" && /[^ \t]/ { t[n++ % 3] = substr($0, 1, 100) }
		END {
			printf "%d\t%s\t", ran, prog
			if (prog == "") exit
			printf "CETLTS-STOPPED boot=%s prog=%s why=%s | console:", part, prog, why
			for (i = (n > 3 ? n - 3 : 0); i < n; i++) printf " %s%s", t[i % 3], (i < n - 1 ? " |" : "")
		}'
}

done_runs=0 k=1 part=$name rc=1
: > "$joined.new"
while :; do
	resume=()
	[ "$done_runs" -gt 0 ] && resume=("cetlts.resume=$done_runs")
	"$TOP/scripts/boot.sh" "$emu" "$part" "$kernel" "$initrd" "$@" "${resume[@]}" &&
		rc=0 || rc=1
	plog=$LOGS/$part.serial.log
	if [ "$k" -gt 1 ] || [ $rc = 1 ]; then
		mv "$plog" "$LOGS/$name.part$k.serial.log"
		plog=$LOGS/$name.part$k.serial.log
	fi
	cat "$plog" >> "$joined.new"
	[ $rc = 0 ] && break
	IFS=$'\t' read -r ran prog marker < <(stop_line "$plog" "$part")
	if [ -z "$prog" ]; then
		log "boot[$part]: stopped outside any program: not booted again"
		break
	fi
	echo "$marker" >> "$joined.new"
	printf '%s\t%s\n' "$prog" "$marker" >> "$LOGS/$name.stops"
	done_runs=$((done_runs + ran))
	if [ "$k" -gt "$max" ]; then
		log "boot[$name]: stopped $k times, the limit (RESUMES=$max): not booted again"
		break
	fi
	part=$name.resume$k
	k=$((k + 1))
	log "boot[$name]: stopped in $prog: booting again after its run ($part)"
done
mv "$joined.new" "$joined"
rm -f "$LOGS/$name.why"
[ $rc = 0 ] || cp "$BUILD/boot/$part/why" "$LOGS/$name.why" 2>/dev/null
exit $rc
