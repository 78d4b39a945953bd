#!/usr/bin/env bash
# A throwaway PostgreSQL for toolkiln's `postgres`-marked tests (issue 29, docs/fleets.md).
#
#   bash scripts/postgres-install.sh        # prints the cluster's URL (last line, stdout)
#
# Installs Debian's `postgresql` when initdb is missing (apt-get update, then install), then
# starts a cluster listening on 127.0.0.1 only, on a free port, in a fresh folder under
# ${TOOLKILN_PG_DIR:-~/.cache/toolkiln/postgres} (as root: a new folder under /tmp, since root's
# home is closed to the cluster's owner). PostgreSQL refuses to run as root, so as root the
# cluster belongs to the `postgres` user. Stop it as that user too (pg_ctl refuses root):
#   setpriv --reuid=postgres --regid=postgres --init-groups pg_ctl -D DIR/data stop -m fast
# Messages go to stderr ("postgres-install: ..."); the URL to stdout.
# Called from .ci/run, which exports the URL as TOOLKILN_PG_URL for the tests (tests/integration/conftest.py).
set -euo pipefail

LOG_NAME=postgres-install
source "$(dirname "$0")/apt-package.sh"

pg_bin=""
find_pg_bin() {
  local candidate
  for candidate in /usr/lib/postgresql/*/bin; do
    [[ -x $candidate/initdb ]] && pg_bin=$candidate
  done
  return 0
}
find_pg_bin
if [[ -z $pg_bin ]]; then
  install_missing initdb postgresql "~50 MB"
  find_pg_bin
fi
[[ -n $pg_bin ]] || die "initdb not found under /usr/lib/postgresql/*/bin after installing postgresql"

as_owner=()
if [[ "$(id -u)" == 0 ]]; then
  id postgres >/dev/null 2>&1 || die "running as root and there is no postgres user to own the cluster"
  as_owner=(setpriv --reuid=postgres --regid=postgres --init-groups)
fi

if [[ -n ${TOOLKILN_PG_DIR:-} ]]; then
  base=$TOOLKILN_PG_DIR
  mkdir -p "$base"
elif [[ ${#as_owner[@]} -gt 0 ]]; then
  # (root's home is closed to the postgres user: a fresh folder of our own under /tmp, never a
  # predictable name another user could have made first)
  base=$(mktemp -d /tmp/toolkiln-postgres.XXXXXX)
  chmod 755 "$base"
else
  base=$HOME/.cache/toolkiln/postgres
  mkdir -p "$base"
fi
dir=$(mktemp -d "$base/cluster.XXXXXX")
[[ ${#as_owner[@]} -eq 0 ]] || chown postgres: "$dir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

"${as_owner[@]}" "$pg_bin/initdb" -D "$dir/data" -U toolkiln --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
  || die "initdb failed; see $dir/initdb.log"
"${as_owner[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir" start >&2 \
  || die "the server did not start; see $dir/server.log"
log "PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, data in $dir/data"
echo "postgresql://toolkiln@127.0.0.1:$port/postgres"
