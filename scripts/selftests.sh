#!/bin/bash
# Build the series' own selftests (listed in configs/selftests,
# configs/selftests-last, configs/stress and configs/selftests-kself,
# paths in build/linux) as
# static x86_64 programs in build/selftests, against the series' UAPI
# headers, and write their initramfs specs to build/selftests/list,
# last-list, stress-list and kself-list.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/selftests
mkdir -p "$out"
hdr=$BUILD/kernel-cet/usr/include
# Sanitised UAPI headers of the patched tree, for new syscall numbers and
# constants that Debian 12's libc headers do not have.
make -s -C "$LINUX" O="$BUILD/kernel-cet" headers >"$LOGS/headers.log" 2>&1 ||
	die "make headers failed (log: $LOGS/headers.log)"

# build_list CONFIG LIST [MARK]: build the programs CONFIG names ("PATH
# [ARGS]" lines), their initramfs specs (MARK BINARY or BINARY=ARGS, see
# initramfs.sh: "!" runs a program after all others) in LIST.
build_list() {
	local conf=$1 list=$2 mark=${3:-} src name args
	: > "$list.new"
	while read -r src args; do
		[ -f "$LINUX/$src" ] || die "${conf#$TOP/} names $src, which is not in build/linux"
		name=$(basename "$src" .c)_64
		if ! [ "$out/$name" -nt "$LINUX/$src" ] || ! [ "$out/$name" -nt "$conf" ] ||
		   ! [ "$out/$name" -nt "$LINUX/tools/testing/selftests/x86/shstk_helpers.h" ]; then
			gcc -static -O2 -g -Wall -pthread -isystem "$hdr" \
				-I "$LINUX/tools/testing/selftests" -o "$out/$name" "$LINUX/$src" ||
				die "selftest $src does not build"
		fi
		echo "$mark$out/$name${args:+=$args}" >> "$list.new"
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$conf")
	mv "$list.new" "$list"
}
# The suite every boot runs, the tests it runs after everything else
# (they can crash or hang the guest), and the load tests of make stress.
build_list "$TOP/configs/selftests" "$out/list"
build_list "$TOP/configs/selftests-last" "$out/last-list" "!"
build_list "$TOP/configs/stress" "$out/stress-list"
# Series selftests that also run beside 6.1's own on the plain base.
build_list "$TOP/configs/selftests-kself" "$out/kself-list"
