#!/bin/bash
# Build the demo (guest/demo.c) twice into build/demo: "demo" without CET
# marker and "demo-shstk" marked for shadow stacks in its ELF property
# note. Both static: the guest has no C library.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/demo
src=$TOP/guest/demo.c
mkdir -p "$out"
build() {
	local name=$1; shift
	[ "$out/$name" -nt "$src" ] && return 0
	gcc -static -O2 -Wall -fno-stack-protector "$@" -o "$out/$name.tmp" "$src" ||
		die "guest/demo.c does not build ($name)"
	mv "$out/$name.tmp" "$out/$name"
}
need_cmd gcc build-essential
build demo -fcf-protection=none
build demo-shstk -fcf-protection=return -Wl,-z,shstk
# The point of the demo: only demo-shstk carries the marker.
readelf -n "$out/demo-shstk" | grep -q 'x86 feature:.*SHSTK' ||
	die "$out/demo-shstk has no SHSTK marker (readelf -n): the linker ignored -z shstk"
! readelf -n "$out/demo" | grep -q 'x86 feature:.*SHSTK' ||
	die "$out/demo is marked SHSTK, it must not be"
