#!/bin/bash
# Build the demo (guest/demo.c) twice into build/demo: "demo" without CET
# marker and "demo-shstk" marked for shadow stacks in its ELF property
# note; and guest/cetdiff.c into build/cetdiff. All static: the guest has
# no C library.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/demo
src=$TOP/guest/demo.c
mkdir -p "$out"
need_cmd gcc build-essential
build_static "$out/demo" "$src" -fno-stack-protector -fcf-protection=none
build_static "$out/demo-shstk" "$src" -fno-stack-protector -fcf-protection=return -Wl,-z,shstk
# The point of the demo: only demo-shstk carries the marker.
shstk_marked "$out/demo-shstk" ||
	die "$out/demo-shstk has no SHSTK marker (readelf -n): the linker ignored -z shstk"
! shstk_marked "$out/demo" ||
	die "$out/demo is marked SHSTK, it must not be"

# cetdiff (make test runs it on both CET CPUs and compares): it turns its
# shadow stack on itself, in each child, so it must not be marked; no red
# zone, because its inline assembly calls and pushes below RSP.
mkdir -p "$BUILD/cetdiff"
build_static "$BUILD/cetdiff/cetdiff" "$TOP/guest/cetdiff.c" -mno-red-zone \
	-fno-stack-protector -fcf-protection=none
! shstk_marked "$BUILD/cetdiff/cetdiff" ||
	die "$BUILD/cetdiff/cetdiff is marked SHSTK, it must not be"
