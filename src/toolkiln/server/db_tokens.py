"""The tokens of a server whose registry is a database: in the database (schema version 2), so
every server on it checks the same ones and a revocation reaches all of them as soon as its
notification arrives. As in the folder's tokens.json, only each token's SHA-256 is kept. The
server's state folder still holds what is the machine's own (the request log, the web page's
secret). `tokens_for` picks the store a server or `toolkiln tokens` uses."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.registry.errors import StoreError
from toolkiln.registry.postgres.urls import is_database_url
from toolkiln.registry.principals import PRINCIPAL_KINDS, SCOPES
from toolkiln.registry.tenants import DEFAULT_TENANT
from toolkiln.server.tokens import TokenInfo, TokenStore, new_token, token_exists, token_not_found

if TYPE_CHECKING:
    from toolkiln.registry.postgres.store import PostgresStore
    from toolkiln.registry.postgres.tokens import TokenRow, TokenRows
    from toolkiln.registry.store import Store


class DatabaseTokenStore(TokenStore):
    """The tokens in the registry's database; `folder` is the server's state folder."""

    def __init__(self, folder: Path, store: PostgresStore) -> None:
        from toolkiln.registry.postgres.tokens import TokenRows

        super().__init__(folder)
        self.rows: TokenRows = TokenRows(store)
        self.where = store.location
        self._cache_lock = threading.Lock()
        self._cached: tuple[int | None, tuple[TokenInfo, ...]] = (None, ())
        self._last: tuple[TokenInfo, ...] | None = None  # the tokens last read, for an outage

    def _current(self) -> tuple[TokenInfo, ...]:
        """The tokens `entries` and `authenticate` read: reread only when the change counter
        moved (no round trip a request while nothing changed); while the listener is away,
        read every time."""
        counter = self.rows.counter()  # (taken before the read: a change after it moves it again)
        with self._cache_lock:
            seen, tokens = self._cached
            if counter is not None and counter == seen:
                return tokens
        try:
            rows = self.rows.all()
        except StoreError:
            if self._last is None:
                raise
            return self._last  # (the database is away: no revocation commits meanwhile; see decisions.md)
        tokens = tuple(_info(row) for row in rows if row.scope in SCOPES and row.kind in PRINCIPAL_KINDS)
        with self._cache_lock:
            self._cached = (counter, tokens)
            self._last = tokens
        return tokens

    def _forget(self) -> None:
        """(this process's own change: read again, without waiting for its notification)"""
        with self._cache_lock:
            self._cached = (None, ())

    def create(self, name: str, scope: str, kind: str, tenant: str = DEFAULT_TENANT) -> tuple[str, TokenInfo]:
        token, info = new_token(name, scope, kind, tenant)
        added = self.rows.add([_row(info)])
        self._forget()
        if not added:
            raise token_exists(name)
        return token, info

    def revoke(self, name: str, tenant: str = DEFAULT_TENANT) -> TokenInfo:
        removed = self.rows.remove(tenant, name)
        self._forget()
        if removed is None:
            raise token_not_found(name)
        return _info(removed)

    def import_from(self, folder: Path) -> tuple[list[TokenInfo], list[str]]:
        """The tokens of the token file in `folder` (a server's state folder) added to the
        database: what `toolkiln tokens import` does when a fleet moves onto one."""
        found = TokenStore(folder).entries(None) if (folder / self.path.name).exists() else None
        if found is None:
            return super().import_from(folder)  # (its coded error: there is no token file)
        added = {(row.tenant, row.name) for row in self.rows.add([_row(info) for info in found])}
        self._forget()
        imported = [info for info in found if (info.tenant, info.name) in added]
        return imported, [info.key for info in found if (info.tenant, info.name) not in added]


def tokens_for(store: Store, location: str | Path, state_dir: Path | None) -> TokenStore:
    """The token store of a server on the registry kept in `store` at `location`: the
    database's when it is one, else the state folder's tokens.json."""
    from toolkiln.server.state import state_folder

    folder = state_folder(location, state_dir)
    if isinstance(location, str) and is_database_url(location):
        from toolkiln.registry.postgres.store import PostgresStore

        assert isinstance(store, PostgresStore)
        return DatabaseTokenStore(folder, store)
    return TokenStore(folder)


def _row(info: TokenInfo) -> TokenRow:
    from toolkiln.registry.postgres.tokens import TokenRow

    return TokenRow(info.tenant, info.name, info.kind, info.scope, info.digest, info.created_at)


def _info(row: TokenRow) -> TokenInfo:
    return TokenInfo(row.name, row.scope, row.digest, row.created_at, row.kind, True, row.tenant)  # type: ignore[arg-type]
