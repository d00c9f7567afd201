# Turn one guest serial log into KTAP result lines, one per test.
# Input: the serial log.  Variables: boot (prefix for test names).
# Output lines: "ok|not ok|skip<TAB>name<TAB>detail".
#
# Each program ran between "CETLTS-BEGIN name" and "CETLTS-END name rc=N".
# Top-level KTAP results inside count one test each; a program without any
# counts as one test judged by its exit status (0 pass, 4 skip).
function emit(st, name, detail) { printf "%s\t%s\t%s\n", st, name, detail }
{ sub(/\r$/, "") }
/^CETLTS-BEGIN / { prog = $2; inprog = 1; nres = 0; nfail = 0; plan = -1; next }
/^CETLTS-END / && inprog {
	rc = $3; sub(/^rc=/, "", rc)
	if (nres == 0) {
		if (rc == 0) emit("ok", boot ": " prog, "")
		else if (rc == 4) emit("skip", boot ": " prog, "exit status 4")
		else emit("not ok", boot ": " prog, "exit status " rc)
	} else {
		if (plan >= 0 && plan != nres)
			emit("not ok", boot ": " prog ": plan", "planned " plan " tests, ran " nres)
		if (rc != 0 && rc != 4 && nfail == 0)
			emit("not ok", boot ": " prog ": exit status", "exit status " rc " with no failed test")
	}
	inprog = 0; next
}
inprog && /^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; next }
inprog && /^(not )?ok [0-9]+/ {
	line = $0; st = "ok"; num = $2
	if (line ~ /^not ok/) { st = "not ok"; num = $3; sub(/^not ok [0-9]+ ?(- )?/, "", line) }
	else sub(/^ok [0-9]+ ?(- )?/, "", line)
	detail = ""
	# A directive ("# SKIP why") may follow the name or stand in for it.
	if (match(line, /(^| )# /)) {
		detail = substr(line, RSTART + RLENGTH); line = substr(line, 1, RSTART - 1)
		if (toupper(detail) ~ /^SKIP/ && st == "ok") st = "skip"
	}
	if (line == "") line = "test " num
	nres++; if (st == "not ok") nfail++
	emit(st, boot ": " prog ": " line, detail)
	next
}
END {
	if (inprog) emit("not ok", boot ": " prog, "did not finish (guest died or timed out in it)")
}
