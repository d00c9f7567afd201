#!/bin/bash
# Boot a kernel + initramfs on an emulator, with a hard timeout, keeping
# the serial console in build/logs/NAME.serial.log.
#
#   boot.sh EMU NAME KERNEL INITRD [EXTRA CMDLINE...]
# EMU: bochs (CET CPU, tigerlake), qemu-cet (our QEMU, TCG with shadow
# stacks), qemu (the same QEMU without CET), qemu-kvm (Debian's QEMU with
# KVM: the host CPU, with CET if it has it).
# CPUS=N: the guest's CPUs (default 1).  Bochs runs them one after another
# on one host thread, a few instructions each (interleaved, never at the
# same instant); QEMU runs them as it is configured to.
# Exit 0 when the guest reached the end of /init (CETLTS-DONE), 1 when it
# did not (crash, panic, timeout: the reason is printed with the log name).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

emu=$1 name=$2 kernel=$3 initrd=$4; shift 4
# numa=fake=2: two NUMA nodes (configs/distro.config has NUMA_EMU), so
# NUMA balancing and migration between nodes run as on a 2-socket host.
# BOOT_OOPS_PANIC=0: an oops kills only the task (what the crash
# investigations of configs/kselftests need to see the oops at all).
oops=oops=panic
[ "${BOOT_OOPS_PANIC:-1}" = 0 ] && oops=
cmdline="console=ttyS0 panic=-1 $oops loglevel=7 numa=fake=2 $*"
timeout=${BOOT_TIMEOUT:-300}
cpus=${CPUS:-1}
case $cpus in [1-9]|[1-9][0-9]) ;; *) die "CPUS=$cpus: give a number of CPUs" ;; esac
serial=$LOGS/$name.serial.log
dir=$BUILD/boot/$name
rm -rf "$dir"; mkdir -p "$dir"
: > "$serial"
[ -f "$kernel" ] || die "no kernel image $kernel"
[ -f "$initrd" ] || die "no initramfs $initrd"

case $emu in
bochs)
	# Bochs leaves fast strings disabled in IA32_MISC_ENABLE, so 6.1
	# clears ERMS but keeps FSRM; 6.1's memmove then skips its short-copy
	# check (FSRM) without taking the "rep movsb" path (ERMS) and
	# corrupts memory on the first short overlapping move (seen as a
	# hang right after "smpboot: SMP disabled").  Real CPUs with FSRM
	# have fast strings on.  Hide FSRM from the guest kernel.
	# Bochs lists APERFMPERF but has no such MSRs: each timer tick's read
	# of them would log an error in bochs.log.  Hide it too.
	case " $cmdline " in
	*" clearcpuid="*) cmdline=$(echo "$cmdline" | sed 's/clearcpuid=\([^ ]*\)/clearcpuid=\1,fsrm,aperfmperf/') ;;
	*) cmdline="$cmdline clearcpuid=fsrm,aperfmperf" ;;
	esac
	bochs=$BUILD/bochs/bin/bochs
	# With several CPUs Bochs runs each for up to "quantum" instructions
	# in turn: 32 (its maximum; the default is 16) boots the bare
	# initramfs on 2 CPUs in 40 s instead of 58 (one CPU: 16 s).
	quantum=
	if [ "$cpus" != 1 ]; then
		bochs=$BUILD/bochs-smp/bin/bochs
		quantum=", quantum=${BOCHS_QUANTUM:-32}"
	fi
	[ -x "$bochs" ] || die "no Bochs 3.0 at $bochs: run 'make emulator' (CPUS=N: 'scripts/emulator.sh smp')"
	need_cmd mformat mtools
	need_cmd syslinux syslinux
	need_file /usr/share/bochs/BIOS-bochs-latest bochsbios
	need_file /usr/share/vgabios/vgabios.bin vgabios
	# 32 MiB FAT disk with syslinux: 65 cylinders x 16 heads x 63 sectors.
	img=$dir/boot.img
	dd if=/dev/zero of="$img" bs=512 count=$((65 * 16 * 63)) status=none
	mformat -i "$img" -t 65 -h 16 -s 63 ::
	syslinux --install "$img"
	printf 'DEFAULT linux\nLABEL linux\n  KERNEL bzImage\n  APPEND initrd=initrd.cpio %s\n' \
		"$cmdline" > "$dir/syslinux.cfg"
	mcopy -i "$img" "$dir/syslinux.cfg" ::/syslinux.cfg
	mcopy -i "$img" "$kernel" ::/bzImage
	mcopy -i "$img" "$initrd" ::/initrd.cpio
	cat > "$dir/bochsrc" <<-EOR
	megs: ${BOCHS_MEGS:-512}
	cpu: model=${BOCHS_CPU:-tigerlake}, count=$cpus, ips=${BOCHS_IPS:-100000000}$quantum
	romimage: file=/usr/share/bochs/BIOS-bochs-latest
	vgaromimage: file=/usr/share/vgabios/vgabios.bin
	ata0-master: type=disk, path=$img, mode=flat, cylinders=65, heads=16, spt=63
	boot: disk
	com1: enabled=1, mode=file, dev=$serial
	display_library: nogui
	clock: sync=none, time0=local
	log: $dir/bochs.log
	panic: action=fatal
	EOR
	run=(timeout --foreground -k 10 "$timeout" "$bochs" -q -f "$dir/bochsrc")
	;;
