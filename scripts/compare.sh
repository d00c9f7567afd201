#!/bin/bash
# Mainline's selftest results on cet-lts (bochs-cet) against mainline 6.12
# on the same CPU (reference), matched case by case.
#
#   compare.sh table OURS.tsv REFERENCE.tsv
#	print them side by side, as KTAP comments
#   compare.sh missing OURS.tsv REFERENCE.tsv
#	print the cases mainline passes and cet-lts does not; exit 1 if any
set -uo pipefail
mode=$1 ours=$2 ref=$3
awk -F'\t' -v mode="$mode" '
	function st(s, d) { return s == "ok" ? (d ~ /^XFAIL/ ? "XFAIL" : "OK") : s == "skip" ? "SKIP" : "FAIL" }
	FNR == 1 { file++ }
	file == 1 && $2 !~ /^bochs-cet: ml_/ { next }
	file == 2 && $2 !~ /^reference: ml_/ { next }
	{ k = $2; sub(/^[^:]*: /, "", k)
	  if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	  if (file == 1) { a[k] = st($1, $3); aok[k] = $1 == "ok" }
	  else { b[k] = st($1, $3); bok[k] = $1 == "ok" } }
	END {
		if (mode == "missing") {
			for (i = 1; i <= n; i++)
				if (bok[order[i]] && !aok[order[i]]) { printf "%s; ", order[i]; bad = 1 }
			exit bad
		}
		if (!n) exit
		printf "# mainline test_shadow_stack (Debian 6.12), Bochs tigerlake:\n"
		printf "# %-62s %-8s %s\n", "case", "cet-lts", "mainline"
		for (i = 1; i <= n; i++) {
			k = order[i]
			printf "# %-62s %-8s %s\n", substr(k, 1, 62),
				(k in a) ? a[k] : "-", (k in b) ? b[k] : "-"
		}
	}' "$ours" "$ref"
