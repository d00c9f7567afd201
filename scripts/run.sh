#!/bin/bash
# make run: boot the CET test kernel and run one program in the guest (the
# demo, or PROG with ARGS), show its output and return its exit status.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

emu=${EMU:-bochs}
helpers=()
if [ -z "${PROG:-}" ]; then
	# The demo: a return-address overwrite in an unmarked and in a
	# marked program (guest/demo.c).
	"$TOP/scripts/demo.sh"
	prog=$BUILD/demo/demo
	helpers=("@$BUILD/demo/demo-shstk")
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
"$TOP/scripts/initramfs.sh" "$cpio" "$spec" "${helpers[@]}"

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
# The demo exits 4 where the CPU or kernel has no shadow stack (QEMU):
# it has said so, and that is not an error of make run.
if [ -z "${PROG:-}" ] && [ "${rc:-1}" = 4 ]; then
	echo "(no CET on $emu: the demo cannot show the block here; use EMU=bochs)"
	exit 0
fi
exit "${rc:-1}"
