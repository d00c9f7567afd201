# Apply emulator/differences to the result lines of one boot on emulator
# emu ("STATUS<TAB>BOOT: PROG: TEST<TAB>DETAIL"; an entry's ERE is matched
# against "PROG: TEST").  Variables: emu, known (the file), mode:
#   xfail   a failure listed as emu's error passes, as an XFAIL
#           (scripts/test.sh);
#   strict  a skip fails, with skipwhy as its detail, unless it is listed
#           for emu (scripts/stress.sh: there every case must run).
function listed(name,  t, i) {
	t = name; sub(/^[^:]*: /, "", t)
	for (i = 1; i <= n; i++)
		if (t ~ re[i]) return i
	return 0
}
BEGIN {
	FS = OFS = "\t"
	while (emu != "" && (getline l < known) > 0)
		if (l !~ /^#/ && split(l, f, "\t") >= 3 && f[2] == emu) {
			re[++n] = f[1]; why[n] = f[3]
		}
}
mode == "xfail" && $1 == "not ok" && (i = listed($2)) {
	$1 = "ok"; $3 = "XFAIL " emu " is wrong here (emulator/differences): " why[i]
}
mode == "strict" && $1 == "skip" && !listed($2) {
	$1 = "not ok"; $3 = skipwhy ($3 != "" ? ": " $3 : "")
}
{ print }
