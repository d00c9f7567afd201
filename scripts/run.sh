#!/bin/bash
# make run: boot the CET test kernel and run one program in the guest (the
# demo, or PROG with ARGS), show its output and return its exit status.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

emu=${EMU:-bochs}
if [ -z "${PROG:-}" ]; then
	# The demo: a return-address overwrite without and with shadow stack.
	prog=$BUILD/demo/demo
	mkdir -p "$BUILD/demo"
	if ! [ "$prog" -nt "$TOP/guest/demo.c" ]; then
		need_cmd gcc build-essential
		gcc -static -O2 -Wall -fno-stack-protector -o "$prog" "$TOP/guest/demo.c" ||
			die "guest/demo.c does not build"
	fi
else
	prog=$PROG
fi
[ -f "$prog" ] || die "PROG=$prog does not exist"
if readelf -l "$prog" 2>/dev/null | grep -q INTERP; then
	die "PROG=$prog is dynamically linked; the guest has no libc: build it with -static"
fi
cpio=$BUILD/initramfs/run.cpio
spec=$prog
[ -n "${ARGS:-}" ] && spec="$prog=$ARGS"
"$TOP/scripts/initramfs.sh" "$cpio" "$spec"

name=run-$emu
log=$LOGS/$name.serial.log
ok=0
"$TOP/scripts/boot.sh" "$emu" "$name" "$BUILD/bzImage" "$cpio" || ok=1
base=$(basename "$prog")
echo "---- $base on $emu ----"
sed -n "s/\r$//; /^CETLTS-BEGIN $base\$/,/^CETLTS-END $base /p" "$log" | sed '1d;$d'
rc=$(sed -n "s/\r$//; s/^CETLTS-END $base rc=//p" "$log")
echo "---- exit status: ${rc:-none (guest did not finish)} ----"
[ $ok = 0 ] || exit 1
exit "${rc:-1}"
