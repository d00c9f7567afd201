#!/bin/bash
# Build Bochs >= 3.0 with CET emulation from the next Debian release's
# source package and install it under build/bochs.  Debian 12 ships 2.7,
# whose XSAVES "in use" test for the CET user component is inverted, so
# its tasks lose U_CET/PL3_SSP across context switches; it must not be
# used for shadow stack runs.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

prefix=$BUILD/bochs
bin=$prefix/bin/bochs
suite=${BOCHS_SUITE:-trixie}

# --disable-show-ips: its once-a-second SIGALRM handler writes to the log
# under the log's mutex; landing while the emulator itself logs (a guest
# RDMSR of an unknown MSR does, at every timer tick) it deadlocks Bochs.
conf=(--prefix="$prefix" --with-nogui --enable-x86-64 --enable-cpu-level=6
      --enable-all-optimizations --enable-cet --enable-avx --enable-evex
      --enable-pci --enable-a20-pin --enable-fpu --disable-debugger
      --disable-plugins --disable-docbook --enable-usb=no --disable-show-ips)
# Changes made to the source (see below); part of the stamp, so that a
# cached build without them is rebuilt.
fixes="fix:legacy-bitmap-cpl"
# Two builds of the same source: build/bochs (one CPU; "emulator.sh", make
# emulator) and build/bochs-smp (--enable-smp, for CPUS=N boots;
# "emulator.sh smp").  The SMP build runs a one-CPU guest about 9 % slower
# (31.6 s against 29.1 s for the bochs-cet boot, two runs each, back to
# back, 2026-12-07), so one-CPU boots keep their own build.
case ${1:-up} in
up) ;;
smp) prefix=$BUILD/bochs-smp
     conf=("${conf[@]/#--prefix=*/--prefix=$prefix}" --enable-smp) ;;
*) die "emulator.sh ${1:-}: up (default) or smp" ;;
esac
bin=$prefix/bin/bochs
stamp=$prefix/.cet-lts-configure
if [ -x "$bin" ] && "$bin" --help 2>&1 | grep -q 'Bochs x86 Emulator 3\.' &&
   [ "$(cat "$stamp" 2>/dev/null)" = "${conf[*]} $fixes" ]; then
	exit 0
fi

need_cmd gcc build-essential
need_file /usr/include/ltdl.h libltdl-dev

work=$BUILD/$(basename "$prefix")-src
rm -rf "$work"
apt_src_sandbox "$work" "$suite"
log "emulator: fetching bochs source ($suite)"
# The .dsc may be missing on the mirror; the orig tarball is what we need.
(cd "$work" && apt-get "${aptopts[@]}" source --download-only bochs \
	>>"$work/apt.log" 2>&1) || true
orig=$(ls "$work"/bochs_*.orig.tar.* 2>/dev/null | head -n1 || true)
[ -n "$orig" ] || die "no bochs orig tarball downloaded (see $work/apt.log)"

sources_index_check "$work" "$orig"

tar -C "$work" -xf "$orig"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'bochs-*' | head -n1)
[ -n "$src" ] || die "bochs tarball has no bochs-* directory"

# fix:legacy-bitmap-cpl: IBT's legacy code bitmap is read with the
# privilege of the code that branches (user memory, for user code); Bochs
# 3.0 reads it as a supervisor access at any CPL, which SMAP faults when
# user code branches into a page the bitmap must be consulted for.
cet=$src/cpu/cet.cc
old='Bit8u bitmap = system_read_byte(bitmap_addr);'
new='Bit8u bitmap = read_linear_byte(BX_SEG_REG_DS, bitmap_addr);'
grep -qF "$old" "$cet" || die "emulator: $cet has changed: cannot apply fix:legacy-bitmap-cpl"
sed -i "s/$old/$new/" "$cet"
grep -qF "$new" "$cet" || die "emulator: fix:legacy-bitmap-cpl did not apply to $cet"
log "emulator: building $(basename "$src") into ${prefix#$TOP/} (about 70 s)"
(
	cd "$src"
	./configure "${conf[@]}"
	make -j"$(nproc)"
	make install
) >"$work/build.log" 2>&1 || die "bochs build failed (see $work/build.log)"
"$bin" --help 2>&1 | grep -q 'Bochs x86 Emulator 3\.' ||
	die "built bochs is not version 3.x"
echo "${conf[*]} $fixes" > "$stamp"
log "emulator: $bin ready"
