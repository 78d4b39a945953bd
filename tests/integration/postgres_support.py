"""A real PostgreSQL for the `postgres` tests: the cluster .ci/run started (TOOLKILN_PG_URL), or
one scripts/postgres-install.sh starts for this session and stops at its end. Each test gets a
database of its own, dropped after it. When PostgreSQL cannot be installed or started the tests
fail with the reason: they are never skipped."""

from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

INSTALL = Path(__file__).resolve().parents[2] / "scripts" / "postgres-install.sh"


@contextmanager
def postgres_cluster() -> Iterator[str]:
    """The URL of a running cluster (its `postgres` database)."""
    given = os.environ.get("TOOLKILN_PG_URL")
    if given:
        yield given
        return
    with own_cluster() as (url, _):
        yield url


@contextmanager
def own_cluster() -> Iterator[tuple[str, Path]]:
    """A new cluster for the caller alone (a test that stops or restarts it disturbs no other
    test), stopped at the end: its URL (the `postgres` database) and its data folder."""
    home = tempfile.mkdtemp(prefix="toolkiln-pg-")
    os.chmod(home, 0o755)  # (as root the cluster belongs to the postgres user, who must enter it)
    done = subprocess.run(
        ["bash", str(INSTALL)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env={**os.environ, "TOOLKILN_PG_DIR": home},
    )
    if done.returncode != 0:
        pytest.fail(f"PostgreSQL could not be installed or started by {INSTALL.name}:\n{done.stderr[-2000:]}")
    (data,) = Path(home).glob("cluster.*/data")
    try:
        yield done.stdout.strip().splitlines()[-1], data
    finally:
        pg_ctl(data, "stop", "-m", "fast")


def pg_ctl(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pg_ctl on the cluster in `data` (as its owner, the postgres user, when run as root)."""
    owner = ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"] if os.getuid() == 0 else []
    binary = next(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), None) or Path("pg_ctl")
    return subprocess.run([*owner, str(binary), "-D", str(data), *args], capture_output=True, text=True, timeout=120)


@contextmanager
def fresh_database(cluster_url: str) -> Iterator[str]:
    """A new, empty database on the cluster, dropped afterwards (with whatever still uses it)."""
    name = "toolkiln_test_" + secrets.token_hex(6)
    with psycopg.connect(cluster_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base, _, _ = cluster_url.rpartition("/")
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(cluster_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# Every table of a registry's database but the schema's version, emptied between two tests.
_REGISTRY_TABLES = (
    "toolkiln_tools",
    "toolkiln_versions",
    "toolkiln_deleted",
    "toolkiln_audit",
    "toolkiln_usage",
    "toolkiln_tables",
    "toolkiln_calls",
)


def emptied(url: str) -> str:
    """`url`'s registry database as a new one is (no rows, change counter 0): a database made
    once per test process and emptied for each test costs a few milliseconds, where creating
    and dropping one per test costs about a second (measured on PostgreSQL 15)."""
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        if conn.execute("SELECT to_regclass('toolkiln_schema')").fetchone()[0] is None:
            return url  # (no tables yet: the first store creates them)
        for table in _REGISTRY_TABLES:
            conn.execute(f"DELETE FROM {table}")
        conn.execute("ALTER SEQUENCE toolkiln_audit_position_seq RESTART")
        conn.execute("UPDATE toolkiln_changes SET counter = 0")
    return url
