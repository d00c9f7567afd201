#!/bin/bash
# Build mainline's shadow stack selftest, unmodified, from Debian's
# linux-source-6.12 package (never copied into this repository), plus a
# variant that keeps going after a failed case: the only change is that
# the "goto out" after each "[FAIL]" line of main() is removed, so one
# failing case cannot hide the ones after it.
#
# Output: build/mainline/ml_test_shadow_stack{,_nostop}
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tarball=/usr/src/linux-source-6.12.tar.xz
member=linux-source-6.12/tools/testing/selftests/x86/test_shadow_stack.c
need_file "$tarball" linux-source-6.12
need_cmd gcc build-essential

out=$BUILD/mainline
mkdir -p "$out"
src=$out/test_shadow_stack.c
if ! [ "$src" -nt "$tarball" ]; then
	log "mainline: extracting test_shadow_stack.c from $tarball"
	tar -xJOf "$tarball" "$member" > "$src.tmp" ||
		die "cannot extract $member from $tarball"
	mv "$src.tmp" "$src"
fi

# The variant: delete the line "goto out;" right after each "[FAIL]" print.
nostop=$out/test_shadow_stack_nostop.c
if ! [ "$nostop" -nt "$src" ] || ! [ "$nostop" -nt "$0" ]; then
	sed -e '/printf("\[FAIL\]/{n;/^[[:space:]]*goto out;[[:space:]]*$/d;}' \
		"$src" > "$nostop.tmp"
	removed=$(( $(wc -l < "$src") - $(wc -l < "$nostop.tmp") ))
	# Mainline 6.12 has 10 such early exits; fewer means the file changed
	# shape and the edit no longer does what it says.
	[ "$removed" -ge 8 ] ||
		die "mainline: the no-stop edit removed $removed early exits from $src (expected 10)"
	mv "$nostop.tmp" "$nostop"
	log "mainline: no-stop variant: $removed early exits removed"
fi

# As tools/testing/selftests/x86/Makefile builds it, plus -static (the
# test initramfs has no C library).
for v in test_shadow_stack test_shadow_stack_nostop; do
	bin=$out/ml_$v
	c=$out/$v.c
	if ! [ "$bin" -nt "$c" ]; then
		gcc -m64 -O2 -g -std=gnu99 -pthread -Wall -static -o "$bin" "$c" \
			>"$LOGS/mainline-$v.log" 2>&1 ||
			{ cat "$LOGS/mainline-$v.log" >&2; die "mainline $v.c does not build"; }
	fi
done
