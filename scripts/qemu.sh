#!/bin/bash
# Build QEMU with a CET CPU for TCG (EMU=qemu-cet) into build/qemu-cet:
# Debian 13's QEMU 10.0 source package (Debian's patches applied), our
# series emulator/qemu/*.patch on top (git am, in the order of
# emulator/qemu/series), only qemu-system-x86_64.  Cached by the patches
# and the configure flags (the source is unpacked once, as tag "debian").
#
#   qemu.sh            build (or reuse) build/qemu-cet
#   qemu.sh tree       only prepare build/qemu-cet/src, a git tree whose
#                      tag "debian" is the unpatched source (for work on
#                      the series, on a branch of its own)
#   qemu.sh check      make check's gate: QEMU's scripts/checkpatch.pl on
#                      each patch, and each applies in order (result lines)
#   qemu.sh export [BRANCH]
#                      write BRANCH's commits since "debian" (default: the
#                      branch checked out) to emulator/qemu/ and its series
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/qemu-cet
src=$out/src
bld=$out/build
bin=$bld/qemu-system-x86_64
pdir=$TOP/emulator/qemu
suite=${QEMU_SUITE:-trixie}
conf=(--python=/usr/bin/python3 --target-list=x86_64-softmmu --disable-docs
      --disable-werror --disable-download --disable-vnc --disable-sdl
      --disable-gtk --disable-opengl --disable-xkbcommon
      --disable-install-blobs --disable-tools --disable-guest-agent)

