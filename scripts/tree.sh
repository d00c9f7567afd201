#!/bin/bash
# Lay out build/linux: Debian's linux-source-6.1 as one base commit (tagged
# cet-lts-base), then one commit per patch in patches/series (git am).
#
# The tree is rebuilt only when patches/ changed since it was last laid
# out, and never over work that has not been exported: commits or edits in
# build/linux that patches/ does not hold stop the script (FORCE=1 discards
# them).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

need_cmd git git
need_cmd xz xz-utils

tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
need_file "$tarball" linux-source-6.1
want_base=$(sed -n 's/^package: *//p' "$TOP/patches/BASE")
have_base=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)

stamp=$BUILD/tree.stamp

if [ -d "$LINUX/.git" ] && [ -f "$stamp" ]; then
	read -r old_id old_head < "$stamp"
	if [ "$old_id" = "$(series_id)" ] && [ "$old_head" = "$(lgit rev-parse HEAD)" ]; then
		exit 0			# up to date
	fi
	if [ "${FORCE:-0}" != 1 ]; then
		if [ "$old_head" != "$(lgit rev-parse HEAD)" ]; then
			die "build/linux has commits that are not in patches/: run 'make export' to keep them, or 'make tree FORCE=1' to drop them"
		fi
		if [ -n "$(lgit status --porcelain --untracked-files=no)" ]; then
			die "build/linux has uncommitted changes: commit and 'make export' them, or 'make tree FORCE=1' to drop them"
		fi
	fi
fi

if ! [ -d "$LINUX/.git" ] || ! lgit rev-parse -q --verify cet-lts-base >/dev/null; then
	[ "$want_base" = "$have_base" ] ||
		echo "warning: series was made on linux-source-6.1 $want_base, installed is $have_base; trying anyway" >&2
	log "tree: unpacking $tarball"
	rm -rf "$LINUX" "$BUILD/linux.tmp"
	mkdir -p "$BUILD/linux.tmp"
	tar -C "$BUILD/linux.tmp" -xf "$tarball"
	mv "$BUILD/linux.tmp"/linux-source-6.1 "$LINUX"
	rmdir "$BUILD/linux.tmp"
	lgit init -q -b master
	lgit config user.name "cet-lts developers"
	lgit config user.email "cet-lts@localhost"
	lgit config core.autocrlf false
	lgit config gc.auto 0
	# Debian's .gitignore ignores every top-level path (its packaging
	# repository keeps only debian/), which would hide new files from
	# "git add".  Drop that rule; git am does not care either way.
	sed -i '/^# Debian packaging: ignore everything/,$d' "$LINUX/.gitignore"
	lgit add -A -f .
	lgit commit -q -m "Debian linux-source-6.1 $have_base" \
		-m "Pristine but for the Debian top-level ignore-all rule in .gitignore."
	lgit tag cet-lts-base
else
	lgit reset -q --hard cet-lts-base
	lgit clean -q -fdx -e /.git
fi

# Committer identity for git am: the developer's own if set, else ours.
if ! git config user.email >/dev/null; then
	export GIT_COMMITTER_NAME="cet-lts" GIT_COMMITTER_EMAIL="cet-lts@localhost"
fi

# Until the whole series is in, the tree holds nothing of its own: record
# that, so a failed or interrupted run can simply be repeated.
echo "pending $(lgit rev-parse HEAD)" > "$stamp"

n=0
while read -r p; do
	n=$((n + 1))
	[ -f "$TOP/patches/$p" ] || die "patches/series names $p, which does not exist"
	if ! out=$(lgit am -q --keep-cr "$TOP/patches/$p" 2>&1); then
		lgit am --abort >/dev/null 2>&1 || true
		lgit reset -q --hard cet-lts-base
		echo "pending $(lgit rev-parse HEAD)" > "$stamp"
		echo "$out" | sed 's/^/    /' >&2
		# git apply -v shows the text of the hunk it could not place.
		lgit apply --check -v "$TOP/patches/$p" 2>&1 |
			sed -n '/^error: while searching for:/,/^error: patch failed/p' |
			head -n 40 | sed 's/^/    /' >&2 || true
		die "patch $n, patches/$p, does not apply on linux-source-6.1 $have_base (failing hunk above)"
	fi
done < <(series_patches)

echo "$(series_id) $(lgit rev-parse HEAD)" > "$stamp"
log "tree: build/linux = base $have_base + $n patches"
