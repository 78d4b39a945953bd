"""The registry's tables in a database: versioned SQL files (sql/NNN_name.sql) shipped in the
package. A database without them gets them all (it is new: nothing to migrate); one at an
older or newer version is refused until `toolkiln registry upgrade` (or a newer toolkiln),
which applies the newer files in one transaction, never a store or server opening it."""

from __future__ import annotations

from importlib import resources
from typing import Any

from toolkiln.registry.errors import SchemaVersionMismatch
from toolkiln.registry.postgres.connecting import first_connection
from toolkiln.registry.postgres.urls import without_password

SCHEMA_LOCK = 0x746B6B6C6E5F7363  # advisory lock keys ("tkkln_sc", "tkkln_wr"): one schema writer,
WRITE_LOCK = 0x746B6B6C6E5F7772  # and the registry's write lock


def migrations() -> list[tuple[int, str]]:
    """Each SQL file of the package with its version, in order."""
    files = resources.files("toolkiln.registry.postgres").joinpath("sql")
    found = [
        (int(entry.name.split("_", 1)[0]), entry.read_text(encoding="utf-8"))
        for entry in files.iterdir()
        if entry.name.endswith(".sql")
    ]
    return sorted(found)


CURRENT = migrations()[-1][0]


def version_of(conn: Any) -> int | None:
    """The schema version of the database (None: it has no toolkiln tables)."""
    # (pg_tables, not to_regclass: a name lookup may answer from this session's catalog cache,
    # which has not yet heard of tables another process committed while this one waited)
    exists = "SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = %s)"
    if not conn.execute(exists, ("toolkiln_schema",)).fetchone()[0]:
        return None
    row = conn.execute("SELECT max(version) FROM toolkiln_schema").fetchone()
    return None if row is None or row[0] is None else int(row[0])


def ensure_schema(conn: Any, where: str) -> None:
    """Create the tables in a database that has none; refuse one at another version."""
    version = version_of(conn)
    if version is None:
        upgrade_schema(conn, where)  # (a new database: nothing to migrate)
        return
    if version != CURRENT:
        newer = version > CURRENT
        raise SchemaVersionMismatch(
            f"the registry at {where} has schema version {version}; this toolkiln reads version {CURRENT}",
            hint="upgrade toolkiln" if newer else "run `toolkiln registry upgrade` once, with no server using it",
        )


def upgrade_schema(conn: Any, where: str) -> tuple[int, int]:
    """Apply the SQL files newer than the database's schema, all in one transaction under the
    schema lock (a failure applies none): the versions before and after (0: no tables). A
    database newer than this toolkiln is refused (R0308) and left as it is."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        before = version_of(conn) or 0  # (read under the lock: another upgrade may have run)
        if before > CURRENT:
            raise SchemaVersionMismatch(
                f"the registry at {where} has schema version {before}; this toolkiln knows up to {CURRENT}",
                hint="upgrade toolkiln",
            )
        for version, sql in migrations():
            if version > before:
                conn.execute(sql)
        if before != CURRENT:
            conn.execute("INSERT INTO toolkiln_schema (version) VALUES (%s)", (CURRENT,))
    return before, CURRENT


def upgrade(url: str, *, timeout: float = 30.0) -> tuple[int, int]:
    """`toolkiln registry upgrade URL`: the database's schema brought to this toolkiln's
    version, without opening a store (which refuses another version)."""
    where = without_password(url)
    with first_connection(url, where, timeout) as conn:
        return upgrade_schema(conn, where)
