#!/bin/bash
# Build 6.1's own selftests from the plain base tree (build/base-src, the
# tree of make base) as static programs, against the base's UAPI headers,
# and pick the ones configs/kselftests names: build/kselftests/bin holds
# them as DIR-PROG[.TAG], build/kselftests/list their initramfs specs
# (PATH[=ARGS]) and build/kselftests/left-out what a "*" left out.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$BUILD/base-src
conf=$TOP/configs/kselftests
out=$BUILD/kselftests
[ -f "$BUILD/kernel-base/.config" ] || die "no base kernel configured: run 'make base'"
need_file /usr/include/sys/capability.h libcap-dev
need_file /usr/include/popt.h libpopt-dev
need_file /usr/include/numa.h libnuma-dev
need_file /usr/lib/gcc/x86_64-linux-gnu/12/32/crtbegin.o gcc-multilib
mkdir -p "$out/bin"

make -s -C "$src" O="$BUILD/kernel-base" headers >"$LOGS/kselftests-headers.log" 2>&1 ||
	die "make headers in the base tree failed (log: $LOGS/kselftests-headers.log)"
hdr=$BUILD/kernel-base/usr/include

dirs=$(awk '$1 == "run" { print $2 }' "$conf" | sort -u)
stamp=$out/.built
# Rebuild when the directories or the base tree changed (rarely).
if ! [ -f "$stamp" ] ||
   [ "$(cat "$stamp")" != "$(git -C "$src" rev-parse HEAD) $dirs" ]; then
	log "kselftests: building $(echo $dirs) from the 6.1 base (log: $LOGS/kselftests.log)"
	: > "$LOGS/kselftests.log"
	for d in $dirs; do
		rm -rf "$out/$d"; mkdir -p "$out/$d"
		# -k: a program that does not build is reported below only if
		# configs/kselftests asks for it by name.
		make -k -C "$src/tools/testing/selftests/$d" OUTPUT="$out/$d" \
			CC="gcc -static" EXTRA_CFLAGS=-static \
			KHDR_INCLUDES="-isystem $hdr" >>"$LOGS/kselftests.log" 2>&1 || true
	done
	echo "$(git -C "$src" rev-parse HEAD) $dirs" > "$stamp"
fi

# built DIR: the executables DIR's build left (ELF programs, not scripts).
built() {
	find "$out/$1" -type f -perm -u+x -print | while read -r f; do
		[ "$(head -c 4 "$f")" = $'\x7fELF' ] && echo "${f#$out/$1/}"
	done | LC_ALL=C sort
}

rm -f "$out/bin/"*
# The machines kself.sh boots (scripts/boot.sh's EMU names).
machines="bochs qemu qemu-cet"
: > "$out/list.new"; : > "$out/left-out"
for m in $machines; do : > "$out/skip-on-$m.new"; done
add() {		# add DIR PROG TAG [ARGS...]
	local d=$1 p=$2 tag=$3 name; shift 3
	[ -f "$out/$d/$p" ] || die "configs/kselftests: $d/$p did not build (log: $LOGS/kselftests.log)"
	name="$d-${p//\//-}${tag:+.$tag}"
	cp -p "$out/$d/$p" "$out/bin/$name"
	if [ $# -gt 0 ]; then echo "$out/bin/$name=$*"; else echo "$out/bin/$name"; fi >> "$out/list.new"
}
while read -r what d p rest; do
	case $what in
	run)
		if [ "$p" = "*" ]; then
			for b in $(built "$d"); do
				if awk -v d="$d" -v p="$b" '$1 == "skip" && $2 == d && $3 == p { f = 1 } END { exit !f }' "$conf"; then
					echo "$d/$b" >> "$out/left-out"
				elif ! grep -qE "^run $d ${b//./\\.}(:| |\$)" "$conf"; then
					add "$d" "$b" ""
				fi
			done
		else
			tag=
			case $p in *:*) tag=${p#*:} ;; esac
			# shellcheck disable=SC2086
			add "$d" "${p%%:*}" "$tag" $rest
		fi ;;
	skip) echo "$d/$p" >> "$out/left-out" ;;
	skip-on)	# skip-on MACHINE DIR PROG REASON: $d is MACHINE, $p DIR
		[ -f "$out/skip-on-$d.new" ] || die "configs/kselftests: skip-on $d: one of $machines"
		echo "$p-${rest%% *}" >> "$out/skip-on-$d.new" ;;
	esac
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$conf")
mv "$out/list.new" "$out/list"
for m in $machines; do mv "$out/skip-on-$m.new" "$out/skip-on-$m"; done
log "kselftests: $(wc -l < "$out/list") programs to run, $(sort -u "$out/left-out" | wc -l) left out by name"
