#!/bin/bash
# make run: boot the CET test kernel and run one program in the guest (the
# demo, or PROG with ARGS), show its output and return its exit status.
# Without PROG, two demos: one program attacked (guest/demo.c), then a
# whole small userland on glibc 2.41 with shadow stack on in every process
# (guest/libc/demo.sh); DEMO=1 or DEMO=2 runs one of them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

emu=${EMU:-qemu-cet}
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
# The emulator, built if needed: QEMU-CET (the default) or Bochs; CPUS=N
# on Bochs needs its --enable-smp build.
case $emu in
qemu|qemu-cet) "$TOP/scripts/qemu.sh" ;;
bochs) "$TOP/scripts/emulator.sh"
	[ "${CPUS:-1}" = 1 ] || "$TOP/scripts/emulator.sh" smp ;;
esac
cpio=$BUILD/initramfs/run.cpio
spec=$prog
[ -n "${ARGS:-}" ] && spec="$prog=$ARGS"
"$TOP/scripts/initramfs.sh" "$cpio" "$spec" "${helpers[@]}"

# show NAME CPIO PROG: boot, show PROG's output, set rc to its exit status.
show() {
	local name=$1-$emu base=$3 log=$LOGS/$1-$emu.serial.log
	rc=
	"$TOP/scripts/boot.sh" "$emu" "$name" "$BUILD/bzImage" "$2" || true
	echo "---- $base on $emu ----"
	sed -n "s/\r$//; /^CETLTS-BEGIN $base\$/,/^CETLTS-END $base /p" "$log" | sed '1d;$d'
	rc=$(sed -n "s/\r$//; s/^CETLTS-END $base rc=\([0-9]*\).*/\1/p" "$log")
	echo "---- exit status: ${rc:-none (guest did not finish, see $log)} ----"
	rc=${rc:-1}
}

if [ -n "${PROG:-}" ]; then
	show run "$cpio" "$(basename "$prog")"
	exit "$rc"
fi
status=0
if [ "${DEMO:-1}" = 1 ]; then
	show run "$cpio" demo
	# The demo exits 4 where the CPU or kernel has no shadow stack (QEMU):
	# it has said so, and that is not an error of make run.
	if [ "$rc" = 4 ]; then
		echo "(no CET on $emu: the demo cannot show the block here; use EMU=bochs)"
	elif [ "$rc" != 0 ]; then
		status=1
	fi
fi
if [ "${DEMO:-2}" = 2 ]; then
	if ! grep -qw user_shstk <(sed -n 's/\r$//; s/^CETLTS-FLAGS //p' "$LOGS/run-$emu.serial.log" 2>/dev/null) &&
	   [ "${DEMO:-}" != 2 ]; then
		echo "(no CET on $emu: the userland demo needs it; use EMU=bochs)"
		exit $status
	fi
	"$TOP/scripts/libc.sh" 2.41
	cpio=$BUILD/initramfs/run-libc.cpio.xz
	"$TOP/scripts/initramfs.sh" "$cpio" "$TOP/guest/libc/libc-demo" \
		"@$TOP/guest/libc/libc-chroot" \
		"^$BUILD/libc-2.41/root=glibc-2.41"
	show run-libc "$cpio" libc-demo
	[ "$rc" = 0 ] || status=1
fi
exit $status
