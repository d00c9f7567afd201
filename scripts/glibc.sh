#!/bin/bash
# glibc.sh VERSION: build a C library with CET from Debian's source
# package, into build/glibc-VERSION/sysroot:
#   2.41   Debian 13 (trixie): mainline's ARCH_SHSTK_* and map_shadow_stack()
#   2.36   Debian 12 (bookworm): the ARCH_CET_* calls of glibc 2.28-2.38
# Debian builds both without CET; this is the same source with Debian's
# patches, configured --enable-cet.  Cached: rebuilt only when the
# configuration or build_glibc changes (CCACHE_DIR caches the objects).
# Ends by checking that ld.so and libc.so.6 are marked SHSTK and IBT.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ver=${1:?usage: glibc.sh 2.36|2.41}
case $ver in
2.36) suite=bookworm ;;
2.41) suite=trixie ;;
*) die "glibc.sh: no Debian suite known for glibc $ver" ;;
esac
need_cmd gawk gawk
need_cmd bison bison
need_cmd dpkg-source dpkg-dev

out=$BUILD/glibc-$ver
sysroot=$out/sysroot
# No nscd, timezone tools, libmvec or profiling libraries: nothing here
# runs them, and they are a quarter of the build.
conf=(--prefix=/usr --enable-cet --enable-stack-protector=strong
      --disable-werror --disable-nscd --disable-build-nscd
      --disable-timezone-tools --disable-mathvec --disable-profile
      --without-selinux --without-gd)

# build_glibc: fetch, configure, build and install into $sysroot.  Its
# text is part of the cache key: changing how glibc is built rebuilds it,
# changing the checks around it does not.
build_glibc() {
	rm -rf "$out"
	mkdir -p "$out"
	log "glibc $ver: fetching Debian's source ($suite)"
	debian_source "$out" "$suite" glibc "$ver-"
	log "glibc $ver: building $src_version with --enable-cet (log: $out/build.log; about 15 min cold)"
	t0=$(date +%s)
	mkdir -p "$out/obj"
	(
		cd "$out/obj"
		cc=gcc cxx=g++
		if command -v ccache >/dev/null; then cc="ccache gcc" cxx="ccache g++"; fi
		CC=$cc CXX=$cxx CFLAGS="-O2 -g0" CXXFLAGS="-O2 -g0" \
			"$src_dir/configure" "${conf[@]}"
		make -j"$(nproc)"
		make install DESTDIR="$sysroot"
	) >"$out/build.log" 2>&1 || {
		grep -E 'error|Error' "$out/build.log" | tail -n 5 >&2
		die "glibc $ver: build failed (see $out/build.log)"
	}
	# Kernel headers, so that programs can be built against the sysroot
	# with gcc --sysroot (the host's linux-libc-dev).
	mkdir -p "$sysroot/usr/include"
	cp -a /usr/include/linux /usr/include/asm-generic "$sysroot/usr/include/"
	cp -a /usr/include/x86_64-linux-gnu/asm "$sysroot/usr/include/asm"
}

key="$ver ${conf[*]} $(declare -f build_glibc | sha256sum | cut -c1-16)"
stamp=$out/stamp

check_sysroot() {
	local f
	for f in "$sysroot/lib64/ld-linux-x86-64.so.2" "$sysroot/lib64/libc.so.6"; do
		[ -e "$f" ] || die "glibc $ver: $f missing (see $out/build.log)"
		cet_marked "$f"
	done
}

if [ -f "$stamp" ] && [ "$(sed -n 2p "$stamp")" = "$key" ]; then
	check_sysroot
	exit 0
fi

build_glibc
rm -rf "$out/obj"
check_sysroot
printf '%s\n%s\n' "$src_version" "$key" > "$stamp"
log "glibc $ver: $src_version built in $(( $(date +%s) - t0 )) s; ld.so and libc.so.6 are marked IBT, SHSTK"
