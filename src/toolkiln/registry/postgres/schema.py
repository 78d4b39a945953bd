"""The registry's tables in a database: versioned SQL files (sql/NNN_name.sql) shipped in the
package. A database without them gets them all (it is new: nothing to migrate); one at an
older or newer version is refused until `toolkiln registry upgrade` (or a newer toolkiln),
which applies the newer files in one transaction, never a store or server opening it.

Each tenant but `default` has the same tables in a schema of its own (urls.schema_of), listed in
the default's `toolkiln_tenants` (schema version 3): made at the current version by `toolkiln
tenants create`, and brought up with the default's in the same transaction by an upgrade.
A tenant's schema is never made by opening it: a tenant that is not there is R0751."""

from __future__ import annotations

import hashlib
from importlib import resources
from typing import Any

from psycopg import sql

from toolkiln.registry.errors import SchemaVersionMismatch, UnknownTenant
from toolkiln.registry.postgres.connecting import first_connection
from toolkiln.registry.postgres.urls import DEFAULT_TENANT, schema_of, split_tenant, without_password

SCHEMA_LOCK = 0x746B6B6C6E5F7363  # advisory lock keys ("tkkln_sc", "tkkln_wr"): one schema writer,
WRITE_LOCK = 0x746B6B6C6E5F7772  # and the registry's write lock (the default tenant's)


def write_lock_of(tenant: str) -> int:
    """The advisory lock key of a tenant's writers: tenants do not wait for each other."""
    if tenant == DEFAULT_TENANT:
        return WRITE_LOCK
    return int.from_bytes(hashlib.sha256(f"toolkiln write {tenant}".encode()).digest()[:8], "big", signed=True)


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


def ensure_schema(conn: Any, where: str, tenant: str = DEFAULT_TENANT) -> None:
    """Create the tables in a database that has none; refuse one at another version, and a
    tenant whose schema is not there (UnknownTenant, R0751: only `tenants create` makes one)."""
    if tenant != DEFAULT_TENANT and conn.execute("SELECT current_schema()").fetchone()[0] is None:
        raise UnknownTenant(f"there is no tenant {tenant!r} in {where}", hint=f"toolkiln tenants create {tenant}")
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
        apply_migrations(conn, before)
        for tenant in tenants_of(conn) if before else []:  # (each tenant's schema, at the same version)
            conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema_of(tenant))))
            apply_migrations(conn, before)
        conn.execute("SET LOCAL search_path TO DEFAULT")
    return before, CURRENT


def apply_migrations(conn: Any, before: int) -> None:
    """The SQL files newer than `before` in the schema first on the search path."""
    for version, text in migrations():
        if version > before:
            conn.execute(text)
    if before != CURRENT:
        conn.execute("INSERT INTO toolkiln_schema (version) VALUES (%s)", (CURRENT,))


def tenants_of(conn: Any) -> list[str]:
    """The tenants listed in the default tenant's schema (none before schema version 3)."""
    if conn.execute("SELECT to_regclass('toolkiln_tenants')").fetchone()[0] is None:
        return []
    return [name for (name,) in conn.execute("SELECT name FROM toolkiln_tenants ORDER BY name").fetchall()]


def upgrade(url: str, *, timeout: float = 30.0) -> tuple[int, int]:
    """`toolkiln registry upgrade URL`: the database's schema brought to this toolkiln's
    version, without opening a store (which refuses another version)."""
    where = without_password(url)
    with first_connection(split_tenant(url)[0], where, timeout) as conn:  # (a tenant is upgraded with its database)
        return upgrade_schema(conn, where)