if [ "${1:-}" = export ]; then
	branch=${2:-HEAD}
	git -C "$src" rev-parse -q --verify debian >/dev/null ||
		die "qemu export: $src has no tag debian (qemu.sh tree)"
	rm -f "$pdir"/*.patch
	git -C "$src" format-patch -q --no-signature --zero-commit -N \
		-o "$pdir" debian.."$branch"
	{
		echo "# QEMU 10.0 (Debian 13) patches for a CET CPU in TCG, applied in this order."
		(cd "$pdir" && ls -1 ./*.patch | sed 's|^\./||')
	} > "$pdir/series"
	log "qemu: $(grep -vc '^#' "$pdir/series") patches in emulator/qemu"
	exit 0
fi

mapfile -t qpatches < <(series_patches "$pdir")
for p in "${qpatches[@]}"; do
	[ -f "$pdir/$p" ] || die "emulator/qemu/series names $p, which is not in emulator/qemu/"
done
key=$( (echo "${conf[*]}"; cd "$pdir" && cat series "${qpatches[@]}") | sha256sum | cut -c1-16)
stamp=$out/.stamp
if [ -z "${1:-}" ] && [ -x "$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then
	exit 0
fi

need_cmd ninja ninja-build
need_cmd dpkg-source dpkg-dev
need_file /usr/include/glib-2.0/glib.h libglib2.0-dev
need_file /usr/include/pixman-1/pixman.h libpixman-1-dev
need_file /usr/include/slirp/libslirp.h libslirp-dev
need_file /usr/share/seabios/bios-256k.bin seabios
need_file /usr/share/qemu/kvmvapic.bin qemu-system-data

# The source: unpacked once, committed as tag "debian".
if ! git -C "$src" rev-parse -q --verify debian >/dev/null 2>&1; then
	rm -rf "$out/pkg" "$src"
	log "qemu: fetching QEMU's source package ($suite)"
	debian_source "$out/pkg" "$suite" qemu 1:10.0.
	mv "$src_dir" "$src"
	rm -rf "$out/pkg"/*.orig* "$out/pkg"/*.debian.tar.*
	(
		cd "$src"
		git init -q
		git config user.name cet-lts
		git config user.email cet-lts@localhost
		git add -A -f .
		git commit -q -m "QEMU $src_version (Debian source package, Debian's patches applied)"
		git tag debian
	)
fi
if [ "${1:-}" = tree ]; then
	log "qemu: $src (tag debian: the unpatched source)"
	exit 0
fi

# make check: checkpatch and git am, patch by patch, in a scratch
# worktree.  checkpatch's "space required after that ','" in
# decode-new.c.inc (its operand notation "M,y", which all of its tables
# use) and "spaces required around that ':'" after a CASE_MODRM_*_OP()
# label (translate.c's own style) are not counted: the files they are in
# draw them on every line of that form.
if [ "${1:-}" = check ]; then
	wt=$out/check-wt
	git -C "$src" worktree remove -f "$wt" >/dev/null 2>&1 || rm -rf "$wt"
	git -C "$src" worktree prune
	git -C "$src" worktree add -q --detach "$wt" debian
	for p in "${qpatches[@]}"; do
		errs=$(cd "$src" && ./scripts/checkpatch.pl --no-signoff "$pdir/$p" 2>&1 |
			awk '/^(ERROR|WARNING):/ {msg = $0; next}
			     !msg {next}
			     /^#[0-9]+: FILE:/ {
				if (!(msg ~ /space required after that .,./ && $0 ~ /decode-new\.c\.inc/) &&
				    msg !~ /spaces required around that .:./)
					print msg " (" $3 ")"
				msg = ""; next }
			     {print msg; msg = ""}' | grep -v 'does MAINTAINERS need updating') || true
		if [ -z "$errs" ]; then
			printf 'ok	QEMU checkpatch: emulator/qemu/%s	
' "$p"
		else
			printf 'not ok	QEMU checkpatch: emulator/qemu/%s	%s
' "$p" \
				"$(echo "$errs" | head -n 2 | paste -sd';')"
		fi
		if git -C "$wt" am -q "$pdir/$p" >/dev/null 2>&1; then
			printf 'ok	QEMU patch applies in order: emulator/qemu/%s	
' "$p"
		else
			git -C "$wt" am --abort >/dev/null 2>&1
			printf 'not ok	QEMU patch applies in order: emulator/qemu/%s	git am failed on QEMU %s
' \
				"$p" "$(git -C "$src" log -1 --format=%s debian | awk '{print $2}')"
			break
		fi
	done
	git -C "$src" worktree remove -f "$wt" >/dev/null 2>&1
	exit 0
fi

# meson >= 1.5 and pycotap: from bookworm-backports, unpacked under
# build/qemu-cet/tools (the machine's packages are not touched).
tools=$out/tools
pyp=$tools/usr/lib/python3/dist-packages
if ! [ -f "$pyp/mesonbuild/__init__.py" ] || ! [ -f "$pyp/pycotap/__init__.py" ]; then
	mirror=$(apt_mirror)
	[ -n "$mirror" ] || die "cannot find a Debian mirror in /etc/apt"
	rm -rf "$tools"
	mkdir -p "$tools/debs"
	apt_src_lines "$tools" "deb $mirror bookworm-backports main"
	log "qemu: meson and pycotap from bookworm-backports"
	(cd "$tools/debs" && apt-get "${aptopts[@]}" download \
		meson/bookworm-backports python3-pycotap/bookworm-backports) \
		>>"$tools/apt.log" 2>&1 ||
		die "cannot download meson/python3-pycotap from bookworm-backports (see $tools/apt.log)"
	for d in "$tools"/debs/*.deb; do dpkg -x "$d" "$tools"; done
fi
export PYTHONPATH=$pyp${PYTHONPATH:+:$PYTHONPATH}

log "qemu: applying ${#qpatches[@]} patches from emulator/qemu"
git -C "$src" am --abort >/dev/null 2>&1 || true
git -C "$src" checkout -q -f -B cet debian
for p in "${qpatches[@]}"; do
	git -C "$src" am -q "$pdir/$p" >"$out/am.log" 2>&1 || {
		git -C "$src" am --abort >/dev/null 2>&1 || true
		cat "$out/am.log" >&2
		die "emulator/qemu/$p does not apply (on top of the patches before it in emulator/qemu/series)"
	}
done

log "qemu: building qemu-system-x86_64 into ${bld#$TOP/} (cold: several minutes)"
mkdir -p "$bld"
(
	cd "$bld"
	[ -f build.ninja ] && [ "$(cat .conf 2>/dev/null)" = "${conf[*]}" ] ||
		{ rm -rf ./*; "$src/configure" "${conf[@]}" && echo "${conf[*]}" > .conf; }
	ninja -j"$(nproc)" qemu-system-x86_64
) >"$out/build.log" 2>&1 || { tail -n 30 "$out/build.log" >&2; die "qemu build failed (see $out/build.log)"; }
echo "$key" > "$stamp"
log "qemu: $bin ready"
