"""The registry's tables in a database: versioned SQL files (sql/NNN_name.sql) shipped in the
package. A database without them gets them all (it is new: nothing to migrate); one at an
older or newer version is refused until `toolkiln registry upgrade` (or a newer toolkiln)."""

from __future__ import annotations

from importlib import resources
from typing import Any

from toolkiln.registry.errors import SchemaVersionMismatch

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
    if conn.execute("SELECT to_regclass('toolkiln_schema')").fetchone()[0] is None:
        return None
    row = conn.execute("SELECT max(version) FROM toolkiln_schema").fetchone()
    return None if row is None or row[0] is None else int(row[0])


def ensure_schema(conn: Any, where: str) -> None:
    """Create the tables in a database that has none; refuse one at another version."""
    version = version_of(conn)
    if version is None:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            if version_of(conn) is None:  # (another process may have made them meanwhile)
                for _, sql in migrations():
                    conn.execute(sql)
                conn.execute("INSERT INTO toolkiln_schema (version) VALUES (%s)", (CURRENT,))
        return
    if version != CURRENT:
        newer = version > CURRENT
        raise SchemaVersionMismatch(
            f"the registry at {where} has schema version {version}; this toolkiln reads version {CURRENT}",
            hint="upgrade toolkiln" if newer else "run `toolkiln registry upgrade` once, with no server using it",
        )
