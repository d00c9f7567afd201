#!/bin/bash
# make bench: guest TSC cycles per operation (guest/bench.c) on three
# kernels built from the same config fragments, each booted BOOTS times on the
# CET CPU (Bochs 3.0, tigerlake, fixed ips, clock sync=none):
#
#   cet-lts      the series (configs/cet.config)   shadow stack off and on
#   cet-lts-off  the series, X86_USER_SHADOW_STACK=n (configs/cet-off.config)
#   mainline     Debian's linux-source-6.12 (make reference), off and on
#
# Writes build/bench/results.csv (operation,kernel,shadow_stack,cycles:
# the median over BOOTS boots of each boot's median of REPS samples;
# every boot's in build/bench/boots.csv), build/bench/results.svg, and
# prints a table with the ratios b/a (cost of the shadow stack), a/d
# (cost of the option for a task without one), b/mainline-b and
# mainline's own b/a.  Serial logs: build/logs/bench-KERNEL-N.serial.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

reps=${REPS:-11}
boots=${BOOTS:-3}
emu=${EMU:-bochs}
# BENCH_OUT: another output directory (make test's smoke run); its name
# also names the boots and the initramfs.
out=${BENCH_OUT:-$BUILD/bench}
tag=$(basename "$out")
hdr=$BUILD/kernel-cet/usr/include
mkdir -p "$out"
need_cmd gcc build-essential
need_cmd gnuplot gnuplot-nox
[ -f "$hdr/asm/prctl.h" ] || die "no UAPI headers in $hdr: run 'make selftests'"

# The guest programs: unmarked, so no kernel enables the shadow stack at
# exec; bench.c enables it itself for its second half.
build_static "$out/bench" "$TOP/guest/bench.c" -pthread -fcf-protection=none -isystem "$hdr"
build_static "$out/bench-exit" "$TOP/guest/bench-exit.S" -nostdlib
for p in bench bench-exit; do
	! shstk_marked "$out/$p" || die "$out/$p carries a SHSTK marker; it must not"
done
"$TOP/scripts/initramfs.sh" "$BUILD/initramfs/$tag.cpio" \
	"$out/bench=$reps" "@$out/bench-exit"

kernels=(cet-lts:kernel-cet cet-lts-off:kernel-cet-off mainline:kernel-reference)
csv=$out/results.csv raw=$out/boots.csv
echo "operation,kernel,shadow_stack,boot,cycles" > "$raw.new"
bad=0
# check_run NAME LOG: the run finished, without splat, with the shadow
# stack on exactly where the kernel has it (on a CPU with CET: not when
# EMU=qemu, TCG has none).
check_run() {
	local name=$1 log=$2 want=on got
	if grep -E '^BENCH-(ERROR|DONE error)' "$log" >&2; then
		echo "bench[$name]: the benchmark failed (log: $log)" >&2
		return 1
	fi
	if splat_lines "$log" >/dev/null; then
		echo "bench[$name]: kernel splat in $log" >&2
		return 1
	fi
	[ "$name" = cet-lts-off ] && want=absent
	[ "$emu" = qemu ] && want=absent
	got=$(awk '$1 == "BENCH-SHSTK" { print $2 }' "$log")
	if [ "$got" != "$want" ]; then
		echo "bench[$name]: shadow stack ${got:-not reported}, expected $want (log: $log)" >&2
		return 1
	fi
}
for k in "${kernels[@]}"; do
	name=${k%%:*} image=$BUILD/${k#*:}/arch/x86/boot/bzImage
	[ -f "$image" ] || die "no $name kernel at $image (make bench builds it)"
	for i in $(seq "$boots"); do
		log "bench[$name]: boot $i of $boots on $emu ($reps samples per operation)"
		run=$name-$i
		if ! "$TOP/scripts/boot.sh" "$emu" "$tag-$run" "$image" \
			"$BUILD/initramfs/$tag.cpio" norandmaps; then
			bad=1; continue
		fi
		tr -d '\r' < "$LOGS/$tag-$run.serial.log" > "$out/$run.log"
		check_run "$name" "$out/$run.log" || bad=1
		awk -v k="$name" -v i="$i" '$1 == "BENCH" { print $2 "," k "," $3 "," i "," $4 }' \
			"$out/$run.log" >> "$raw.new"
	done
	grep -m1 '^BENCH-CALIBRATE' "$out/$name-1.log" 2>/dev/null |
		sed "s/^BENCH-CALIBRATE/# $name: TSC:/" >&2 || true
done
mv "$raw.new" "$raw"
# The median over the boots of each boot's median.
{
	echo "operation,kernel,shadow_stack,cycles"
	awk -F, 'NR > 1 {
		key = $1 "," $2 "," $3
		if (!(key in n)) order[++keys] = key
		v[key, ++n[key]] = $5
	}
	END {
		for (j = 1; j <= keys; j++) {
			key = order[j]; m = n[key]
			for (x = 1; x <= m; x++) s[x] = v[key, x]
			for (x = 2; x <= m; x++)	# insertion sort, m is small
				for (y = x; y > 1 && s[y - 1] > s[y]; y--) {
					t = s[y]; s[y] = s[y - 1]; s[y - 1] = t
				}
			print key "," s[int((m + 1) / 2)]
		}
	}' "$raw"
} > "$csv"
[ "$bad" = 0 ] || die "make bench: a run failed, $csv holds what was measured"
# Every kernel gave its rows, shadow stack on too where the CPU has CET.
for kv in cet-lts,0 cet-lts-off,0 mainline,0 $([ "$emu" = qemu ] || echo cet-lts,1 mainline,1); do
	grep -q "^[^,]*,$kv," "$csv" || die "make bench: no $kv rows in $csv"
