"""A database registry's secrets (issue 28 item 2, in a fleet): rows of `toolkiln_secrets` in the
tenant's schema, each value sealed as a folder's are (AES-256-GCM, the name as associated data,
the tenant's key derived with the same HKDF), under the key the whole fleet is given
(secrets.fleet_key: `$TOOLKILN_SECRET_KEY` or `$TOOLKILN_SECRET_KEY_FILE`), which is never in
the database: a pg_dump holds ciphertext only.

The first value set also seals a check value (`toolkiln_secrets_key`): a process given another
key is refused (R0754) before it reads a value, or writes one the other machines could not
read. A process with no key lists the names and reads or sets nothing (R0749).
"""

from __future__ import annotations

from typing import Any

from toolkiln.registry.errors import SecretsKeyWrong, SecretUnreadable
from toolkiln.registry.models import utc_now
from toolkiln.registry.postgres.store import PostgresStore
from toolkiln.registry.postgres.urls import DEFAULT_TENANT
from toolkiln.registry.secrets import (
    SecretInfo,
    check_secret_name,
    check_secret_value,
    fleet_key,
    seal,
    tenant_key,
    unseal,
)

KEY_CHECK = "TOOLKILN_KEY_CHECK"  # (sealed like a secret of that name; no secret is named so: R0740 allows
# it, so the check lives in a table of its own, never among the secrets)


class DatabaseSecretStore:
    """The secrets of the registry kept in `store` (its tenant's), under `key` (default: the fleet's)."""

    def __init__(self, store: PostgresStore, *, key: bytes | None = None) -> None:
        self._store = store
        self._given = key
        self.tenant = None if store.tenant == DEFAULT_TENANT else store.tenant

    def names(self) -> list[SecretInfo]:
        """Every secret's name and date, sorted by name: never a value (no key needed)."""
        with self._store.connection() as conn:
            rows = conn.execute("SELECT name, updated_at FROM toolkiln_secrets ORDER BY name").fetchall()
        return [SecretInfo(name, updated) for name, updated in rows]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._row(name) is not None

    def get(self, name: str) -> str | None:
        """The value of `name` (None: not set); R0749 without a key, R0754 with another key."""
        row = self._row(check_secret_name(name))
        if row is None:
            return None
        key = self._key()
        try:
            return unseal(key, name, row)
        except SecretUnreadable:
            with self._store.connection() as conn:
                self._check(conn, key, create=False)  # (R0754 when the key is not the fleet's)
            raise

    def set(self, name: str, value: str) -> None:
        check_secret_name(name)
        check_secret_value(value)
        key = self._key()
        with self._store.connection() as conn, conn.transaction():
            self._check(conn, key, create=True)
            conn.execute(
                "INSERT INTO toolkiln_secrets (name, value, updated_at) VALUES (%s, %s, %s) "
                "ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                (name, seal(key, name, value), utc_now().isoformat()),
            )

    def delete(self, name: str) -> bool:
        check_secret_name(name)
        with self._store.connection() as conn:
            return (
                conn.execute("DELETE FROM toolkiln_secrets WHERE name = %s RETURNING name", (name,)).fetchone()
                is not None
            )

    def migrate_legacy(self) -> tuple[int, int]:
        """Nothing to seal again: a database's tenants had their own keys from the start."""
        return 0, 0

    def _row(self, name: str) -> str | None:
        with self._store.connection() as conn:
            row = conn.execute("SELECT value FROM toolkiln_secrets WHERE name = %s", (name,)).fetchone()
        return None if row is None else str(row[0])

    def _key(self) -> bytes:
        master = self._given if self._given is not None else fleet_key(self._store.location)
        return master if self.tenant is None else tenant_key(master, self.tenant)

    def _check(self, conn: Any, key: bytes, *, create: bool) -> None:
        """SecretsKeyWrong unless `key` opens the check value (made, when `create`, by the first
        value set: one row, so two first writers agree on one key)."""
        if create:  # (the first writer's key wins; another one is refused below)
            made = seal(key, KEY_CHECK, "ok")
            conn.execute("INSERT INTO toolkiln_secrets_key (sealed) VALUES (%s) ON CONFLICT DO NOTHING", (made,))
        row = conn.execute("SELECT sealed FROM toolkiln_secrets_key").fetchone()
        if row is None:
            return
        try:
            unseal(key, KEY_CHECK, str(row[0]))
        except SecretUnreadable:
            raise SecretsKeyWrong(
                f"this process's secrets key is not the one the secrets of {self._store.location} are sealed under",
                hint="give every machine of the fleet the same $TOOLKILN_SECRET_KEY or $TOOLKILN_SECRET_KEY_FILE",
            ) from None
