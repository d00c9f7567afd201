# 6.1's own selftests on the plain base and on cet-lts, side by side.
# Input: serial logs of kself boots, as "machine/kernel" pairs in the
# variable "logs" ("bochs/base=FILE bochs/cet-lts=FILE ..."), each read
# with getline; no other input.  Output: result lines for make test
# ("ok|not ok|skip<TAB>name<TAB>detail") on stdout, and the table
# (KTAP comments) in the file named by the variable "table".
#
# A program's outcome is its exit status: 0 PASS, 4 SKIP (kselftest's
# KSFT_SKIP), 137 TIMEOUT (killed at /init's limit), other FAIL; a
# program that began and never ended is CRASH (the guest went down in
# it: scripts/resume-boot.sh marks the stop with a CETLTS-STOPPED line,
# saying which boot, why and the console's last lines, and boots again
# after it).  FAIL also counts the program's failure lines ("[FAIL]",
# "not ok N").  A program missing from a column (a boot that could not
# be resumed) gets no line here: that boot's own line in make test
# fails, once, and the table shows "-".
#
# Judged per machine: base PASS or SKIP and cet-lts anything worse is a
# regression (not ok), and so is cet-lts crashing where the base failed;
# both failing is reported, and a regression only if cet-lts prints more
# failure lines than the base did.
#
# Some of 6.1's tests are not deterministic and fail on either kernel
# now and then (ksm_tests' unmerge races with a ksmd pass in progress;
# khugepaged's collapse_compound_extreme fails to fault in a huge page
# in about a third of its runs on QEMU, on the base as on cet-lts).
# So a regression found in the full boots, and any program that crashed
# on either kernel there (a crash of the base says nothing of cet-lts,
# and QEMU 7.2 kills either kernel now and then: configs/kselftests),
# runs again, alone, several times (cetlts.repeat) in one more boot of
# each kernel ("M/base.confirm" and "M/cet-lts.confirm" in logs, when
# make test made them).  It counts only if every confirmation run on
# cet-lts did worse than every one on the base: a program that fails
# some of its runs on the base, or passes some on cet-lts, is reported
# as not deterministic.  Without confirmation logs every difference
# counts.  With mode=confirm, the output is instead the programs that
# need confirmation boots, as "machine<TAB>program" lines.
function outcome(rc) {
	return rc == 0 ? "PASS" : rc == 4 ? "SKIP" : rc == 137 ? "TIMEOUT" : "FAIL"
}
function rank(s) { return s == "PASS" ? 0 : s == "SKIP" ? 1 : s == "CRASH" ? 3 : 2 }
# Base passed or skipped and cet-lts did worse, or the base failed and
# cet-lts crashed: a regression.
function worse(bs, cs) { return rank(cs) > rank(bs) && (rank(bs) < 2 || rank(cs) == 3) }
# The same over the confirmation runs: every cet-lts run worse than
# every base run.
function worse_always(b, c, p) {
	return best[c, p] > worst[b, p] && (worst[b, p] < 2 || best[c, p] == 3)
}
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
	if (rank(s) >= 2 && last != "") why[c, p] = last
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
			} else if (line ~ /^CETLTS-STOPPED /) {
				# The guest stopped in prog; the next boot resumes.
				if (prog != "") {
					if (!((col, prog) in stop)) stop[col, prog] = substr(line, 16)
					ended(col, prog, "CRASH"); prog = ""
				}
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
	if (mode != "confirm") {
		printf "# 6.1 selftests (plain 6.1 base vs cet-lts, same config and initramfs):\n" > table
		hdr = sprintf("# %-44s", "program")
		for (i = 1; i <= n; i++) hdr = hdr sprintf(" %-16s", cols[i])
		print hdr > table
	}
	for (p = 1; p <= np; p++) {
		prog = order[p]; row = sprintf("# %-44s", substr(prog, 1, 44))
		for (i = 1; i <= n; i++) {
			c = cols[i]; s = ((c, prog) in st) ? st[c, prog] : "-"
			if (runs[c, prog] > 1) s = tally(c, prog)
			else if (s != "-" && rank(s) >= 2) s = s "(" nf[c, prog] ")"
			row = row sprintf(" %-16s", s)
		}
		if (mode != "confirm") print row > table
		for (m in machine) {
			b = m "/base"; c = m "/cet-lts"
			# Not run on one side: that boot's own line reports it.
			if (!((b, prog) in st) || !((c, prog) in st)) continue
			name = "kself[" m "]: " prog
			bs = st[b, prog]; cs = st[c, prog]
			confirm = worse(bs, cs) || bs == "CRASH" || cs == "CRASH"
			if (mode == "confirm") { if (confirm) print m "\t" prog; continue }
			d = bs " on base, " cs " on cet-lts"
			bc = m "/base.confirm"; cc = m "/cet-lts.confirm"
			if ((c, prog) in why) d = d " (" lastbit(why[c, prog]) ")"
			if ((b, prog) in stop) d = d " [base: " stop[b, prog] "]"
			if ((c, prog) in stop) d = d " [cet-lts: " stop[c, prog] "]"
			if (confirm && ((cc, prog) in st)) {
				d2 = d "; confirmation boots: " tally(bc, prog) " on base, " \
					tally(cc, prog) " on cet-lts"
				if (!((bc, prog) in st) || worse_always(bc, cc, prog))
					print "not ok\t" name "\t" d2
				else if (worse(bs, cs))
					print "ok\t" name "\t" d2 " (not reproduced in every run: not deterministic)"
				else
					print "ok\t" name "\t" d2 " (the base crashed: cet-lts did not do worse in every run)"
			}
			else if (confirm) print "not ok\t" name "\t" d
			else if (rank(bs) == 2 && rank(cs) == 2 && nf[c, prog] > nf[b, prog])
				print "not ok\t" name "\t" d ", " nf[c, prog] " failure lines, base " nf[b, prog]
			else if (rank(bs) == 2) print "ok\t" name "\t" d " (fails on the base too: not ours)"
			else if (cs == "SKIP") print "skip\t" name "\t" d
			else print "ok\t" name "\t" d
		}
	}
}
