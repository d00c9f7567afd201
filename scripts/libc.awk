# libc.awk: the C library table and its verdicts, from the serial logs of
# the libc boots (guest/libc/run.sh prints "CETLIBC-ROW LIBC SETTING CASE
# STATE RESULT").
#
#   awk -v cols="NAME=LOG ..." -f libc.awk
#
# NAME is a column's kernel: "cet-lts" (the series, default exec policy),
# "6.12" (mainline, the reference) or "cet-lts/elf_property" (the series
# booted with cet_exec=elf_property).  Prints the table as "# " lines,
# then one "STATUS<TAB>NAME<TAB>DETAIL" result line per verdict:
#   - every cell of cet-lts equals mainline's (same CET state, same result);
#   - under the default policy nothing runs with shadow stack, every case
#     passes, the unmarked library loads and the attack works (what a
#     kernel without CET does);
#   - where a setting asks glibc for shadow stack, mainline gives it (or
#     the comparison would prove nothing), and the attack is stopped;
#   - under cet_exec=elf_property every case runs with shadow stack on and
#     passes; the attack is stopped; dlopen() of the unmarked library may
#     be refused, by glibc, after it locked CET, with its own message
#     ("rebuild shared object with IBT|SHSTK support enabled"); each
#     refusal's message is printed under the table.
function res(st, name, detail) { printf "%s\t%s\t%s\n", st, name, detail }
# A cell the runner filled in: a state and a result.
function whole(cell) { return cell ~ /^[^?:][^:]*:[^:]+$/ }
function has_shstk(cell) { return cell ~ /^([^:]*\+)?shstk(\+[^:]*)?:/ }
# glibc's refusal of a library not built for a CET feature it has locked
function cet_refusal(m) { return m ~ /rebuild_shared_object_with_(IBT|SHSTK)_support_enabled/ }
function passed(c, cell, m,   r) {
	r = cell; sub(/^[^:]*:/, "", r)
	if (c == "overwrite") return r == "stopped"
	if (c == "dlopen") return r == "loaded" || (r == "refused" && cet_refusal(m))
	return r == "ok"
}
BEGIN {
	ncol = split(cols, colspec, " ")
	for (i = 1; i <= ncol; i++) {
		eq = index(colspec[i], "=")
		col[i] = substr(colspec[i], 1, eq - 1)
		file = substr(colspec[i], eq + 1)
		while ((getline line < file) > 0) {
			sub(/\r$/, "", line)
			if (line !~ /^CETLIBC-ROW /) continue
			split(line, f, " ")
			L = f[2]; S = f[3]; C = f[4]
			cell[col[i], L, S, C] = f[5] ":" f[6]
			if (f[6] == "refused") msg[col[i], L, S, C] = f[7]
			if (!((L, S) in seen_ls)) { seen_ls[L, S]; ls[++nls] = L SUBSEP S }
			if (!((L, C) in seen_lc)) { seen_lc[L, C]; lc[++nlc] = L SUBSEP C }
			if (!(L in seen_l)) { seen_l[L]; lib[++nl] = L }
		}
		close(file)
	}
	# The table: one block per C library, a row per case, a column per
	# (kernel, setting) with "STATE:RESULT".
	for (l = 1; l <= nl; l++) {
		L = lib[l]
		hdr = sprintf("%-10s", "glibc " L)
		for (i = 1; i <= ncol; i++)
			for (k = 1; k <= nls; k++) {
				split(ls[k], p, SUBSEP)
				if (p[1] == L && (col[i], L, p[2], "startup") in cell)
					hdr = hdr sprintf(" %-24s", col[i] "," p[2])
			}
		print "# " hdr
		for (r = 1; r <= nlc; r++) {
			split(lc[r], q, SUBSEP)
			if (q[1] != L) continue
			row = sprintf("%-10s", q[2])
			for (i = 1; i <= ncol; i++)
				for (k = 1; k <= nls; k++) {
					split(ls[k], p, SUBSEP)
					if (p[1] == L && (col[i], L, p[2], "startup") in cell)
						row = row sprintf(" %-24s", ((col[i], L, p[2], q[2]) in cell) ? cell[col[i], L, p[2], q[2]] : "(none)")
				}
			print "# " row
		}
		for (m in msg) {
			split(m, q, SUBSEP)
			if (q[2] == L)
				print "# " q[4] " refused on " q[1] "," q[3] ": " msg[m]
		}
	}
	for (i = 1; i <= ncol; i++) have[col[i]] = 1
	for (k = 1; k <= nls; k++) {
		split(ls[k], p, SUBSEP); L = p[1]; S = p[2]
		for (r = 1; r <= nlc; r++) {
			split(lc[r], q, SUBSEP)
			if (q[1] != L) continue
			C = q[2]
			a = cell["cet-lts", L, S, C]; m = cell["6.12", L, S, C]
			e = cell["cet-lts/elf_property", L, S, C]
			if (have["cet-lts"] && have["6.12"])
				res(whole(a) && a == m ? "ok" : "not ok",
				    "libc[glibc " L " " S "]: " C ": as on mainline 6.12",
				    whole(a) && a == m ? "" : "cet-lts " (a == "" ? "(none)" : a) ", 6.12 " (m == "" ? "(none)" : m))
			if (have["cet-lts"] && S == "default")
				res(a != "" && !has_shstk(a) && (C == "overwrite" ? a ~ /:hijacked$/ : C == "dlopen" ? a ~ /:loaded$/ : passed(C, a)) ? "ok" : "not ok",
				    "libc[glibc " L " default]: " C ": shadow stack off, runs as without CET",
				    "cet-lts " (a == "" ? "(none)" : a))
			if (have["6.12"] && S != "default" && C == "startup")
				res(has_shstk(m) ? "ok" : "not ok",
				    "libc[glibc " L " " S "]: mainline 6.12 runs it with shadow stack on",
				    "6.12 " (m == "" ? "(none)" : m))
			if (have["cet-lts"] && S != "default" && C == "overwrite" && has_shstk(a))
				res(a ~ /:stopped$/ ? "ok" : "not ok",
				    "libc[glibc " L " " S "]: cet-lts stops the return-address overwrite", "cet-lts " a)
			# (tested with "in": a plain msg[...] would create the entry)
			em = (("cet-lts/elf_property", L, S, C) in msg) ? msg["cet-lts/elf_property", L, S, C] : ""
			if (have["cet-lts/elf_property"])
				res(e != "" && has_shstk(e) && passed(C, e, em) ? "ok" : "not ok",
				    "libc[glibc " L " " S ", cet_exec=elf_property]: " C ": shadow stack on, passes",
				    "cet-lts " (e == "" ? "(none)" : e) (em != "" ? " " em : ""))
		}
	}
	if (!nls)
		res("not ok", "libc: the boots printed results", "no CETLIBC-ROW line in " cols)
}
