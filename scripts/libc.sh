#!/bin/bash
# libc.sh VERSION...: a small userland on each CET-enabled glibc
# (scripts/glibc.sh), in build/libc-VERSION/root (it becomes
# /glibc-VERSION in the libc initramfs, run under chroot):
#   /bin/busybox    Debian 12's busybox, a shell and a few tools
#   /usr/bin/cetlibc, cetlibc-cxx   the cases (guest/libc/)
#   /usr/lib64/libcetlibc-unmarked.so   a library built without CET
#   /lib64/ld-linux-x86-64.so.2 and the libraries these need
#   /run.sh, /settings   the runner and the settings it runs under
# Everything but the unmarked library is built -fcf-protection=full and
# must come out marked IBT and SHSTK (checked with readelf).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: libc.sh VERSION..."
g=$TOP/guest/libc

# What each userland runs under: GLIBC_TUNABLES settings (guest/libc/run.sh).
settings_of() {
	case $1 in
	2.41) echo default hwcaps shstk-on shstk-permissive ;;
	*) echo default ;;
	esac
}

# Busybox from Debian 12's source package, configured once (allnoconfig
# and the applets below), built for each C library.
bb_applets="ASH SH_IS_ASH ASH_ECHO ASH_PRINTF ASH_TEST ASH_OPTIMIZE_FOR_SIZE
	CAT CUT DMESG ECHO ENV FALSE GREP HEAD LS MKDIR PRINTF PS SED SLEEP TAIL
	TEST TR TRUE UNAME WC FEATURE_SH_MATH BUSYBOX FEATURE_INSTALLER"
bb_src() {
	local work=$BUILD/busybox-src
	if [ -f "$work/stamp" ]; then
		bb_dir=$(cat "$work/stamp")
		return 0
	fi
	rm -rf "$work"; mkdir -p "$work"
	log "libc: fetching Debian's busybox source (bookworm)"
	debian_source "$work" bookworm busybox
	echo "$src_dir" > "$work/stamp"
	bb_dir=$src_dir
}

# sysroot_flags SYSROOT: gcc options that compile and link against
# SYSROOT alone (gcc --sysroot is not enough: Debian's gcc finds crt1.o
# and the headers of the host's C library first).
sysroot_flags() {
	local s=$1
	echo "--sysroot=$s -nostdinc -isystem $s/usr/include -isystem $(gcc -print-file-name=include) -B$s/usr/lib64/ -L$s/usr/lib64 -L$s/lib64"
}

build_busybox() {	# build_busybox SYSROOT DEST
	local sysroot=$1 dest=$2 o=$2.obj a
	rm -rf "$o"; mkdir -p "$o"
	make -C "$bb_dir" O="$o" allnoconfig >/dev/null
	# Options show up once what they depend on is on: two rounds.
	for round in 1 2; do
		for a in $bb_applets; do
			sed -i "/^CONFIG_$a=/d; /^# CONFIG_$a is not set$/d" "$o/.config"
			echo "CONFIG_$a=y" >> "$o/.config"
		done
		{ yes "" || true; } | make -C "$bb_dir" O="$o" oldconfig >/dev/null
	done
	for a in $bb_applets; do
		grep -qx "CONFIG_$a=y" "$o/.config" ||
			die "libc: busybox's config did not take CONFIG_$a"
	done
	make -C "$bb_dir" O="$o" -j"$(nproc)" CC="gcc $(sysroot_flags "$sysroot")" \
		EXTRA_CFLAGS="-fcf-protection=full" busybox >"$o.log" 2>&1 ||
		die "libc: busybox does not build against $sysroot (see $o.log)"
	cp "$o/busybox" "$dest"
	rm -rf "$o"
}

# copy_needed ROOT SYSROOT FILE...: the shared libraries FILEs need,
# from SYSROOT/lib64 into ROOT/lib64, and theirs in turn.
copy_needed() {
	local root=$1 sysroot=$2 f n; shift 2
	for f in "$@"; do
		for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[ -e "$root/lib64/$n" ] && continue
			[ -e "$sysroot/lib64/$n" ] || die "libc: $f needs $n, not in $sysroot/lib64"
			cp -L "$sysroot/lib64/$n" "$root/lib64/$n"
			copy_needed "$root" "$sysroot" "$root/lib64/$n"
		done
	done
}

for ver in "$@"; do
	"$TOP/scripts/glibc.sh" "$ver"
	sysroot=$BUILD/glibc-$ver/sysroot
	out=$BUILD/libc-$ver
	root=$out/root
	key="$(sed -n 1p "$BUILD/glibc-$ver/stamp") $(cat "$0" "$g"/* | sha256sum | cut -c1-16)"
	if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$key" ]; then
		continue
	fi
	bb_src
	log "libc $ver: building the userland"
	rm -rf "$out"; mkdir -p "$root"/{bin,usr/bin,lib64,usr/lib64,proc,dev,tmp}
	build_busybox "$sysroot" "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	read -r -a cflags <<< "$(sysroot_flags "$sysroot")"
	cflags+=(-O2 -Wall -fcf-protection=full -fno-omit-frame-pointer
		 -fno-optimize-sibling-calls)
	gv=$(g++ -dumpversion)
	cxxinc=(-isystem "/usr/include/c++/$gv" -isystem "/usr/include/x86_64-linux-gnu/c++/$gv")
	gcc "${cflags[@]}" -o "$root/usr/bin/cetlibc" "$g/cetlibc.c" -lpthread ||
		die "libc $ver: guest/libc/cetlibc.c does not build"
	# libstdc++ and libgcc linked in: Debian 12 builds their archives
	# with CET, not their shared libraries.
	g++ "${cxxinc[@]}" "${cflags[@]}" -static-libstdc++ -static-libgcc \
		-o "$root/usr/bin/cetlibc-cxx" "$g/cetlibc-cxx.cc" ||
		die "libc $ver: guest/libc/cetlibc-cxx.cc does not build"
	gcc $(sysroot_flags "$sysroot") -O2 -fcf-protection=none -shared -fPIC \
		-o "$root/usr/lib64/libcetlibc-unmarked.so" "$g/unmarked.c" ||
		die "libc $ver: guest/libc/unmarked.c does not build"
	! readelf -n "$root/usr/lib64/libcetlibc-unmarked.so" | grep -q 'x86 feature' ||
		die "libc $ver: libcetlibc-unmarked.so came out marked"
	cp -L "$sysroot/lib64/ld-linux-x86-64.so.2" "$root/lib64/"
	copy_needed "$root" "$sysroot" "$root/bin/busybox" "$root/usr/bin/cetlibc" \
		"$root/usr/bin/cetlibc-cxx"
	for f in "$root/bin/busybox" "$root/usr/bin/cetlibc" "$root/usr/bin/cetlibc-cxx" \
		 "$root"/lib64/*; do
		cet_marked "$f"
	done
	install -m 755 "$g/run.sh" "$g/demo.sh" "$root/"
	settings_of "$ver" > "$root/settings"
	echo "$key" > "$out/stamp"
	log "libc $ver: userland ready ($(du -sh "$root" | cut -f1)): $(ls "$root/lib64" | tr '\n' ' ')"
done
