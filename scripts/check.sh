#!/bin/bash
# make check: the gates an upstream-minded maintainer applies to a series.
#   - checkpatch --strict on every patch (exceptions: patches/checkpatch.ignore)
#   - kernel-style subject, a changelog body and Signed-off-by in every patch;
#     a cover letter that lists the whole series
#   - bisectability: after every patch the series' files compile (BISECT=quick,
#     the default) or the test kernel builds (BISECT=full)
#   - the series with the option off, and an i386 build, build
#   - W=1 and sparse add no warnings in the .c files the series touches
#   - the series' .rst files pass docutils, kernel-doc adds no warnings
#   - every file the series adds has a MAINTAINERS entry
#   - the series applies with git am to a vanilla 6.1.y (scripts/vanilla.sh)
#   - the QEMU series: QEMU's checkpatch, applies in order (scripts/qemu.sh)
# Prints KTAP and "N passed, N failed"; exits 1 if anything failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

results=$LOGS/check.tsv
: > "$results"
: > "$LOGS/check-build-times"

[ -d "$LINUX/.git" ] || die "no build/linux tree: run 'make tree' first"
mapfile -t patches < <(series_patches)
commits=($(lgit rev-list --reverse cet-lts-base..HEAD))
[ ${#commits[@]} = ${#patches[@]} ] ||
	die "build/linux has ${#commits[@]} commits, patches/series lists ${#patches[@]}: run make tree or make export"

# 1. Patch form.
ignore=$TOP/patches/checkpatch.ignore
for p in "${patches[@]}"; do
	f=$TOP/patches/$p
	out=$(cd "$LINUX" && ./scripts/checkpatch.pl --strict --no-tree -q --terse "$f" 2>&1 |
	      grep -E ': (ERROR|WARNING):' || true)
	if [ -n "$out" ] && [ -f "$ignore" ]; then
		# Lines "PATCH-GLOB<TAB>MESSAGE-REGEX<TAB>why" excuse a finding.
		while IFS=$'\t' read -r glob re why; do
			case $glob in ''|'#'*) continue;; esac
			# shellcheck disable=SC2254
			case $p in $glob) out=$(echo "$out" | grep -Ev -- "$re" || true);; esac
		done < "$ignore"
	fi
	check "checkpatch --strict: $p" "$(echo "$out" | head -n 2 | tr '\n' ' ')" test -z "$out"

	subj=$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$f")
	re='^(x86|x86/[a-z0-9_/]+|binfmt_elf|mm|mm/[a-z0-9_]+|Documentation/x86|selftests/x86|selftests/mm): [A-Z][^.]*[^. ]$'
	check "subject in kernel style: $p" "'$subj'" grep -Eq "$re" <<< "$subj"

	# Changelog: text between the headers and the Signed-off-by/--- line.
	body=$(awk '/^$/ && !h {h = 1; next} h && /^(Signed-off-by:|---$)/ {exit} h' "$f" | grep -c '[^[:space:]]')
	check "changelog body (problem, then solution): $p" "$body non-empty lines" test "$body" -ge 4
	check "Signed-off-by: $p" "no Signed-off-by line" grep -q '^Signed-off-by: .* <.*@.*>$' "$f"
