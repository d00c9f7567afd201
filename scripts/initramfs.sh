#!/bin/bash
# Pack an initramfs (uncompressed newc cpio) with busybox-static, our /init
# and the given test programs.
#
#   initramfs.sh OUT.cpio [PROG[=ARGS] | !PROG[=ARGS] | @FILE | +LIST] ...
# Each PROG lands in /tests under its own name and runs in name order;
# "=ARGS" after it gives its command line. Each !PROG lands in
# /tests.last and runs after all of /tests (a test that can crash or
# hang the guest). Each @FILE lands in /bin and does not run by itself
# (a helper a test program execs). Each ^DIR=NAME copies the tree DIR to
# /NAME (a C library's userland). +LIST reads specs from a file.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

need_file /bin/busybox busybox-static
need_cmd cpio cpio
readelf -l /bin/busybox 2>/dev/null | grep -q INTERP &&
	die "/bin/busybox is dynamically linked: install busybox-static"

out=$1; shift

# +LIST: the specs in file LIST, one per line (arguments may have spaces).
specs=()
for spec in "$@"; do
	if [ "${spec#+}" != "$spec" ]; then
		[ -f "${spec#+}" ] || die "spec list ${spec#+} does not exist"
		mapfile -t -O "${#specs[@]}" specs < "${spec#+}"
	else
		specs+=("$spec")
	fi
done

# Up to date: OUT is newer than every program, /init, this script and
# the list of specs it was made from (kept beside it).
mkdir -p "$(dirname "$out")"
printf '%s\n' "${specs[@]}" > "$out.specs.new"
uptodate=1
cmp -s "$out.specs.new" "$out.specs" 2>/dev/null || uptodate=0
for f in "$TOP/guest/init" "$0" /bin/busybox; do
	[ "$out" -nt "$f" ] || uptodate=0
done
for spec in "${specs[@]}"; do
	f=${spec#[@!^]}; f=${f%%=*}
	if [ -d "$f" ]; then
		[ -z "$(find "$f" -newer "$out" -print -quit 2>/dev/null)" ] || uptodate=0
	fi
	[ "$out" -nt "$f" ] || uptodate=0
done
if [ $uptodate = 1 ]; then
	rm -f "$out.specs.new"
	exit 0
fi

stage=$(mktemp -d "$BUILD/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,tests,tests.last,tests.args}
cp /bin/busybox "$stage/bin/busybox"
cp "$TOP/guest/init" "$stage/init"
chmod 755 "$stage/init"

for spec in "${specs[@]}"; do
	if [ "${spec#^}" != "$spec" ]; then
		spec=${spec#^}
		[ -d "${spec%%=*}" ] || die "userland tree ${spec%%=*} does not exist"
		cp -a "${spec%%=*}" "$stage/${spec#*=}"
		continue
	fi
	if [ "${spec#@}" != "$spec" ]; then
		[ -f "${spec#@}" ] || die "helper program ${spec#@} does not exist"
		cp "${spec#@}" "$stage/bin/"
		chmod 755 "$stage/bin/$(basename "${spec#@}")"
		continue
	fi
	dir=tests
	if [ "${spec#!}" != "$spec" ]; then
		spec=${spec#!}
		dir=tests.last
	fi
	prog=${spec%%=*}
	[ -f "$prog" ] || die "test program $prog does not exist"
	name=$(basename "$prog")
	cp "$prog" "$stage/$dir/$name"
	chmod 755 "$stage/$dir/$name"
	case $spec in *=*) printf '%s\n' "${spec#*=}" > "$stage/tests.args/$name";; esac
done

mkdir -p "$(dirname "$out")"
# OUT.cpio.xz: xz-compressed (the kernel wants the CRC32 check), for the
# big initramfs of static programs; the boot disk stays small.
compress=(cat)
case $out in *.xz) need_cmd xz xz-utils; compress=(xz -T0 -6 --check=crc32) ;; esac
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0) | "${compress[@]}" > "$out.tmp"
mv "$out.tmp" "$out"
mv "$out.specs.new" "$out.specs"