done

# The table, and the chart's data in the same row order.
config=$(grep -m1 '^cpu:' "$BUILD/boot/$tag-cet-lts-1/bochsrc" 2>/dev/null || echo "EMU=$emu")
ops=$(grep '^BENCH-OP' "$out/cet-lts-1.log" | sed 's/^BENCH-OP //' | paste -sd';' | sed 's/;/; /g')
echo "# $config; median of $boots boots x median of $reps samples; iterations per sample: $ops"
awk -F, -v dat="$out/results.dat" '
	NR == 1 { next }
	!($1 in seen) { seen[$1] = 1; order[++n] = $1 }
	{ c[$1, $2, $3] = $4 }
	function v(op, k, s) { return ((op, k, s) in c) ? c[op, k, s] : "" }
	function r(x, y, lim,   q) {
		if (x == "" || y == "" || y == 0) return "-"
		q = x / y
		return sprintf("%.3f%s", q, (lim != "" && q > lim + 0.0005) ? "*" : "")
	}
	function cell(x) { return x == "" ? "-" : x }
	function diff(x, y) { return (x == "" || y == "") ? "-" : sprintf("%+d", x - y) }
	END {
		printf "%-17s %8s %8s %8s %8s %8s | %6s %6s %6s %6s | %7s %7s\n", "operation", \
		       "a", "b", "d", "ml-a", "ml-b", "b/a", "a/d", "b/ml-b", \
		       "ml b/a", "b-a", "ml b-a"
		print "# operation cet-lts-off cet-lts:0 cet-lts:1 mainline:0 mainline:1" > dat
		for (i = 1; i <= n; i++) {
			o = order[i]
			a = v(o, "cet-lts", 0); b = v(o, "cet-lts", 1)
			d = v(o, "cet-lts-off", 0)
			ma = v(o, "mainline", 0); mb = v(o, "mainline", 1)
			printf "%-17s %8s %8s %8s %8s %8s | %6s %6s %6s %6s | %7s %7s\n", o, \
			       cell(a), cell(b), cell(d), cell(ma), cell(mb), r(b, a), \
			       r(a, d, 1.01), r(b, mb, 1.00), r(mb, ma), diff(b, a), diff(mb, ma)
			printf "%s %s %s %s %s %s\n", o, cell(d), cell(a), cell(b), \
			       cell(ma), cell(mb) > dat
		}
		print "# a, b: cet-lts, task without / with shadow stack; d: cet-lts built with"
		print "# X86_USER_SHADOW_STACK=n; ml: mainline 6.12; b-a: cycles the shadow stack"
		print "# adds; * misses its target (a/d <= 1.01, b/ml-b <= 1.00); mmap is the"
		print "# control for map_shadow_stack (an ordinary page, mapped, touched, unmapped)"
	}' "$csv"

gnuplot <<-EOG 2>"$LOGS/gnuplot.log" || die "gnuplot failed (log: $LOGS/gnuplot.log)"
	set terminal svg size 1000,560 font "sans,11" background rgb "white" noenhanced
	set output "$out/results.svg"
	set title "Guest TSC cycles per operation (Bochs tigerlake, median of $boots boots x $reps samples)"
	set datafile missing "-"
	set style data histograms
	set style histogram clustered gap 1
	set style fill solid 0.9 border -1
	set logscale y
	set ylabel "cycles (log scale)"
	set xtics rotate by -20
	set key below horizontal maxrows 2
	set grid ytics
	plot "$out/results.dat" using 2:xtic(1) title "cet-lts-off", \
	     "" using 3 title "cet-lts, no shadow stack", \
	     "" using 4 title "cet-lts, shadow stack", \
	     "" using 5 title "mainline, no shadow stack", \
	     "" using 6 title "mainline, shadow stack"
EOG
log "bench: $csv, $out/results.svg"
