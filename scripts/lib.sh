# Shared helpers for the cet-lts scripts (sourced, not run).
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
LINUX=$BUILD/linux
LOGS=$BUILD/logs
mkdir -p "$BUILD" "$LOGS"

log() { echo ">> $*" >&2; }
die() { echo "error: $*" >&2; exit 1; }

# need_cmd CMD PACKAGE: fail with the package to install if CMD is missing.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install package '$2' (make deps)"
}

need_file() {
	[ -e "$1" ] || die "'$1' not found: install package '$2' (make deps)"
}

lgit() { git -C "$LINUX" "$@"; }

# The patch files DIR/series lists, in order (DIR: patches/ by default).
series_patches() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${1:-$TOP/patches}/series"
}

# A hash of everything the tree is built from.
series_id() {
	(cd "$TOP/patches" && cat BASE series $(series_patches)) |
		sha256sum | cut -d' ' -f1
}

# What a kernel prints on the console when something went wrong (warning,
# bug, oops, panic, sanitizer, hung task); no boot's log may match.
SPLAT_RE='WARNING:|BUG:|Oops|Kernel panic|Call Trace:|general protection fault(:|, probably)|UBSAN:|INFO: task .* blocked'
# Lines that match SPLAT_RE and are not splats: plain 6.1 prints this
# pr_warn_once() from workqueue's NUMA setup at every boot with fake NUMA
# nodes (numa=fake=2) on one CPU (the base kernel too).
SPLAT_OK_RE='^WARNING: workqueue cpumask: online intersect > possible intersect$'

# splat_lines FILE [REGEX]: the lines of a serial log that show a splat
# (REGEX, default SPLAT_RE), less the known harmless ones.
splat_lines() {
	tr -d '\r' < "$1" | grep -E "${2:-$SPLAT_RE}" | grep -vE "$SPLAT_OK_RE"
}

# build_static DST SRC [GCC-FLAG...]: a static guest program (the guest
# has no C library), rebuilt only when SRC is newer than DST.
build_static() {
	local dst=$1 src=$2; shift 2
	[ "$dst" -nt "$src" ] && return 0
	gcc -static -O2 -Wall "$@" -o "$dst.tmp" "$src" ||
		die "${src#$TOP/} does not build (${dst##*/})"
	mv "$dst.tmp" "$dst"
}

# shstk_marked FILE: does the ELF file's property note ask for shadow stack?
shstk_marked() { readelf -n "$1" | grep -q 'x86 feature:.*SHSTK'; }
# cet_marked FILE: does it ask for both IBT and shadow stack (what
# -fcf-protection=full gives)?  Dies naming FILE and its note if not.
cet_marked() {
	readelf -n "$1" | grep -q 'x86 feature: IBT, SHSTK' ||
		die "${1#$BUILD/} is not marked IBT, SHSTK: $(readelf -n "$1" | grep 'x86 feature' || echo 'no x86 feature note')"
}

# Results of a run: one "STATUS<TAB>NAME<TAB>DETAIL" line each in the file
# $results, STATUS being ok, "not ok" or skip.
result() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >> "$results"; }

# clean_log LOG: no splat in a serial log (else its first three lines are
# added to $LOGS/splats, one file for a whole run).
clean_log() {
	if splat_lines "$1" >/dev/null; then
		splat_lines "$1" | head -n 3 | sed 's/^/# /' >> "$LOGS/splats"
		return 1
	fi
}

# check NAME DETAIL-IF-FAILED COMMAND...: one result from COMMAND's status.
check() {
	local name=$1 detail=$2; shift 2
	if "$@"; then result ok "$name"; else result "not ok" "$name" "$detail"; fi
}

# ktap_report: print $results as KTAP.
ktap_report() {
	echo "TAP version 13"
	echo "1..$(wc -l < "$results")"
	awk -F'\t' '
		{ i++; d = ($3 != "") ? " # " $3 : "" }
		$1 == "skip" { print "ok " i " " $2 " # SKIP" (($3 != "") ? " " $3 : ""); next }
		{ print $1 " " i " " $2 d }' "$results"
}

# ktap_summary [LABEL]: the closing "N passed, N failed, N skipped" line;
# returns 1 if anything failed.
ktap_summary() {
	local pass fail skip
	pass=$(awk -F'\t' '$1 == "ok"' "$results" | wc -l)
	fail=$(awk -F'\t' '$1 == "not ok"' "$results" | wc -l)
	skip=$(awk -F'\t' '$1 == "skip"' "$results" | wc -l)
	echo "${1:+$1: }$pass passed, $fail failed, $skip skipped"
	[ "$fail" = 0 ]
}

# Kernel build settings shared by every build: a fixed build identity, and
# ccache with paths relative to the checkout so another clone hits the
# same cache.  KMAKE_ARGS go on every make command line.
KMAKE_ARGS=(KBUILD_BUILD_TIMESTAMP=cet-lts KBUILD_BUILD_USER=cet-lts
	    KBUILD_BUILD_HOST=cet-lts)
