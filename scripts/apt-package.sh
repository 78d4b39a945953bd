# Sourced by the install scripts (sandbox-install.sh, browser-install.sh): their messages, and
# the Debian package they install when its command is missing. Set LOG_NAME before sourcing.
#
#   install_missing COMMAND PACKAGE SIZE    # apt-get update, then apt-get install -y PACKAGE
#
# As root, or through sudo when that is available; says what it installs and how big it is.

log() { printf '%s: %s\n' "$LOG_NAME" "$*" >&2; }
die() { log "error: $*"; exit 1; }

install_missing() {
  local command=$1 package=$2 size=$3
  command -v "$command" >/dev/null 2>&1 && return 0
  command -v apt-get >/dev/null 2>&1 || die "$command is missing and apt-get is not here: install $package with your package manager"
  local as_root=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "$command is missing; run this script as root (or install sudo)"
    as_root=(sudo)
  fi
  log "$command is missing: installing the Debian package $package (apt-get update, then apt-get install -y $package; $size)"
  # (two test processes may install at once: apt waits for the other's lock instead of failing)
  "${as_root[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$package" >&2
}
