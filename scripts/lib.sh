# Shared helpers for the cet-lts scripts (sourced, not run).
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
LINUX=$BUILD/linux
LOGS=$BUILD/logs
mkdir -p "$BUILD" "$LOGS"

log() { echo ">> $*" >&2; }
die() { echo "error: $*" >&2; exit 1; }

# need_cmd CMD PACKAGE: fail with the package to install if CMD is missing.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install package '$2' (make deps)"
}

need_file() {
	[ -e "$1" ] || die "'$1' not found: install package '$2' (make deps)"
}

lgit() { git -C "$LINUX" "$@"; }

# The patch files patches/series lists, in order.
series_patches() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/patches/series"
}

# A hash of everything the tree is built from.
series_id() {
	(cd "$TOP/patches" && cat BASE series $(series_patches)) |
		sha256sum | cut -d' ' -f1
}