if command -v ccache >/dev/null 2>&1; then
	export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
	KMAKE_ARGS+=(CC="ccache gcc")
fi

# kconfig_merge SRCDIR OBJDIR ARCH FRAGMENT...: tinyconfig (allnoconfig +
# the tiny fragments) merged with FRAGMENTs into OBJDIR/.config.
kconfig_merge() {
	local src=$1 o=$2 arch=$3; shift 3
	mkdir -p "$o"
	(cd "$src" && ARCH=$arch KCONFIG_CONFIG="$o/.config" \
		./scripts/kconfig/merge_config.sh -n -O "$o" \
		kernel/configs/tiny.config arch/x86/configs/tiny.config "$@")
}

# apt_mirror [security]: the Debian mirror this machine's apt configuration
# names first (with "security": its security mirror; empty if none).
apt_mirror() {
	(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
	 awk '/^URIs:/ {print $2}'
	 cat /etc/apt/sources.list 2>/dev/null |
	 awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; break}}'
	 true) | if [ "${1:-}" = security ]; then grep -- '-security'; else grep -v -- '-security'; fi |
	head -n1 | sed 's|/*$||'
}

# apt_src_sandbox WORK SUITE: an apt configuration of its own under
# WORK/apt with one "deb-src MIRROR SUITE main" line (the mirror comes
# from this machine's apt configuration), and its index fetched; sets
# aptopts for apt-get.  The machine's own apt state is not touched.
apt_src_sandbox() {
	local mirror
	mirror=$(apt_mirror)
	[ -n "$mirror" ] || die "cannot find a Debian mirror in /etc/apt"
	apt_src_lines "$1" "deb-src $mirror $2 main"
}

# apt_src_lines WORK LINE...: apt_src_sandbox with these sources.list lines.
apt_src_lines() {
	local work=$1; shift
	mkdir -p "$work/apt/lists/partial" "$work/apt/sources.d"
	printf '%s\n' "$@" > "$work/apt/sources.d/src.list"
	aptopts=(-o "Dir::Etc::SourceParts=$work/apt/sources.d"
		 -o "Dir::Etc::SourceList=/dev/null"
		 -o "Dir::State::Lists=$work/apt/lists"
		 -o "APT::Sandbox::User=root")
	apt-get "${aptopts[@]}" update >"$work/apt.log" 2>&1 ||
		die "apt-get update for $* failed (see $work/apt.log)"
}

# sources_index_sha256 WORK FILE: FILE's sha256 as the Sources index
# fetched by apt_src_sandbox WORK lists it (empty if it does not).
sources_index_sha256() {
	local f
	for f in "$1"/apt/lists/*_Sources*; do
		/usr/lib/apt/apt-helper cat-file "$f"
	done 2>/dev/null |
	awk -v n="$(basename "$2")" '/^Checksums-Sha256:/ {s = 1; next}
		/^[^ ]/ {s = 0}
		s && $3 == n && !w {w = $1} END {print w}'
}

# sources_index_check WORK FILE: fail unless FILE is what the index says.
sources_index_check() {
	local want have
	want=$(sources_index_sha256 "$1" "$2")
	have=$(sha256sum "$2" | cut -d' ' -f1)
	[ -n "$want" ] || die "$(basename "$2") is not listed in the Sources index"
	[ "$want" = "$have" ] || die "$(basename "$2"): sha256 $have, Sources index says $want"
}

# debian_source WORK SUITE PKG [VERSION-PREFIX]: download and unpack
# (dpkg-source -x, Debian's patches applied) the newest version of
# source package PKG in SUITE that starts with VERSION-PREFIX and that
# the mirror has whole (a mirror may lack the newest .dsc); the .dsc is
# checked against the Sources index, dpkg-source checks the rest against
# the .dsc.  Sets src_dir and src_version.
debian_source() {
	local work=$1 suite=$2 pkg=$3 prefix=${4:-} v dsc
	apt_src_sandbox "$work" "$suite"
	for v in $(for f in "$work"/apt/lists/*_Sources*; do
			/usr/lib/apt/apt-helper cat-file "$f"
		   done 2>/dev/null |
		   awk -v p="$pkg" '/^Package:/ {ok = ($2 == p)} ok && /^Version:/ {print $2}' |
		   sort -rV | uniq); do
		case $v in "$prefix"*) ;; *) continue ;; esac
		(cd "$work" && apt-get "${aptopts[@]}" source --download-only "$pkg=$v") \
			>>"$work/apt.log" 2>&1 || continue
		dsc=$work/${pkg}_${v#*:}.dsc
		sources_index_check "$work" "$dsc"
		rm -rf "$work/src"
		dpkg-source -x "$dsc" "$work/src" >>"$work/apt.log" 2>&1 ||
			die "dpkg-source -x $dsc failed (see $work/apt.log)"
		src_dir=$work/src src_version=$v
		return 0
	done
	die "no whole source package $pkg${prefix:+ $prefix*} on the mirror for $suite (see $work/apt.log)"
}