done
cover=$TOP/patches/0000-cover-letter.patch
n=${#patches[@]}
cover_lists_all() {
	grep -q "^Subject: \[PATCH 0*0/$n\]" "$cover" 2>/dev/null &&
	[ "$(sed -n '/^$/,/^ .* | /p' "$cover" | grep -c '^  ')" = "$n" ]
}
check "cover letter lists all $n patches" "missing or stale: run make export" cover_lists_all

# 2. Every patch builds: a second worktree walks the series, building the
#    test config after each commit (incremental, ccache).  Two depths:
#    BISECT=full builds bzImage after every patch; BISECT=quick (the
#    default) compiles, after every patch, each kernel .c file the series
#    changes that the test config builds and that exists at that patch
#    (the files that use what the series adds), and leaves linking to the
#    full builds at the tip (make test's kernels, the i386 build below).
#    A patch that touches a widely included header makes a full build
#    rebuild everything: ~8 min each without ccache, so BISECT=full takes
#    over an hour on a cold machine, BISECT=quick about 80 s a patch
#    (an hour for the series, cold).  Neither fits CI's budget next to
#    make test: plain make check (BISECT=none, what .ci/run runs) leaves
#    them to make release-check, which runs BISECT=quick.
bisect=${BISECT:-none}
case $bisect in none|quick|full) ;; *) die "BISECT=$bisect: use none, quick or full";; esac
wt=$BUILD/bisect-src obj=$BUILD/kernel-bisect
# The worktree serves the per-patch and i386 builds only.
if { [ "$bisect" != none ] || [ -n "${RELEASE:-}" ]; } &&
   ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$wt"
	lgit worktree prune
	lgit worktree add -q --detach "$wt" cet-lts-base
fi
not() { ! "$@"; }
# The test kernel's configuration (scripts/kernel.sh cet).
test_frags=("$TOP/configs/base.config" "$TOP/configs/distro.config" "$TOP/configs/cet.config")

# The series tip by hash: "HEAD" inside the worktree names whatever was
# checked out there last.
tip=$(lgit rev-parse HEAD)

# configure_at COMMIT OBJDIR ARCH FRAGMENT...: check out COMMIT in the
# worktree and configure OBJDIR for it.
configure_at() {
	local c=$1 o=$2 arch=$3; shift 3
	git -C "$wt" checkout -q --detach "$c" || return 1
	mkdir -p "$o"
	kconfig_merge "$wt" "$o" "$arch" "$@" >"$o/config.log" 2>&1
}

# kbuild_at COMMIT OBJDIR ARCH FRAGMENT... [-- TARGET...]: configure and
# build bzImage, or the TARGETs.
kbuild_at() {
	local args=() targets=(bzImage)
	while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
	[ "${1:-}" = -- ] && { shift; targets=("$@"); }
	configure_at "${args[@]}" &&
	make -C "$wt" O="${args[1]}" ARCH="${args[2]}" -j"$(nproc)" "${KMAKE_ARGS[@]}" \
		"${targets[@]}" >"${args[1]}/build.log" 2>&1
}

# The kernel .c files the series changes (the selftests are user space
# programs), and those of them the test config builds (their objects
# exist in make test's kernel).
mapfile -t cfiles < <(lgit diff --name-only --diff-filter=AM cet-lts-base..HEAD -- '*.c' ':!tools/')
series_objs=()
for f in "${cfiles[@]}"; do
	[ -f "$BUILD/kernel-cet/${f%.c}.o" ] && series_objs+=("${f%.c}.o")
done
# A build that passed is not repeated: its key is the commit's tree, the
# depth, the files compiled, the config fragments and the compiler, and a
# pass leaves a stamp in build/check-cache (a warm make check then skips
# the ~20 minutes of builds for a series that did not change).
cache=$BUILD/check-cache
mkdir -p "$cache"
frag_id=$(cat "${test_frags[@]}" | sha256sum | cut -c1-16)
cc_id=$(gcc --version | head -n 1 | sha256sum | cut -c1-16)
if [ "$bisect" = none ]; then
	echo "# per-patch builds: not run (BISECT=none; make release-check runs them)"
