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
# Some of 6.1's tests are not deterministic (ksm_tests' unmerge races
# with a ksmd pass in progress; in a 1 GiB guest, khugepaged's
# collapse_compound_extreme ran out of huge pages) and fail on either
# kernel now and then.
# So a regression found in the full boots is run again, alone, in one
# more boot of each kernel ("M/base.confirm" and "M/cet-lts.confirm" in
# logs, when make test made them): it counts only if the confirmation
# boots show it again.  Without confirmation logs every difference
# counts.
function outcome(rc) {
	return rc == 0 ? "PASS" : rc == 4 ? "SKIP" : rc == 137 ? "TIMEOUT" : "FAIL"
}
function rank(s) { return s == "PASS" ? 0 : s == "SKIP" ? 1 : 2 }
# Base passed or skipped, cet-lts did worse: a regression.
function worse(bs, cs) { return rank(bs) < 2 && rank(cs) > rank(bs) }
BEGIN {
	n = split(logs, spec, " ")
	for (i = 1; i <= n; i++) {
		eq = index(spec[i], "="); col = substr(spec[i], 1, eq - 1); file = substr(spec[i], eq + 1)
		split(col, mk, "/"); machine[mk[1]] = 1; cols[i] = col
		prog = ""
		while ((getline line < file) > 0) {
			sub(/\r$/, "", line)
			if (line ~ /^CETLTS-BEGIN /) {
				split(line, w, " "); prog = w[2]; st[col, prog] = "CRASH"; nf[col, prog] = 0
				if (!(prog in seen)) { seen[prog] = 1; order[++np] = prog }
			} else if (prog != "" && match(line, /CETLTS-END [^ ]+ rc=[0-9]+/)) {
				# Also after output that did not end its line.
				split(substr(line, RSTART, RLENGTH), w, " "); rc = w[3]; sub(/^rc=/, "", rc)
				st[col, prog] = outcome(rc + 0); prog = ""
			} else if (prog != "" && line ~ /\[FAIL\]|^not ok [0-9]/) {
				nf[col, prog]++
			}
		}
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
			if (s == "FAIL" || s == "TIMEOUT" || s == "CRASH") s = s "(" nf[c, prog] ")"
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
			if (bs == "missing") print "not ok\t" name "\t" d " (the base boot did not run it)"
			else if (worse(bs, cs) && ((cc, prog) in st)) {
				bs2 = ((bc, prog) in st) ? st[bc, prog] : "missing"
				cs2 = st[cc, prog]
				d2 = d "; confirmation boots: " bs2 " on base, " cs2 " on cet-lts"
				if (bs2 == "missing" || worse(bs2, cs2))
					print "not ok\t" name "\t" d2
				else
					print "ok\t" name "\t" d2 " (not reproduced: not deterministic)"
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
