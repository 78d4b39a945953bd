"""What the registry tests do to a registry's storage behind its back, on either store: put a
lookup table in, or write a tool's stored bytes by hand (an editor on a folder's file, an SQL
UPDATE on a database's row), and `FOLDER_ONLY` for a test about the folder itself."""

from __future__ import annotations

import os

import psycopg
import pytest

from toolkiln import Registry
from toolkiln.registry.postgres.urls import is_database_url

# On a test about the folder's own files (layout, hand edits seen by the watch, folder
# signatures): it runs on the folder only, and says why beside the mark.
FOLDER_ONLY = pytest.mark.parametrize("registry_location", ["folder"], indirect=True)


def in_database(reg: Registry) -> bool:
    return is_database_url(reg.location)


def put_table(reg: Registry, file: str, data: str) -> None:
    """A table file (`rates.json`) put where the registry's lookups read tables."""
    if in_database(reg):
        reg._store.put_table(file, data.encode())  # type: ignore[attr-defined]
    else:
        (reg.path / "tables").mkdir(exist_ok=True)
        (reg.path / "tables" / file).write_text(data)
    reg.refresh()


def write_by_hand(reg: Registry, name: str, data: str) -> None:
    """The stored bytes of tool `name` replaced (or added) by hand, without the store's
    signature; a database's writer bumps the change counter, as docs/fleets.md asks."""
    if not in_database(reg):
        (reg.path / "tools" / f"{name}.json").write_text(data)
        return
    with psycopg.connect(reg.location, autocommit=True) as conn, conn.transaction():
        counter = conn.execute("UPDATE toolkiln_changes SET counter = counter + 1 RETURNING counter").fetchone()[0]
        conn.execute(
            "INSERT INTO toolkiln_tools (name, data, revision) VALUES (%s, %s, %s) ON CONFLICT (name) "
            "DO UPDATE SET data = excluded.data, signed = NULL, revision = excluded.revision",
            (name, data.encode(), counter),
        )
        conn.execute("SELECT pg_notify('toolkiln_changes', %s)", (str(counter),))


def stored_bytes(reg: Registry, name: str) -> bytes:
    """What the store holds for tool `name` now."""
    stored = reg._store.stored(name)
    assert stored is not None, f"nothing stored for {name}"
    return stored.data


def write_version_by_hand(reg: Registry, name: str, version: int, data: str) -> None:
    """Past version `version` of tool `name` replaced by hand (without a signature)."""
    if not in_database(reg):
        path = reg.path / "versions" / name / f"{version}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data)
        return
    with psycopg.connect(reg.location, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO toolkiln_versions (name, version, data) VALUES (%s, %s, %s) ON CONFLICT (name, version) "
            "DO UPDATE SET data = excluded.data, signed = NULL",
            (name, version, data.encode()),
        )


def past_bytes(reg: Registry, name: str, version: int) -> str:
    """What the store keeps of past version `version` of tool `name`."""
    if not in_database(reg):
        return (reg.path / "versions" / name / f"{version}.json").read_text()
    with psycopg.connect(reg.location, autocommit=True) as conn:
        row = conn.execute("SELECT data FROM toolkiln_versions WHERE name = %s AND version = %s", (name, version))
        return bytes(row.fetchone()[0]).decode()


def past_file(reg: Registry, name: str, version: int) -> str:
    """What a problem of past version `version` of `name` names as its file."""
    return f"{reg.location}#{name}@{version}" if in_database(reg) else os.path.join("versions", name, f"{version}.json")


def kept_aside(reg: Registry, note: str) -> tuple[bytes, list[int]]:
    """What a delete kept where its audit note says ("kept in ..."): the record current when it
    was deleted, and the numbers of the past versions kept with it."""
    where = note.removeprefix("kept in ")
    if not in_database(reg):
        kept = reg.path / where
        (current,) = kept.glob("*.json")
        return current.read_bytes(), sorted(int(path.stem) for path in (kept / "versions").glob("*.json"))
    place = where.removeprefix("table toolkiln_deleted, place ")
    with psycopg.connect(reg.location, autocommit=True) as conn:
        rows = conn.execute("SELECT version, data FROM toolkiln_deleted WHERE place = %s", (place,)).fetchall()
    (current,) = [bytes(data) for version, data in rows if version is None]
    return current, sorted(version for version, _ in rows if version is not None)


def contents(reg: Registry) -> object:
    """Everything the registry keeps, to compare before and after: the folder's files (names),
    or every row of the database's tables."""
    if not in_database(reg):
        return sorted(path.relative_to(reg.path) for path in reg.path.rglob("*") if path.is_file())
    tables = ("tools", "versions", "deleted", "audit", "usage", "tables", "calls")
    with psycopg.connect(reg.location, autocommit=True) as conn:
        return {table: conn.execute(f"SELECT * FROM toolkiln_{table} ORDER BY 1").fetchall() for table in tables}