else
	[ "$bisect" = full ] || [ ${#series_objs[@]} -gt 0 ] ||
		die "no objects of the series' files in $BUILD/kernel-cet: run make kernel first"

	i=0
	for c in "${commits[@]}"; do
		i=$((i + 1))
		t0=$(date +%s)
		key=$(printf '%s\n' "$(git -C "$wt" rev-parse "$c^{tree}")" "$bisect" "$frag_id" "$cc_id" \
			"${series_objs[@]}" | sha256sum | cut -c1-32)
		if [ -f "$cache/bisect-$key" ]; then
			echo "${patches[i-1]} cached" >> "$LOGS/check-build-times"
			result ok "$(cat "$cache/bisect-$key") after patch $i (cached): ${patches[i-1]}"
			continue
		fi
		if [ "$bisect" = full ]; then
			what="builds"
			kbuild_at "$c" "$obj" x86_64 "${test_frags[@]}"
			rc=$?
		else
			objs=()
			for o in "${series_objs[@]}"; do
				git -C "$wt" cat-file -e "$c:${o%.o}.c" 2>/dev/null && objs+=("$o")
			done
			what="compiles ${#objs[@]} files"
			kbuild_at "$c" "$obj" x86_64 "${test_frags[@]}" \
				-- "${objs[@]}"
			rc=$?
		fi
		secs=$(( $(date +%s) - t0 ))
		echo "${patches[i-1]} ${secs}s" >> "$LOGS/check-build-times"
		[ "$rc" = 0 ] && echo "$what" > "$cache/bisect-$key"
		check "$what after patch $i (${secs} s): ${patches[i-1]}" \
			"$(grep -m1 -E 'error|Error' "$obj/build.log"), see $obj/build.log" test "$rc" = 0
	done
fi

# 3. Option off and 32-bit.  Built whole with the option off, the series
#    is a release gate (RELEASE=1, make release-check, which also boots
#    that kernel in make bench's smoke run): a cold kernel build, 13 of
#    CI's 90 minutes.  make check compiles, with the option off, each
#    kernel .c file the series changes that the test config builds and
#    the option-off config still builds, and checks that none of them
#    needs a symbol only the option's own files define (what the link
#    would find).  make release-check also does that with shadow stacks
#    on and CONFIG_X86_USER_IBT off (configs/cet-noibt.config), where
#    ibt_user.o is not built.
# obj_built FILE.c CONFIG: whether kbuild builds FILE's object with the
# .config CONFIG (every CONFIG_ on its Makefile lines is y).
obj_built() {
	local dir=${1%/*} o=${1##*/} mk syms s
	o=${o%.c}.o mk=$LINUX/$dir/Makefile
	[ -f "$LINUX/$dir/Kbuild" ] && mk=$LINUX/$dir/Kbuild
	syms=$(sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$mk" | grep -E "(^|[[:space:]=])$o([[:space:]]|$)" |
		grep -oE '\$\(CONFIG_[A-Z0-9_]+\)' | tr -d '$()' | sort -u)
	for s in $syms; do grep -q "^$s=y" "$2" || return 1; done
}
# off_compile OPTION FRAGMENT...: configure build/kernel-cet-off-files
# (or -OPTION for another option) with FRAGMENTs instead of cet.config,
# which must leave CONFIG_OPTION off; compile there each of the series' files
# that config builds, and look for symbols they need that only the
# objects it no longer builds define.
off_compile() {
	local opt=$1 off_obj=$BUILD/kernel-cet-off-files o objs=() gone=() u
	shift
	[ "$opt" = X86_USER_SHADOW_STACK ] || off_obj+=-$opt
	kconfig_merge "$LINUX" "$off_obj" x86 "$TOP/configs/base.config" \
		"$TOP/configs/distro.config" "$@" > "$off_obj.log" 2>&1 ||
		{ echo "configuring failed, see $off_obj.log"; return 1; }
	grep -q "^CONFIG_$opt=y" "$off_obj/.config" &&
		{ echo "the option is still on in $off_obj/.config"; return 1; }
	for o in "${series_objs[@]}"; do
		# (An object left over from an older config does not count.)
		obj_built "${o%.o}.c" "$BUILD/kernel-cet/.config" || continue
		if obj_built "${o%.o}.c" "$off_obj/.config"; then objs+=("$o"); else gone+=("$o"); fi
	done
	make -C "$LINUX" O="$off_obj" -j"$(nproc)" "${KMAKE_ARGS[@]}" "${objs[@]}" >> "$off_obj.log" 2>&1 ||
		{ echo "$(grep -m1 -E 'error:' "$off_obj.log"), see $off_obj.log"; return 1; }
	u=$(comm -12 <(for o in "${objs[@]}"; do nm -u "$off_obj/$o"; done | awk '{print $NF}' | sort -u) \
		     <(for o in "${gone[@]}"; do nm -g --defined-only "$BUILD/kernel-cet/$o"; done |
		       awk '{print $NF}' | sort -u))
	[ -z "$u" ] || { echo "needed with the option off, defined only with it on: ${u//$'\n'/ }"; return 1; }
	echo "${#objs[@]} files compiled, ${#gone[@]} only built with the option on"
}
# off_check OPTION WHERE FRAGMENT...: off_compile as a result line; WHERE
# (may be empty) ends its summary line
off_check() {
	local opt=$1 where=$2 name="the series' files compile with CONFIG_$1=n" out
	shift 2
	if ! [ -f "$BUILD/kernel-cet/.config" ]; then
		result "not ok" "$name" "no kernel-cet build: run make kernel"
	elif out=$(off_compile "$opt" "$@"); then
		result ok "$name"
		echo "# $opt off: $out${where:+ ($where)}"
	else
		result "not ok" "$name" "$out"
	fi
}
if [ -n "${RELEASE:-}" ]; then
	check "builds with CONFIG_X86_USER_SHADOW_STACK=n" "see $LOGS/kernel-cet-off.log" \
		"$TOP/scripts/kernel.sh" cet-off
	# Shadow stacks without user IBT: ibt_user.o is not built, and
	# everything that calls into it must take the stubs.
	off_check X86_USER_IBT "" "$TOP/configs/cet.config" "$TOP/configs/cet-noibt.config"
else
	off_check X86_USER_SHADOW_STACK "the full build and CONFIG_X86_USER_IBT=n: make release-check" \
		"$TOP/configs/cet-off.config"
fi
if [ -n "${RELEASE:-}" ]; then
	check "builds for i386 (with the test fragments)" "see $BUILD/kernel-i386/build.log" \
		kbuild_at "$tip" "$BUILD/kernel-i386" i386 "$TOP/configs/base.config" "$TOP/configs/i386.config"
	check "i386: shadow stack option unavailable" "CONFIG_X86_USER_SHADOW_STACK set on i386" \
		not grep -q '^CONFIG_X86_USER_SHADOW_STACK=y' "$BUILD/kernel-i386/.config"
else
	echo "# i386 build: not run (make release-check runs it)"
fi

# 4. W=1 and sparse on the .c files the series changes: the warnings at
#    the tip must be a subset of those at the base (compared without line
#    numbers).  kernel-doc likewise on changed .c/.h files.
mapfile -t dfiles < <(lgit diff --name-only --diff-filter=AM cet-lts-base..HEAD -- '*.c' '*.h' ':!tools/')
# warnings_at SRC OBJDIR: W=1 + sparse + kernel-doc findings in the
# series' files, compiled again (one make -k for all of them) in a kernel
# make test built already with the same fragments (the base in
# build/base-src and build/kernel-base, the tip in build/linux and
# build/kernel-cet: no configuring, no preparing).  make test's objects
# and their .cmd files are put back afterwards, so that the next kernel
# build does not see W=1's command lines and compile them again.  The
# findings are printed without line numbers and the source tree's name,
# so that the two lists compare.
warnings_at() {
	local src=$1 o=$2 f objs=() keep
	for f in "${cfiles[@]}"; do
		[ -f "$src/$f" ] && objs+=("${f%.c}.o")
	done
	keep=$(mktemp -d)
	for f in "${objs[@]}"; do
		mkdir -p "$keep/${f%/*}"
		cp -p "$o/$f" "$o/${f%/*}/.${f##*/}.cmd" "$keep/${f%/*}/" 2>/dev/null || true
		rm -f "$o/$f"
	done
	make -C "$src" O="$o" -k -j"$(nproc)" -O W=1 C=1 "${KMAKE_ARGS[@]}" "${objs[@]}" 2>&1 |
		grep -E '(warning|error):' |
		sed -E "s#$src/##g; s#(^|[ (])\\.\\./(base-src|linux)/#\\1#g; s/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/" |
		sort -u
	cp -a "$keep/." "$o/" && rm -rf "$keep"
	for f in "${dfiles[@]}"; do
		[ -f "$src/$f" ] && (cd "$src" && ./scripts/kernel-doc -none "$f" 2>&1)
	done | sed -E 's/:[0-9]+:/:/' | sort -u | sed 's/^/kernel-doc: /'
}
# Cached like the bisect builds, by both trees, fragments, compiler and sparse.
wkey=$(printf '%s\n' "$(lgit rev-parse "cet-lts-base^{tree}" "$tip^{tree}")" "$frag_id" "$cc_id" \
	"$(sparse --version 2>&1)" objdirs | sha256sum | cut -c1-32)
wname="W=1, sparse and kernel-doc add no warnings (${#cfiles[@]} .c files"
if ! command -v sparse >/dev/null; then
	result "not ok" "$wname)" "sparse not found: install package sparse (make deps)"
	wname=
elif [ -f "$cache/warnings-$wkey.base" ] && [ -f "$cache/warnings-$wkey.tip" ]; then
	cp "$cache/warnings-$wkey.base" "$LOGS/check-warnings.base"
	cp "$cache/warnings-$wkey.tip" "$LOGS/check-warnings.tip"
	wname+=", cached"
elif ! [ -f "$BUILD/kernel-base/.config" ] || ! [ -f "$BUILD/kernel-cet/.config" ]; then
	result "not ok" "$wname)" "no kernel-base or kernel-cet build: run make kernel base"
	wname=
else
	warnings_at "$BUILD/base-src" "$BUILD/kernel-base" > "$LOGS/check-warnings.base"
	warnings_at "$LINUX" "$BUILD/kernel-cet" > "$LOGS/check-warnings.tip"
	cp "$LOGS/check-warnings.base" "$cache/warnings-$wkey.base"
	cp "$LOGS/check-warnings.tip" "$cache/warnings-$wkey.tip"
fi
if [ -n "$wname" ]; then
	new=$(comm -13 "$LOGS/check-warnings.base" "$LOGS/check-warnings.tip")
	check "$wname)" "$(echo "$new" | head -n 2 | tr '\n' ' ')" test -z "$new"
fi
if [ -d "$wt" ]; then git -C "$wt" checkout -q --detach "$tip"; fi

# 5. Documentation: every .rst the series adds or changes parses cleanly.
while read -r f; do
	# Sphinx's own directives and roles are unknown to plain docutils.
	out=$(rst2pseudoxml --report=2 --halt=5 "$LINUX/$f" 2>&1 >/dev/null |
	      grep -Ev 'Unknown (directive type|interpreted text role)|^$|^\.\. |^   ' || true)
	check "docutils: $f" "$(echo "$out" | head -n 1)" test -z "$out"
done < <(lgit diff --name-only --diff-filter=AM cet-lts-base..HEAD -- '*.rst')

# 6. MAINTAINERS covers every file the series adds.
while read -r f; do
	who=$(cd "$LINUX" && ./scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats -f "$f" 2>/dev/null)
	check "MAINTAINERS entry: $f" "not covered by the X86 USER SHADOW STACK entry" \
		grep -q 'cet-lts' <<< "$who"
done < <(lgit diff --name-only --diff-filter=A cet-lts-base..HEAD)

# 7. The series applies to a vanilla 6.1.y (kernel.org's tree, as users
#    have it), not only to Debian's: scripts/vanilla.sh.
"$TOP/scripts/vanilla.sh" >> "$results" ||
	result "not ok" "series applies with git am to vanilla 6.1.y" "scripts/vanilla.sh failed"

# 8. The QEMU series (emulator/qemu): QEMU's checkpatch on each patch,
#    and each applies on Debian 13's QEMU after the ones before it.
"$TOP/scripts/qemu.sh" check >> "$results" ||
	result "not ok" "QEMU series: checkpatch and git am" "scripts/qemu.sh check failed"

ktap_report
[ -s "$LOGS/check-build-times" ] &&
	echo "# build times per patch: $(tr '\n' ' ' < "$LOGS/check-build-times")"
ktap_summary check
