"""Where a registry is: a folder path, or a `postgresql://` URL (issue 29). One function maps a
location to its `Store`, and one gives the store of its calls held for approval."""

from __future__ import annotations

import os
from typing import Any

from toolkiln.registry.directory import DirectoryStore
from toolkiln.registry.errors import StoreError
from toolkiln.registry.pending_calls import DirectoryPendingCalls, PendingCalls
from toolkiln.registry.postgres.urls import is_database_url
from toolkiln.registry.store import Store


def open_store(location: str | os.PathLike[str], *, lock_timeout: float, **folder_options: Any) -> Store:
    """The store at `location`: a database for a `postgresql://` URL (the `postgres` extra),
    else the folder (created when missing), with the folder's own options."""
    text = os.fspath(location)
    if isinstance(text, str) and is_database_url(text):
        try:
            from toolkiln.registry.postgres.store import PostgresStore  # (psycopg: only for a database)
        except ImportError:
            raise StoreError(
                "a registry in PostgreSQL needs the `postgres` extra", hint="pip install 'toolkiln[postgres]'"
            ) from None
        return PostgresStore(text, lock_timeout=lock_timeout)
    return DirectoryStore(location, lock_timeout=lock_timeout, **folder_options)


def calls_for(store: Store, *, lock_timeout: float, durable: bool) -> PendingCalls:
    """Where the calls held for approval are kept: beside the tools (the database's table, or
    the folder's calls/)."""
    if is_database_url(store.location):
        from toolkiln.registry.postgres.calls import PostgresPendingCalls
        from toolkiln.registry.postgres.store import PostgresStore

        assert isinstance(store, PostgresStore)
        return PostgresPendingCalls(store)
    return DirectoryPendingCalls(store.location, lock_timeout=lock_timeout, durable=durable)
