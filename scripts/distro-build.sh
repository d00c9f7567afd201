#!/bin/bash
# make distro-build: build the kernel with Debian's own 6.1 amd64 config
# (package linux-config-6.1), three times, and compare:
#   base     the plain 6.1 base (build/base-src), Debian's config as is
#   cet      the series with X86_USER_SHADOW_STACK=y and X86_USER_IBT=y
#   off      the series with X86_USER_SHADOW_STACK=n
# vmlinux only; DISTRO_MODULES=1 builds the modules too.  Two changes to
# Debian's config, the same for all three: no trusted/revocation key files
# (they live in Debian's packaging, not in the source) and, unless
# DISTRO_DEBUG_INFO=1, no debug info (BTF needs pahole, and debug info
# triples the build time; neither changes the code built).
# Fails if a build fails or if cet or off show a compiler or linker
# warning the base does not (compared without line numbers).  Not part of
# make test: on 2 cores each build takes most of an hour cold.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# ccache's depend mode (no second preprocessor run on a miss): the three
# builds share next to no object, since the series and the option change
# struct thread_struct, which nearly every file sees; a re-run still hits.
export CCACHE_DEPEND=1

deb_config=/usr/src/linux-config-6.1/config.amd64_none_amd64.xz
need_file "$deb_config" linux-config-6.1
[ -d "$BUILD/base-src" ] || die "no build/base-src: run 'make base' first"
targets=(vmlinux)
[ -n "${DISTRO_MODULES:-}" ] && targets+=(modules)
out=$BUILD/distro
mkdir -p "$out"
report=()

build() {	# build NAME SRC SCRIPTS-CONFIG-ARGS...
	local name=$1 src=$2 o=$out/$1 t0; shift 2
	# From clean: the warnings below are the whole build's (ccache
	# replays a cached object's warnings), not only those of the files
	# an incremental build happened to compile again.
	rm -rf "$o"
	mkdir -p "$o"
	xz -dc "$deb_config" > "$o/.config"
	"$src/scripts/config" --file "$o/.config" --set-str SYSTEM_TRUSTED_KEYS "" \
		--set-str SYSTEM_REVOCATION_KEYS "" "$@"
	if [ -z "${DISTRO_DEBUG_INFO:-}" ]; then
		"$src/scripts/config" --file "$o/.config" --disable DEBUG_INFO \
			--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --disable DEBUG_INFO_DWARF5 \
			--disable DEBUG_INFO_BTF --enable DEBUG_INFO_NONE
	fi
	make -C "$src" O="$o" "${KMAKE_ARGS[@]}" olddefconfig >"$LOGS/distro-$name.log" 2>&1 ||
		die "distro-build[$name]: olddefconfig failed (log: $LOGS/distro-$name.log)"
	log "distro-build[$name]: building ${targets[*]} (log: $LOGS/distro-$name.log)"
	t0=$(date +%s)
	make -C "$src" O="$o" -j"$(nproc)" "${KMAKE_ARGS[@]}" "${targets[@]}" \
		>>"$LOGS/distro-$name.log" 2>&1 ||
		{ grep -E 'error' "$LOGS/distro-$name.log" | head -n 10 >&2
		  die "distro-build[$name]: build failed (log: $LOGS/distro-$name.log)"; }
	echo $(( $(date +%s) - t0 )) > "$o/build-seconds"
	# Warnings without line numbers and without the source/object paths
	# (any clone's: ccache replays the warning a cached object printed
	# where it was first compiled).
	{ grep -E '(warning|Warning):' "$LOGS/distro-$name.log" || true; } |
		sed -E "s#$src/##g; s#$o/##g; s#/[^ :]*/(base-src|linux|distro/[a-z]+)/##g; s/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/" |
		sort -u > "$o/warnings"
}

build base "$BUILD/base-src"
build cet "$LINUX" --enable X86_USER_SHADOW_STACK --enable X86_USER_IBT
grep -qx 'CONFIG_X86_USER_SHADOW_STACK=y' "$out/cet/.config" ||
	die "distro-build[cet]: Debian's config did not take X86_USER_SHADOW_STACK"
build off "$LINUX" --disable X86_USER_SHADOW_STACK --disable X86_USER_IBT

rc=0
for v in cet off; do
	new=$(comm -13 "$out/base/warnings" "$out/$v/warnings")
	n=$(printf '%s' "$new" | grep -c . || true)
	report+=("$v: built in $(cat "$out/$v/build-seconds") s, $n new warnings")
	if [ "$n" != 0 ]; then
		rc=1
		echo "$new" | sed "s/^/  $v: /"
	fi
done
echo "distro-build: base built in $(cat "$out/base/build-seconds") s, $(wc -l < "$out/base/warnings") warnings; ${report[*]}"
exit $rc
