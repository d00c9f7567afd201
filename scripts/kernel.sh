#!/bin/bash
# Configure and build one kernel variant out of tree in build/kernel-VARIANT:
# tinyconfig (allnoconfig + the tiny fragments) merged with
# configs/base.config and configs/VARIANT.config.  Every option the
# fragments ask for must end up in .config as asked, or the build stops.
#
#   kernel.sh [VARIANT]      default: cet  (build/bzImage points at it)
#
# VARIANT "debug" is "cet" plus configs/debug.config (make stress, make
# release-check);
# "kasan" is "debug" plus configs/kasan.config (make stress KASAN=1).
#
# VARIANT "reference" is mainline: Debian's linux-source-6.12, unpacked in
# build/mainline, built with the same fragments as "cet" (make reference).
# VARIANT "base" is the plain 6.1 base (build/linux at cet-lts-base, in
# the worktree build/base-src) with the same fragments less the series'
# own options (make base).
#
# Every variant starts from configs/base.config + configs/distro.config
# (what a distribution kernel has where the series changes code).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:-cet}
src=$LINUX
if [ "$variant" = reference ]; then
	# The same fragments, less what mainline no longer has as an option
	# (X86_FEATURE_NAMES: always on since 6.8) or never had (user IBT).
	mkdir -p "$BUILD/kernel-reference"
	grep -v '^CONFIG_X86_FEATURE_NAMES=' "$TOP/configs/base.config" \
		> "$BUILD/kernel-reference/base.config"
	grep -v '^CONFIG_X86_USER_IBT=' "$TOP/configs/cet.config" \
		> "$BUILD/kernel-reference/cet.config"
	frags=("$BUILD/kernel-reference/base.config" "$TOP/configs/distro.config"
	       "$BUILD/kernel-reference/cet.config")
	tarball=/usr/src/linux-source-6.12.tar.xz
	need_file "$tarball" linux-source-6.12
	src=$BUILD/mainline/linux-source-6.12
	if ! [ -f "$src/.cet-lts-unpacked" ] || [ "$tarball" -nt "$src/.cet-lts-unpacked" ]; then
		log "kernel[reference]: unpacking $tarball"
		rm -rf "$src"; mkdir -p "$BUILD/mainline"
		tar -xJf "$tarball" -C "$BUILD/mainline" ||
			die "cannot unpack $tarball"
		touch "$src/.cet-lts-unpacked"
	fi
elif [ "$variant" = base ]; then
	# The same fragments, less the options the series adds.
	mkdir -p "$BUILD/kernel-base"
	grep -v -E '^CONFIG_X86_USER_(SHADOW_STACK|IBT)=' "$TOP/configs/cet.config" \
		> "$BUILD/kernel-base/cet.config"
	frags=("$TOP/configs/base.config" "$TOP/configs/distro.config"
	       "$BUILD/kernel-base/cet.config")
	[ -d "$LINUX/.git" ] || die "no build/linux tree: run 'make tree' first"
	src=$BUILD/base-src
	want=$(lgit rev-parse cet-lts-base)
	if [ "$(git -C "$src" rev-parse -q --verify HEAD 2>/dev/null)" != "$want" ]; then
		log "kernel[base]: checking out cet-lts-base in $src"
		rm -rf "$src"
		lgit worktree prune
		lgit worktree add -q --detach "$src" cet-lts-base ||
			die "cannot check out cet-lts-base in $src"
	fi
else
	frags=("$TOP/configs/base.config" "$TOP/configs/distro.config")
	# The debug kernel is the CET kernel with the checkers on top; the
	# KASAN kernel is the debug kernel with KASAN.
	case $variant in
	debug) frags+=("$TOP/configs/cet.config") ;;
	kasan) frags+=("$TOP/configs/cet.config" "$TOP/configs/debug.config") ;;
	esac
	frags+=("$TOP/configs/$variant.config")
	[ -f "${frags[-1]}" ] || die "no config fragment configs/$variant.config"
	[ -d "$LINUX/.git" ] || die "no build/linux tree: run 'make tree' first"
fi
for t in gcc:build-essential make:make flex:flex bison:bison bc:bc; do
	need_cmd "${t%%:*}" "${t#*:}"
done
need_file /usr/include/libelf.h libelf-dev
need_file /usr/include/openssl/ssl.h libssl-dev

obj=$BUILD/kernel-$variant
mkdir -p "$obj"
# One build at a time per object directory: two would corrupt it.
exec 9>"$obj/.cet-lts.lock"
if ! flock -n 9; then
	log "kernel[$variant]: another build is using $obj, waiting for it"
	flock 9
fi
klog=$LOGS/kernel-$variant.log
: > "$klog"

kmake=(make -C "$src" O="$obj" -j"$(nproc)" "${KMAKE_ARGS[@]}")
# The base and the reference are unmodified trees: they compile again only
# when the fragments change, and then nearly every file misses the cache
# anyway.  ccache's depend mode takes its key from the compiler's own
# dependency file instead of running the preprocessor a second time, which
# is most of what a miss costs over a build without ccache.  The series'
# kernels keep the default mode: the option-off build (make check) and
# builds after a header change hit through the preprocessed source.
case $variant in
base|reference) export CCACHE_DEPEND=1 ;;
esac
command -v ccache >/dev/null 2>&1 ||
	echo "warning: ccache not found (package ccache): building without cache" >&2

log "kernel[$variant]: configuring (tinyconfig + ${frags[*]##*/})"
kconfig_merge "$src" "$obj" x86 "${frags[@]}" >>"$klog" 2>&1 ||
	{ tail -n 30 "$klog" >&2; die "configuring $variant failed (log: $klog)"; }

# Fail loudly when Kconfig dropped or changed something we asked for
# (a later fragment's word on an option overrides an earlier one's).
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF -- "$line" "$obj/.config" || {
			echo "  asked for $line, .config has: $(grep -E "^(# )?${line%%=*}[= ]" "$obj/.config" || echo nothing)" >&2
			bad=1; }
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		! grep -q "^$opt=" "$obj/.config" || {
			echo "  asked for $opt off, .config has: $(grep "^$opt=" "$obj/.config")" >&2
			bad=1; }
		;;
	esac
done < <(cat "${frags[@]}" | awk '
	/^CONFIG_[A-Za-z0-9_]+=/ { o = $0; sub(/=.*/, "", o) }
	/^# CONFIG_[A-Za-z0-9_]+ is not set/ { o = $2 }
	o != "" { if (!(o in last)) order[++n] = o; last[o] = $0; o = "" }
	END { for (i = 1; i <= n; i++) print last[order[i]] }')
[ $bad = 0 ] || die "kernel[$variant]: Kconfig did not take the options above (missing dependency, or a patch is missing)"

log "kernel[$variant]: building (log: $klog)"
start=$(date +%s)
"${kmake[@]}" bzImage >>"$klog" 2>&1 ||
	{ grep -E 'error|Error' "$klog" | head -n 20 >&2; die "kernel[$variant] build failed (log: $klog)"; }
log "kernel[$variant]: built in $(( $(date +%s) - start )) s"
if [ "$variant" = cet ]; then
	ln -sfn "kernel-cet/arch/x86/boot/bzImage" "$BUILD/bzImage"
fi
