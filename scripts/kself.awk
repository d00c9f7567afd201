# 6.1's own selftests on the plain base and on cet-lts, side by side.
# Input: serial logs of kself boots, as "machine/kernel" pairs in the
# variable "logs" ("bochs/base=FILE bochs/cet-lts=FILE ..."), each read
# with getline; no other input.  Output: result lines for make test
# ("ok|not ok|skip<TAB>name<TAB>detail") on stdout, and the table
# (KTAP comments) in the file named by the variable "table".
#
# A program's outcome is its exit status: 0 PASS, 4 SKIP (kselftest's
# KSFT_SKIP), 137 TIMEOUT (killed at /init's limit), other FAIL; a
# program that began and never ended is CRASH (the guest went down).
# FAIL also counts the program's failure lines ("[FAIL]", "not ok N").
#
# Judged per machine: base PASS or SKIP and cet-lts anything worse is a
# regression (not ok); both failing is reported, and a regression only
# if cet-lts prints more failure lines than the base did.
#
# Some of 6.1's tests are not deterministic and fail on either kernel
# now and then (ksm_tests' unmerge races with a ksmd pass in progress;
# khugepaged's collapse_compound_extreme fails to fault in a huge page
# in about a third of its runs on QEMU, on the base as on cet-lts).
# So a regression found in the full boots runs again, alone, several
# times (cetlts.repeat) in one more boot of each kernel ("M/base.confirm"
# and "M/cet-lts.confirm" in logs, when make test made them).  It counts
# only if every confirmation run on cet-lts did worse than every one on
# the base: a program that fails some of its runs on the base, or passes
# some on cet-lts, is reported as not deterministic.  Without
# confirmation logs every difference counts.
function outcome(rc) {
	return rc == 0 ? "PASS" : rc == 4 ? "SKIP" : rc == 137 ? "TIMEOUT" : "FAIL"
}
function rank(s) { return s == "PASS" ? 0 : s == "SKIP" ? 1 : 2 }
# Base passed or skipped, cet-lts did worse: a regression.
function worse(bs, cs) { return rank(bs) < 2 && rank(cs) > rank(bs) }
# How a column's runs of a program went: "3 PASS" or "2 FAIL, 1 PASS".
function tally(c, p,   s, k, out) {
	for (k = 0; k < 5; k++) {
		s = k == 0 ? "PASS" : k == 1 ? "SKIP" : k == 2 ? "FAIL" : k == 3 ? "TIMEOUT" : "CRASH"
		if ((c, p, s) in cnt) out = out (out == "" ? "" : ", ") cnt[c, p, s] " " s
	}
	return out == "" ? "missing" : out
}
# A column's end of a run: its outcome, counted; the best and worst rank
# over the column's runs; what a failing run printed last ("last").
function ended(c, p, s) {
	st[c, p] = s; cnt[c, p, s]++; runs[c, p]++
	if (!((c, p) in best) || rank(s) < best[c, p]) best[c, p] = rank(s)
	if (!((c, p) in worst) || rank(s) > worst[c, p]) worst[c, p] = rank(s)
	if (rank(s) == 2 && last != "") why[c, p] = last
}
# The end of a progress line ("\r"-separated updates): at most 60 chars.
function lastbit(l) {
	sub(/.*\r/, "", l); gsub(/\t/, " ", l)
	return length(l) > 60 ? "..." substr(l, length(l) - 59) : l
}
BEGIN {
	n = split(logs, spec, " ")
	for (i = 1; i <= n; i++) {
		eq = index(spec[i], "="); col = substr(spec[i], 1, eq - 1); file = substr(spec[i], eq + 1)
		split(col, mk, "/"); machine[mk[1]] = 1; cols[i] = col
		prog = ""
		while ((getline line < file) > 0) {
			sub(/\r$/, "", line)
			if (line ~ /^CETLTS-BEGIN /) {
				if (prog != "") ended(col, prog, "CRASH")
				split(line, w, " "); prog = w[2]; nf[col, prog] = 0; last = ""
				if (!(prog in seen)) { seen[prog] = 1; order[++np] = prog }
			} else if (prog != "" && match(line, /CETLTS-END [^ ]+ rc=[0-9]+/)) {
				# Also after output that did not end its line.
				split(substr(line, RSTART, RLENGTH), w, " "); rc = w[3]; sub(/^rc=/, "", rc)
				if (RSTART > 1 && !nf[col, prog]) last = substr(line, 1, RSTART - 1)
				ended(col, prog, outcome(rc + 0)); prog = ""
			} else if (prog != "") {
				# The first failure line, else the last line of output.
				if (line ~ /\[FAIL\]|^not ok [0-9]/ && !nf[col, prog]++) last = line
				else if (line ~ /[^ \t\r]/ && !nf[col, prog]) last = line
			}
		}
		if (prog != "") ended(col, prog, "CRASH")
		close(file)
	}
	printf "# 6.1 selftests (plain 6.1 base vs cet-lts, same config and initramfs):\n" > table
	hdr = sprintf("# %-44s", "program")
	for (i = 1; i <= n; i++) hdr = hdr sprintf(" %-16s", cols[i])
	print hdr > table
	for (p = 1; p <= np; p++) {
		prog = order[p]; row = sprintf("# %-44s", substr(prog, 1, 44))
		for (i = 1; i <= n; i++) {
			c = cols[i]; s = ((c, prog) in st) ? st[c, prog] : "-"
			if (runs[c, prog] > 1) s = tally(c, prog)
			else if (s == "FAIL" || s == "TIMEOUT" || s == "CRASH") s = s "(" nf[c, prog] ")"
			row = row sprintf(" %-16s", s)
		}
		print row > table
		for (m in machine) {
			b = m "/base"; c = m "/cet-lts"
			if (!((b, prog) in st) && !((c, prog) in st)) continue
			name = "kself[" m "]: " prog
			bs = ((b, prog) in st) ? st[b, prog] : "missing"
			cs = ((c, prog) in st) ? st[c, prog] : "missing"
			d = bs " on base, " cs " on cet-lts"
			bc = m "/base.confirm"; cc = m "/cet-lts.confirm"
			if ((c, prog) in why) d = d " (" lastbit(why[c, prog]) ")"
			if (bs == "missing") print "not ok\t" name "\t" d " (the base boot did not run it)"
			else if (worse(bs, cs) && ((cc, prog) in st)) {
				d2 = d "; confirmation boots: " tally(bc, prog) " on base, " \
					tally(cc, prog) " on cet-lts"
				# Every cet-lts run worse than every base run.
				if (!((bc, prog) in st) ||
				    (worst[bc, prog] < 2 && best[cc, prog] > worst[bc, prog]))
					print "not ok\t" name "\t" d2
				else
					print "ok\t" name "\t" d2 " (not reproduced in every run: not deterministic)"
			}
			else if (worse(bs, cs)) print "not ok\t" name "\t" d
			else if (rank(bs) == 2 && rank(cs) == 2 && nf[c, prog] > nf[b, prog])
				print "not ok\t" name "\t" d ", " nf[c, prog] " failure lines, base " nf[b, prog]
			else if (rank(bs) == 2) print "ok\t" name "\t" d " (fails on the base too: not ours)"
			else if (cs == "SKIP") print "skip\t" name "\t" d
			else print "ok\t" name "\t" d
		}
	}
}
