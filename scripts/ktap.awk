# Turn one guest serial log into KTAP result lines, one per test.
# Input: the serial log.  Variables: boot (prefix for test names).
# Output lines: "ok|not ok|skip<TAB>name<TAB>detail".
#
# Each program ran between "CETLTS-BEGIN name" and "CETLTS-END name rc=N".
# Top-level KTAP results inside count one test each; a program without any
# counts as one test judged by its exit status (0 pass, 4 skip).
#
# Mainline's selftest (programs named ml_*) prints "[OK]", "[FAIL]" and
# "[SKIP]" lines instead: each counts as one test. It exits 1 when it
# skips or fails, so only death by a signal, or a non-zero status with
# neither a FAIL nor a SKIP line, counts against it. Variables: cet=1 on
# a boot where the CPU and kernel offer shadow stacks (a SKIP there is a
# failure: the case should have run); xfail, a file of "text<TAB>reason"
# lines naming FAIL lines that are expected (they pass as XFAIL, and the
# same case reporting OK fails: the policy behind it is gone).
function emit(st, name, detail) { printf "%s\t%s\t%s\n", st, name, detail }
BEGIN {
	FS = " "
	while (xfail != "" && (getline line < xfail) > 0) {
		if (line ~ /^#/ || line !~ /\t/) continue
		split(line, f, "\t"); xf[f[1]] = f[2]
	}
}
{ sub(/\r$/, "") }
/^CETLTS-BEGIN / { prog = $2; inprog = 1; nres = 0; nfail = 0; nskip = 0; nxfail = 0; plan = -1; ml = prog ~ /^ml_/; next }
/^CETLTS-END / && inprog && ml {
	rc = $3; sub(/^rc=/, "", rc)
	if (rc >= 128) emit("not ok", boot ": " prog ": exit status", "killed by signal " rc - 128)
	else if (nres == 0 && rc == 0) emit("ok", boot ": " prog, "")
	else if (rc != 0 && nfail + nskip + nxfail == 0) emit("not ok", boot ": " prog ": exit status", "exit status " rc " with no FAIL or SKIP line")
	inprog = 0; next
}
inprog && ml && /^\[(OK|FAIL|SKIP)\]/ {
	tag = substr($0, 2, index($0, "]") - 2); text = substr($0, index($0, "]") + 1)
	gsub(/\t/, " ", text); sub(/^ +/, "", text); sub(/ +$/, "", text)
	name = boot ": " prog ": " text
	nres++
	if (tag == "OK") {
		if (text in xf) { emit("not ok", name, "expected to fail (" xf[text] "), passed"); nfail++ }
		else emit("ok", name, "")
	} else if (tag == "SKIP") {
		nskip++
		if (cet) { emit("not ok", name, "skipped on a CPU and kernel with shadow stacks"); nfail++ }
		else emit("skip", name, "")
	} else if (text in xf) {
		emit("ok", name, "XFAIL " xf[text]); nxfail++
	} else { emit("not ok", name, ""); nfail++ }
	next
}
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
