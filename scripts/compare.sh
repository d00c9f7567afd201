#!/bin/bash
# Print mainline's selftest results side by side, as KTAP comments:
# cet-lts on the CET CPU (bochs-cet) and mainline 6.12 on the same CPU.
#
#   compare.sh OURS.tsv REFERENCE.tsv
set -uo pipefail
awk -F'\t' '
	function st(s, d) { return s == "ok" ? (d ~ /^XFAIL/ ? "XFAIL" : "OK") : s == "skip" ? "SKIP" : "FAIL" }
	FNR == 1 { file++ }
	file == 1 && $2 !~ /^bochs-cet: ml_/ { next }
	file == 2 && $2 !~ /^reference: ml_/ { next }
	{ k = $2; sub(/^[^:]*: /, "", k)
	  if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	  if (file == 1) a[k] = st($1, $3); else b[k] = st($1, $3) }
	END {
		if (!n) exit
		printf "# mainline test_shadow_stack (Debian 6.12), Bochs tigerlake:\n"
		printf "# %-62s %-8s %s\n", "case", "cet-lts", "mainline"
		for (i = 1; i <= n; i++) {
			k = order[i]
			printf "# %-62s %-8s %s\n", substr(k, 1, 62),
				(k in a) ? a[k] : "-", (k in b) ? b[k] : "-"
		}
	}' "$1" "$2"
