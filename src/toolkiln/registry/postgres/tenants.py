"""Tenants in a database registry: the tenant `default` is the tables of the URL's own schema,
each other tenant the same tables in the schema `toolkiln_tenant_NAME`, listed in
`toolkiln_tenants` (schema version 3; docs/decisions.md says why a schema per tenant).

A tenant's registry is the URL with `?tenant=NAME` (urls.tenant_url): its connections have its
schema alone on their search path, its writers a lock of their own, its changes a channel of
their own, so nothing in the store filters by tenant. Creating and deleting a tenant change the
list under the schema lock and move the default tenant's change counter: a server that reads
the list again only when that counter moved (TenantList) hears of it with its notification.
"""

from __future__ import annotations

from typing import Any

from psycopg import sql

from toolkiln.registry.errors import UnknownTenant
from toolkiln.registry.postgres.connecting import first_connection
from toolkiln.registry.postgres.schema import SCHEMA_LOCK, apply_migrations, ensure_schema, tenants_of
from toolkiln.registry.postgres.store import PostgresStore, bump
from toolkiln.registry.postgres.urls import CHANNEL, DEFAULT_TENANT, schema_of, split_tenant, without_password

TIMEOUT = 30.0


def _root(url: str) -> Any:
    """An autocommit connection to the default tenant's tables, which it makes in a new database."""
    base = split_tenant(url)[0]
    conn = first_connection(base, without_password(base), TIMEOUT)
    try:
        ensure_schema(conn, without_password(base))
    except BaseException:
        conn.close()
        raise
    return conn


def tenant_names(url: str) -> list[str]:
    """Every tenant of the database at `url`, `default` first."""
    with _root(url) as conn:
        return [DEFAULT_TENANT, *tenants_of(conn)]


def create_tenant(url: str, name: str) -> bool:
    """Make tenant `name`'s schema with every table at the current version, and list it, in one
    transaction: whether it was made (False: it was there already, and is left as it is)."""
    with _root(url) as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        if name in tenants_of(conn):
            return False
        conn.execute("INSERT INTO toolkiln_tenants (name) VALUES (%s)", (name,))
        bump(conn, CHANNEL)  # (servers read the list again)
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema_of(name))))
        conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema_of(name))))
        apply_migrations(conn, 0)
    return True


def archive_tenant(url: str, name: str) -> str:
    """Take tenant `name` off the list and rename its schema, whole, to `toolkiln_deleted_N` (N:
    the change counter, never reused), in one transaction: from then on no server finds it. The
    schema's new name. UnknownTenant (R0751) when it is not listed."""
    with _root(url) as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        if name not in tenants_of(conn):
            raise UnknownTenant(f"there is no tenant {name[:60]!r}", hint="toolkiln tenants list")
        conn.execute("DELETE FROM toolkiln_tenants WHERE name = %s", (name,))
        archive = f"toolkiln_deleted_{bump(conn, CHANNEL)}"
        conn.execute(
            sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(sql.Identifier(schema_of(name)), sql.Identifier(archive))
        )
        conn.execute("INSERT INTO toolkiln_deleted_tenants (schema, name) VALUES (%s, %s)", (archive, name))
    return archive


class TenantList:
    """The tenants of the database of a server's default registry, read again only when its
    change counter moved (no round trip per request while nothing changed; every time while
    its listener is away)."""

    def __init__(self, store: PostgresStore) -> None:
        self._store = store
        self._seen: int | None = None
        self._names: frozenset[str] = frozenset()

    def __contains__(self, name: object) -> bool:
        if name == DEFAULT_TENANT:
            return True
        counter = self._store.changes.value()  # (read first: a change after it moves it again)
        if counter is None or counter != self._seen:
            with self._store.connection() as conn:
                self._names = frozenset(tenants_of(conn))
            self._seen = counter
        return name in self._names
