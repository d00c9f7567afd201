#!/bin/bash
# vanilla.sh: does the series apply to a vanilla 6.1.y, as a user's tree is?
# The series is made on Debian's linux-source-6.1, which carries Debian's
# own patches; users apply it to kernel.org's 6.1.y.  This unpacks the
# kernel.org tree of Debian's newest orig tarball that the mirror has
# (bookworm and bookworm-security; VANILLA=6.1.N picks a sublevel), only
# the files the series touches, and applies patches/ to it in order with
# "git am -3", as a user would.  A patch that does not apply is named,
# with what "patch -p1" makes of it.
# Prints one result line "ok|not ok<TAB>NAME<TAB>DETAIL" (check.sh's
# format) on stdout; the tarball and the verdict are cached in
# build/vanilla, keyed by the tarball's and the patches' hashes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

work=$BUILD/vanilla
mkdir -p "$work"
need_cmd patch patch
need_cmd xz xz-utils
want=${VANILLA:-}
case $want in ''|6.1.[0-9]*) ;; *) die "VANILLA=$want: give a 6.1 sublevel, e.g. VANILLA=6.1.170";; esac

# Candidates "SUBLEVEL URL SHA256", newest first, from each Sources index.
lines=() mirrors=()
for m in "$(apt_mirror) bookworm" "$(apt_mirror security) bookworm-security"; do
	read -r uri suite <<< "$m"
	[ -n "$suite" ] || continue
	lines+=("deb-src $uri $suite main") mirrors+=("$m")
done
[ ${#lines[@]} -gt 0 ] || die "cannot find a Debian mirror in /etc/apt"
candidates() {
	local m uri suite prefix
	for m in "${mirrors[@]}"; do
		read -r uri suite <<< "$m"
		prefix=$(echo "${uri#*://}" | tr / _)_dists_${suite}_main_source_Sources
		for f in "$work"/apt/lists/"$prefix"*; do
			[ -e "$f" ] || continue
			/usr/lib/apt/apt-helper cat-file "$f" |
			# A stanza's Directory may come after its checksums: print
			# at the stanza's end.
			awk -v uri="$uri" '
				function flush() {
					if (file != "") print v, uri "/" dir "/" file, sha
					file = ""
				}
				/^$/ {flush(); next}
				/^Package:/ {ok = ($2 == "linux"); next}
				!ok {next}
				/^Directory:/ {dir = $2}
				/^Checksums-Sha256:/ {s = 1; next}
				/^[^ ]/ {s = 0}
				s && $3 ~ /^linux_6\.1\.[0-9]+\.orig\.tar\.xz$/ {
					file = $3; sha = $1
					v = file; sub(/^linux_/, "", v); sub(/\.orig\.tar\.xz$/, "", v)
				}
				END {flush()}'
		done
	done | sort -rV | uniq
}

# The newest tarball that downloads and matches its index (a mirror may
# list a version whose orig tarball it no longer has); a cached one if
# the mirror cannot be reached.
tarball= tarball_sha=
if (apt_src_lines "$work" "${lines[@]}") 2>"$work/apt.err"; then
	while read -r v url sha; do
		[ -z "$want" ] || [ "$v" = "$want" ] || continue
		f=$work/linux_$v.orig.tar.xz
		if [ ! -s "$f" ] || [ "$(sha256sum < "$f" | cut -d' ' -f1)" != "$sha" ]; then
			log "vanilla: fetching $url"
			rm -f "$f"
			/usr/lib/apt/apt-helper download-file "$url" "$f.part" "SHA256:$sha" \
				>>"$work/download.log" 2>&1 || { rm -f "$f.part"; continue; }
			mv "$f.part" "$f"
		fi
		tarball=$f tarball_sha=$sha
		break
	done < <(candidates)
else
	log "vanilla: $(cat "$work/apt.err"); using a cached tarball"
	tarball=$(ls "$work"/linux_${want:-6.1.*}.orig.tar.xz 2>/dev/null | sort -V | tail -n1)
	[ -z "$tarball" ] || tarball_sha=$(sha256sum < "$tarball" | cut -d' ' -f1)
fi
if [ -z "$tarball" ]; then
	printf 'not ok\tseries applies to vanilla %s\t%s\n' "${want:-6.1.y}" \
		"no linux_${want:-6.1.*}.orig.tar.xz on the mirror (see build/vanilla/download.log)"
	exit 0
fi
v=$(basename "$tarball" .orig.tar.xz); v=${v#linux_}
# One tarball is kept (138 MB each).
for f in "$work"/linux_*.orig.tar.xz; do
	[ "$f" = "$tarball" ] || rm -f "$f"
done
name="series applies with git am to vanilla $v (Debian's linux_$v.orig.tar.xz)"

mapfile -t patches < <(series_patches)
key=$( (echo "$tarball_sha"; cd "$TOP/patches" && cat "${patches[@]}") | sha256sum | cut -c1-16)
if [ -s "$work/verdict-$key" ]; then
	cat "$work/verdict-$key"
	exit 0
fi

# The files the series changes that exist before it (the ones it creates
# come from the patches).
tree=$work/tree-$v
rm -rf "$work"/tree-*
mkdir -p "$tree"
(cd "$TOP/patches" && cat "${patches[@]}") | awk '
	/^diff --git / {f = substr($3, 3); seen[f] = 1}
	/^new file mode/ {made[f] = 1}
	END {for (f in seen) if (!made[f]) print f}' | sort > "$work/files"
sed "s|^|linux-$v/|" "$work/files" > "$work/members"
tar -xJf "$tarball" -C "$tree" --strip-components=1 --files-from="$work/members" \
	2>"$work/tar.err" || {
	printf 'not ok\t%s\t%s\n' "$name" "$(grep -m1 'Not found' "$work/tar.err" ||
		head -n1 "$work/tar.err"): the series changes a file the tree lacks"
	exit 0
}
g() { git -C "$tree" -c user.name=cet-lts -c user.email=cet-lts@localhost "$@"; }
g init -q
g add -A
g commit -q -m "linux $v (the files the series changes)"

verdict="ok	$name	"
for p in "${patches[@]}"; do
	if ! g am -q -3 "$TOP/patches/$p" >"$work/am.log" 2>&1; then
		how=$(cd "$tree" && g am --abort && patch -p1 --dry-run < "$TOP/patches/$p" 2>&1 |
		      awk '/^checking file/ {f = $3} /^Hunk #[0-9]+ FAILED/ {n++; h = h sep f " " $2; sep = ", "}
			   END {print n ? "patch -p1: hunk " h " fails" : "patch -p1 applies it (with fuzz or offset)"}' ||
		      true)
		verdict="not ok	$name	$p does not apply ($how)"
		break
	fi
done
printf '%s\n' "$verdict" | tee "$work/verdict-$key"
