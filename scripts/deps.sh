#!/bin/bash
# Install what the harness needs from Debian 12's archive (idempotent:
# nothing is done when every package is already there).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(build-essential flex bison bc libelf-dev libssl-dev ccache cpio
      xz-utils git busybox-static qemu-system-x86 bochsbios vgabios mtools
      syslinux syslinux-common libltdl-dev linux-source-6.1
      linux-source-6.12 sparse python3-docutils gnuplot-nox
      gcc-multilib libcap-dev libpopt-dev libnuma-dev linux-config-6.1
      dpkg-dev gawk libglib2.0-dev libpixman-1-dev libslirp-dev ninja-build
      python3-venv seabios qemu-system-data)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0

log "deps: installing ${missing[*]}"
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -q >"$LOGS/apt.log" 2>&1 ||
	{ tail -n 5 "$LOGS/apt.log" >&2; die "apt-get update failed (log: $LOGS/apt.log)"; }
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
	"${missing[@]}" >>"$LOGS/apt.log" 2>&1 ||
	{ tail -n 5 "$LOGS/apt.log" >&2; die "apt-get install ${missing[*]} failed (log: $LOGS/apt.log)"; }