qemu|qemu-kvm|qemu-cet)
	qemu=qemu-system-x86_64
	case $emu in
	qemu|qemu-cet)
		# Our QEMU (scripts/qemu.sh), TCG; several CPUs run on as
		# many host threads.  qemu-cet has a CET CPU; qemu is the same
		# machine without the CET properties.  -nodefaults: q35's
		# default devices cost SeaBIOS half a minute of probing.
		qemu=$BUILD/qemu-cet/build/qemu-system-x86_64
		[ -x "$qemu" ] || die "EMU=$emu: $qemu is missing (make qemu)"
		cpu=max,cet-ss=on
		[ "$emu" = qemu ] && cpu=max,cet-ss=off,cet-ibt=off
		accel=(-accel tcg,thread=multi -cpu "${QEMU_CPU:-$cpu}"
		       -machine q35 -nodefaults -nic none
		       -L /usr/share/seabios -L /usr/share/qemu) ;;
	qemu-kvm)
		need_cmd qemu-system-x86_64 qemu-system-x86
		[ -w /dev/kvm ] || die "EMU=qemu-kvm needs /dev/kvm"
		accel=(-accel kvm -cpu "${QEMU_CPU:-host,cet-ss=on,cet-ibt=on}") ;;
	esac
	run=(timeout --foreground -k 10 "$timeout" "$qemu" "${accel[@]}"
	     -m "${QEMU_MEGS:-512}" -smp "$cpus" -kernel "$kernel" -initrd "$initrd"
	     -append "$cmdline" -display none -monitor none -no-reboot
	     -serial "file:$serial")
	# QEMU_LOG=ITEMS: QEMU's own log (-d ITEMS, e.g. cpu_reset,int) in
	# the boot's directory, for investigating a guest that dies.
	[ -n "${QEMU_LOG:-}" ] && run+=(-d "$QEMU_LOG" -D "$dir/qemu.log")
	;;
*)
	die "unknown EMU=$emu (bochs, qemu, qemu-cet or qemu-kvm)"
	;;
esac

start=$(date +%s.%N)
rc=0
"${run[@]}" </dev/null >"$dir/emulator.out" 2>&1 || rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
printf '%s %.1f\n' "$name" "$secs" >> "$LOGS/boot-times"

if grep -q '^CETLTS-DONE' "$serial"; then
	log "boot[$name]: $emu finished in $(printf %.1f "$secs") s (log: $serial)"
	exit 0
fi
if [ $rc = 124 ] || [ $rc = 137 ]; then
	why="timed out after $timeout s"
elif grep -q 'Kernel panic' "$serial"; then
	why="kernel panic: $(grep -m1 'Kernel panic' "$serial" | tr -d '\r')"
else
	why="guest stopped before the end of /init ($emu exit $rc)"
fi
echo "$why" > "$dir/why"
echo "boot[$name]: $why (log: $serial)" >&2
exit 1
