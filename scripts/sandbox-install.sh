#!/usr/bin/env bash
# Install bubblewrap (`bwrap`), the sandbox of toolkiln's executable tools (docs/executables.md).
#
#   bash scripts/sandbox-install.sh
#
# Idempotent: when `bwrap` is already on PATH it says so and exits. Otherwise it runs
# `apt-get update` and `apt-get install -y bubblewrap` (Debian and Ubuntu; as root, or through
# sudo when that is available), then checks that bwrap can create its namespaces here.
# Messages go to stderr ("sandbox-install: ..."); the path of bwrap to stdout (last line).
set -euo pipefail

LOG_NAME=sandbox-install
source "$(dirname "$0")/apt-package.sh"

if command -v bwrap >/dev/null 2>&1; then
  log "already installed: $(bwrap --version)"
else
  install_missing bwrap bubblewrap "~100 KB"
fi

# The check toolkiln relies on: a new namespace of every kind, with /usr read-only, as the user
# the programs run as (toolkiln, when root, starts bwrap as nobody: see docs/executables.md).
check=(bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --symlink usr/bin /bin
       --symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc --dev /dev true)
if [[ "$(id -u)" == 0 ]] && command -v setpriv >/dev/null 2>&1; then
  check=(setpriv --reuid=65534 --regid=65534 --clear-groups "${check[@]}")
fi
if ! "${check[@]}" 2>/dev/null; then
  die "bwrap is installed but cannot create namespaces here (unprivileged user namespaces disabled? see docs/executables.md)"
fi
log "bwrap works: it created its namespaces"
command -v bwrap
