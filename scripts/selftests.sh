#!/bin/bash
# Build the series' own selftests (listed in configs/selftests, paths in
# build/linux) as static x86_64 programs in build/selftests, against the
# series' UAPI headers, and write their paths to build/selftests/list.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/selftests
mkdir -p "$out"
: > "$out/list.new"
hdr=$BUILD/kernel-cet/usr/include
srcs=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/configs/selftests")
if [ -n "$srcs" ]; then
	# Sanitised UAPI headers of the patched tree, for new syscall numbers
	# and constants that Debian 12's libc headers do not have.
	make -s -C "$LINUX" O="$BUILD/kernel-cet" headers >"$LOGS/headers.log" 2>&1 ||
		die "make headers failed (log: $LOGS/headers.log)"
fi
for src in $srcs; do
	[ -f "$LINUX/$src" ] || die "configs/selftests names $src, which is not in build/linux"
	name=$(basename "$src" .c)_64
	if ! [ "$out/$name" -nt "$LINUX/$src" ] || ! [ "$out/$name" -nt "$TOP/configs/selftests" ]; then
		gcc -static -O2 -g -Wall -pthread -isystem "$hdr" \
			-I "$LINUX/tools/testing/selftests" -o "$out/$name" "$LINUX/$src" ||
			die "selftest $src does not build"
	fi
	echo "$out/$name" >> "$out/list.new"
done
mv "$out/list.new" "$out/list"
