"""The server tokens of a registry in its database (schema version 2): rows of (tenant, name,
kind, scope, digest, created_at), a token's SHA-256 and never the token. Every change commits
with a bump of the registry's change counter, so every process on the database hears of it
(LISTEN/NOTIFY, signal.py) and rereads them: a revocation reaches every server at once. What a
row means (scopes, kinds, who a token is) is the server's business (server/db_tokens.py)."""

from __future__ import annotations

from typing import NamedTuple

from psycopg import errors

from toolkiln.registry.postgres.store import PostgresStore, bump


class TokenRow(NamedTuple):
    tenant: str
    name: str
    kind: str
    scope: str
    digest: str
    created_at: str


class TokenRows:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def counter(self) -> int | None:
        """The change counter this process last heard (None: not listening, read every time)."""
        return self.store.changes.value()

    def all(self) -> list[TokenRow]:
        with self.store.connection() as conn:
            rows = conn.execute(
                "SELECT tenant, name, kind, scope, digest, created_at FROM toolkiln_tokens ORDER BY tenant, name"
            ).fetchall()
        return [TokenRow(*row) for row in rows]

    def add(self, rows: list[TokenRow]) -> list[TokenRow]:
        """Insert each row whose (tenant, name) and digest are free, in one transaction: the rows added."""
        added = []
        with self.store.connection() as conn, conn.transaction():
            for row in rows:
                try:
                    with conn.transaction():  # (a savepoint: a taken name skips this row only)
                        conn.execute(
                            "INSERT INTO toolkiln_tokens (tenant, name, kind, scope, digest, created_at) "
                            "VALUES (%s, %s, %s, %s, %s, %s)",
                            row,
                        )
                    added.append(row)
                except errors.UniqueViolation:
                    continue
            if added:
                bump(conn, self.store.channel)
        return added

    def remove(self, tenant: str, name: str) -> TokenRow | None:
        """Delete the row of (tenant, name): the row deleted (None: there was none)."""
        with self.store.connection() as conn, conn.transaction():
            found = conn.execute(
                "DELETE FROM toolkiln_tokens WHERE tenant = %s AND name = %s "
                "RETURNING tenant, name, kind, scope, digest, created_at",
                (tenant, name),
            ).fetchone()
            if found is not None:
                bump(conn, self.store.channel)
        return None if found is None else TokenRow(*found)
