"""`PostgresStore`: the registry's `Store` (store.py) in a PostgreSQL database that several
processes on several machines share, with the directory store's semantics.

- Records are the bytes of their encoded JSON (codec.py), as the folder keeps its files: what a
  change compares, and what a signature covers.
- `writing()` is one transaction under the registry's advisory lock (pg_advisory_xact_lock):
  the writes of one registry change commit together or not at all, and a change is
  acknowledged only once committed.
- Every commit adds one to the change counter; a process reads that one number to learn whether
  anything changed (`refresh`), then reloads only the records whose revision moved.
- A record is vouched for (signed) when toolkiln wrote it through a store with the SHA-256 of
  its bytes; a row written by hand has none and is not trusted until `toolkiln trust`
  (docs/decisions.md: what vouching means in a database).

The change signal is LISTEN/NOTIFY (signal.py): a commit on any machine ends the runs every
other process cached as soon as its notification arrives; while the listener is not connected,
every run asks the database.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from psycopg import Connection, errors, sql
from psycopg_pool import ConnectionPool, PoolTimeout

from toolkiln.io.tables import table_file_data
from toolkiln.registry.codec import decode_audit, decode_record, encode_audit, encode_record
from toolkiln.registry.definitions import Compiled
from toolkiln.registry.errors import StoreError
from toolkiln.registry.loaded_records import LoadedRecords, ReadsLoaded
from toolkiln.registry.loaded_tables import checked_table_file
from toolkiln.registry.models import AuditEntry, ToolRecord, utc_now
from toolkiln.registry.postgres.connecting import first_connection
from toolkiln.registry.postgres.schema import ensure_schema, write_lock_of
from toolkiln.registry.postgres.signal import Notified, counter_of
from toolkiln.registry.postgres.urls import channel_of, conninfo, refuse_bad_tenant, split_tenant, without_password
from toolkiln.registry.principals import Principal
from toolkiln.registry.revisions import audit_entry
from toolkiln.registry.store import StoredRecord
from toolkiln.registry.usage import Tally, moment, with_pending
from toolkiln.registry.vouching import refuse_unvouched

# How long a request waits for a pooled connection: a database that went away (dropped, down)
# is an answer (R0302) within this, not a request that hangs for the whole lock timeout.
CONNECTION_SECONDS = 10.0


class PostgresStore(ReadsLoaded):
    """The registry in the database at `url` (a libpq URL or connection string)."""

    def __init__(self, url: str, *, lock_timeout: float = 30.0, max_connections: int = 8) -> None:
        refuse_bad_tenant(url)
        self.location = without_password(url)
        # (a tenant's tables are a schema of their own, its changes a channel of their own: urls.py)
        self.tenant = split_tenant(url)[1]
        self.channel = channel_of(self.tenant)
        self._write_lock = write_lock_of(self.tenant)
        self.lock_timeout = lock_timeout
        self.loaded = LoadedRecords(self.location)
        self.runnables = self.loaded.runnables
        libpq = conninfo(url)
        self._pool = _open_pool(libpq, self.location, lock_timeout, max_connections, self.tenant)
        self._reopen = (libpq, max_connections, threading.Lock())
        self.changes = Notified(libpq, self.channel, self.runnables.clear)
        self.changes.connected.wait(lock_timeout)  # (if it does not connect, every run asks the database)
        self._tx = threading.local()  # the connection of this thread's `writing()`, if any
        self._revisions: dict[str, int] = {}
        self._signed: dict[str, bytes | None] = {}
        self._tables: dict[str, dict[str, Any]] = {}
        self._tables_revisions: dict[str, int] = {}
        self._tables_generation = 0
        self._seen: int | None = None
        self._tallies: dict[str, Tally] = {}
        self._pending: dict[str, tuple[int, float]] = {}

    def close(self) -> None:
        self.changes.close(wake=self._wake_listeners)
        self._pool.close()

    def _pooled(self) -> ConnectionPool:
        """The pool; opened again when the store was closed and is used anyway (a registry
        used after its `with` block): it works, without its listener, so every run asks."""
        if self._pool.closed:
            url, size, lock = self._reopen
            with lock:
                if self._pool.closed:
                    self._pool = _open_pool(url, self.location, self.lock_timeout, size, self.tenant)
        return self._pool

    def _wake_listeners(self) -> None:
        """The counter as it is, notified: every listener hears nothing new, and this one stops."""
        try:
            with self._conn() as conn:
                conn.execute("SELECT pg_notify(%s, counter::text) FROM toolkiln_changes", (self.channel,))
        except StoreError:
            pass  # (no database: the listener is not waiting on it either)

    # --- connections ----------------------------------------------------------------------------

    def connection(self) -> AbstractContextManager[Connection[Any]]:
        """A connection to the registry's database (this thread's transaction inside `writing()`)."""
        return self._conn()

    @contextmanager
    def _conn(self) -> Iterator[Connection[Any]]:
        """This thread's transaction inside `writing()`, else a pooled connection (autocommit)."""
        held = getattr(self._tx, "conn", None)
        if held is not None:
            yield held
            return
        waited = min(self.lock_timeout, CONNECTION_SECONDS)
        try:
            with self._pooled().connection(timeout=waited) as conn:
                yield conn
        except PoolTimeout:
            raise StoreError(f"no connection to {self.location} within {waited:g} s") from None
        except errors.OperationalError as error:
            raise StoreError(f"the database at {self.location} failed: {_first_line(error)}") from None

    # --- opening, catching up -------------------------------------------------------------------

    def open(self, tools: Mapping[str, Any]) -> None:
        self.loaded.tools = tools
        self.reload()

    def reload(self) -> None:
        self._seen = None
        self._revisions.clear()
        self._tables_revisions.clear()
        self.refresh()

    def refresh(self) -> None:
        with self._conn() as conn:
            counter = counter_of(conn)
            if counter == self._seen:
                return
            revisions = dict(conn.execute("SELECT name, revision FROM toolkiln_tools").fetchall())
            changed = [name for name, revision in revisions.items() if self._revisions.get(name) != revision]
            rows = conn.execute(
                "SELECT name, data, signed, revision FROM toolkiln_tools WHERE name = ANY(%s)", (changed,)
            ).fetchall()
            tables = dict(conn.execute("SELECT file, revision FROM toolkiln_tables").fetchall())
            if tables != self._tables_revisions:
                self._load_tables(conn, tables)
        for name in [n for n in self.loaded.bytes if n not in revisions]:
            self._forget(name)
        for name, data, signed, revision in rows:
            self.loaded.load(name, bytes(data), None)
            self._signed[name] = None if signed is None else bytes(signed)
            self._revisions[name] = revision
        self._seen = counter

    def _load_tables(self, conn: Connection[Any], revisions: dict[str, int]) -> None:
        loaded: dict[str, dict[str, Any]] = {}
        for file, data in conn.execute("SELECT file, data FROM toolkiln_tables ORDER BY file").fetchall():
            loaded.update(table_file_data(bytes(data), Path(file)))  # (each checked by put_table)
        self._tables, self._tables_revisions = loaded, revisions
        self._tables_generation += 1
        self.loaded.moved(None)

    def _forget(self, name: str) -> None:
        self.loaded.forget(name)
        self._revisions.pop(name, None)
        self._signed.pop(name, None)

    @contextmanager
    def writing(self) -> Iterator[None]:
        if getattr(self._tx, "conn", None) is not None:
            yield  # (already inside this thread's transaction)
            return
        with self._conn() as conn:
            try:
                with conn.transaction():
                    conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(int(self.lock_timeout * 1000)))
                    try:
                        conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._write_lock,))
                    except errors.LockNotAvailable:
                        raise StoreError(
                            f"the registry at {self.location} stayed locked for {self.lock_timeout:g} s",
                            hint="another process is writing to it; try again",
                        ) from None
                    self._tx.conn = conn
                    try:
                        self.refresh()
                        yield
                    finally:
                        self._tx.conn = None
            except BaseException:
                self.reload()  # (what this transaction loaded was rolled back)
                raise
        if self._seen is not None:  # committed: this process knows before its notification comes
            self.changes.heard(self._seen)

    @property
    def tables(self) -> Mapping[str, dict[str, Any]]:
        return self._tables

    @property
    def tables_generation(self) -> int:
        return self._tables_generation

    def rescan_tables(self) -> None:
        self.refresh()

    def put_table(self, file: str, data: bytes) -> None:
        checked_table_file(file, data)
        with self.writing(), self._conn() as conn:
            counter = bump(conn, self.channel)
            conn.execute(
                "INSERT INTO toolkiln_tables (file, data, revision) VALUES (%s, %s, %s) "
                "ON CONFLICT (file) DO UPDATE SET data = excluded.data, revision = excluded.revision",
                (file, data, counter),
            )

    # --- under the lock ------------------------------------------------------------------------------

    def stored(self, name: str) -> StoredRecord | None:
        with self._conn() as conn:
            row = conn.execute("SELECT data FROM toolkiln_tools WHERE name = %s", (name,)).fetchone()
        if row is None:
            return None
        data = bytes(row[0])
        record, diagnostics = decode_record(data, f"{self.location}#{name}")
        return StoredRecord(data, record, diagnostics)

    def keep_version(self, old: ToolRecord, vouched: bool) -> None:
        data = encode_record(old).encode()
        with self._conn() as conn:
            conn.execute(
                "INSERT INTO toolkiln_versions (name, version, data, signed) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (name, version) DO UPDATE SET data = excluded.data, signed = excluded.signed",
                (old.name, old.version, data, _signature(data, vouched)),
            )

    def commit(self, entry: AuditEntry, record: ToolRecord | None, compiled: Compiled | None, vouched: bool) -> None:
        name = entry.tool
        with self._conn() as conn:
            counter = bump(conn, self.channel)
            if record is None:
                conn.execute("DELETE FROM toolkiln_tools WHERE name = %s", (name,))
            else:
                data = encode_record(record).encode()
                signed = _signature(data, vouched)
                conn.execute(
                    "INSERT INTO toolkiln_tools (name, data, signed, revision) VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (name) DO UPDATE SET data = excluded.data, signed = excluded.signed, "
                    "revision = excluded.revision",
                    (name, data, signed, counter),
                )
            _append_audit(conn, entry)
        if record is None:
            self._forget(name)
        else:
            self.loaded.load(name, data, compiled)
            self._signed[name], self._revisions[name] = signed, counter
        self._seen = counter  # (the lock is held: no one else wrote since the refresh)

    def set_aside(self, name: str, at: datetime) -> str:
        place = f"{name}.{at.strftime('%Y%m%dT%H%M%S%fZ')}"
        with self._conn() as conn:
            conn.execute(
                "INSERT INTO toolkiln_deleted (place, name, version, data) "
                "SELECT %s, name, NULL, data FROM toolkiln_tools WHERE name = %s "
                "UNION ALL SELECT %s, name, version, data FROM toolkiln_versions WHERE name = %s",
                (place, name, place, name),
            )
            self._clear(conn, name)
        self._pending.pop(name, None)
        return f"table toolkiln_deleted, place {place}"

    def clear_leftovers(self, name: str) -> None:
        with self._conn() as conn:
            self._clear(conn, name)

    @staticmethod
    def _clear(conn: Connection[Any], name: str) -> None:
        conn.execute("DELETE FROM toolkiln_versions WHERE name = %s", (name,))
        conn.execute("DELETE FROM toolkiln_usage WHERE name = %s", (name,))

    # --- past versions, the audit log --------------------------------------------------------------

    def past_versions(self, name: str) -> list[int]:
        with self._conn() as conn:
            rows = conn.execute("SELECT version FROM toolkiln_versions WHERE name = %s ORDER BY version", (name,))
            return [version for (version,) in rows.fetchall()]

    def past_version(self, name: str, version: int) -> ToolRecord | None:
        row = self._version_row(name, version)
        return None if row is None else self.loaded.past_read(name, version, row[0])

    def _version_row(self, name: str, version: int) -> tuple[bytes, bytes | None] | None:
        with self._conn() as conn:
            row = conn.execute(
                "SELECT data, signed FROM toolkiln_versions WHERE name = %s AND version = %s", (name, version)
            ).fetchone()
        return None if row is None else (bytes(row[0]), None if row[1] is None else bytes(row[1]))

    def audit(self, tool: str | None = None, *, after: int = 0) -> list[AuditEntry]:
        """The entries after the first `after` of the whole log (of `tool`, when given)."""
        with self._conn() as conn:
            rows = conn.execute(
                "SELECT tool, entry FROM toolkiln_audit ORDER BY position OFFSET %s", (after,)
            ).fetchall()
        entries = (decode_audit(line) for logged, line in rows if tool is None or logged == tool)
        return [entry for entry in entries if entry is not None]

    def append_audit(self, entry: AuditEntry) -> None:
        with self._conn() as conn:
            _append_audit(conn, entry)

    # --- run counts ------------------------------------------------------------------------------------

    def tally(self, name: str) -> Tally:
        return self._tallies.setdefault(name, Tally())

    def count_run(self, name: str, when: float) -> None:
        cell = self.tally(name).cell()
        cell[0] += 1
        cell[1] = when

    def drain_usage(self) -> None:
        for name, tally in self._tallies.items():
            taken, last = tally.take()
            if taken:
                count, _ = self._pending.get(name, (0, 0.0))
                self._pending[name] = (count + taken, last)

    def used(self) -> set[str]:
        self.drain_usage()
        with self._conn() as conn:
            stored = {name for (name,) in conn.execute("SELECT name FROM toolkiln_usage").fetchall()}
        return stored | set(self._pending)

    def usage_of(self, name: str) -> tuple[int, datetime | None]:
        self.drain_usage()
        with self._conn() as conn:
            row = conn.execute("SELECT count, last_used FROM toolkiln_usage WHERE name = %s", (name,)).fetchone()
        stored = {} if row is None else {name: (int(row[0]), row[1])}
        return with_pending(stored, self._pending).get(name, (0, None))

    def usage(self) -> dict[str, tuple[int, datetime | None]]:
        self.drain_usage()
        with self._conn() as conn:
            rows = conn.execute("SELECT name, count, last_used FROM toolkiln_usage").fetchall()
        return with_pending({name: (int(count), last) for name, count, last in rows}, self._pending)

    def flush_usage(self, *, quietly: bool = False) -> None:
        self.drain_usage()
        pending, self._pending = self._pending, {}
        if not pending:
            return
        try:
            with self._conn() as conn, conn.transaction():
                for name, (count, stamp) in sorted(pending.items()):  # (sorted: no deadlock between flushers)
                    conn.execute(
                        "INSERT INTO toolkiln_usage (name, count, last_used) "
                        "SELECT %s, %s, %s WHERE EXISTS (SELECT 1 FROM toolkiln_tools WHERE name = %s) "
                        "ON CONFLICT (name) DO UPDATE SET count = toolkiln_usage.count + excluded.count, "
                        "last_used = greatest(toolkiln_usage.last_used, excluded.last_used)",
                        (name, count, moment(stamp), name),
                    )
        except StoreError:
            for name, counted in pending.items():  # kept for the next flush
                count, last = self._pending.get(name, (0, 0.0))
                self._pending[name] = (count + counted[0], max(last, counted[1]))
            if not quietly:
                raise

    # --- what the store wrote itself -------------------------------------------------------------------

    def vouch(self, record: ToolRecord, action: str) -> bool:
        vouched = self.loaded.records.get(record.name) == record and self.verified(record.name)
        refuse_unvouched(record, action, vouched, "(a row written by hand or copied in)", self.location)
        return vouched

    def verified(self, name: str) -> bool:
        data = self.loaded.bytes.get(name)
        return data is not None and self._signed.get(name) == hashlib.sha256(data).digest()

    def untrusted(self) -> set[str]:
        return {name for name in self.loaded.records if not self.verified(name)}

    def trust(self, names: list[str] | None, principal: Principal) -> dict[str, list[int]]:
        signed: dict[str, list[int]] = {}
        with self.writing(), self._conn() as conn:
            for name in list(self.loaded.records) if names is None else names:
                for version, data in self._slots(conn, name):
                    record = decode_record(data, f"{self.location}#{name}")[0]
                    if record is None:
                        continue
                    digest = hashlib.sha256(data).digest()
                    if version is None:
                        conn.execute("UPDATE toolkiln_tools SET signed = %s WHERE name = %s", (digest, name))
                    else:
                        conn.execute(
                            "UPDATE toolkiln_versions SET signed = %s WHERE name = %s AND version = %s",
                            (digest, name, version),
                        )
                    signed.setdefault(name, []).append(record.version)
            counter = bump(conn, self.channel)
            for name, versions in signed.items():
                note = f"signed here: version(s) {', '.join(map(str, sorted(versions)))}"
                _append_audit(conn, audit_entry("trust", principal, name, utc_now(), note=note))
                conn.execute("UPDATE toolkiln_tools SET revision = %s WHERE name = %s", (counter, name))
        return {name: sorted(versions) for name, versions in signed.items()}

    @staticmethod
    def _slots(conn: Connection[Any], name: str) -> list[tuple[int | None, bytes]]:
        """A tool's current record (version None) and its past versions, as stored."""
        rows = conn.execute(
            "SELECT NULL::integer, data FROM toolkiln_tools WHERE name = %s "
            "UNION ALL SELECT version, data FROM toolkiln_versions WHERE name = %s",
            (name, name),
        ).fetchall()
        return [(version, bytes(data)) for version, data in rows]

    def past_verifies(self, name: str, version: int) -> bool:
        row = self._version_row(name, version)
        return row is not None and row[1] == hashlib.sha256(row[0]).digest()


def _open_pool(url: str, where: str, timeout: float, size: int, tenant: str) -> ConnectionPool:
    """A pool of autocommit connections with the schema checked (a coded StoreError, never the
    URL's password). One connection is tried first: its failure says why at once."""
    with first_connection(url, where, timeout) as conn:
        ensure_schema(conn, where, tenant)
    # `check`: a pooled connection the server ended (a restart, pg_terminate_backend, a network
    # cut) is replaced when it is taken, not handed to the next change as a failure.
    pool: ConnectionPool = ConnectionPool(
        url,
        min_size=1,
        max_size=size,
        kwargs={"autocommit": True},
        timeout=timeout,
        open=False,
        check=ConnectionPool.check_connection,
    )
    try:
        pool.open(wait=True, timeout=timeout)
    except PoolTimeout:
        pool.close()
        raise StoreError(
            f"cannot connect to the registry database at {where} within {timeout:g} s",
            hint="check that PostgreSQL runs there and that the user, password and database name are right",
        ) from None
    except BaseException:
        pool.close()
        raise
    return pool


def bump(conn: Connection[Any], channel: str) -> int:
    """The next change counter, notified on `channel` (the tenant's) when the transaction commits."""
    row = conn.execute("UPDATE toolkiln_changes SET counter = counter + 1 RETURNING counter").fetchone()
    assert row is not None  # (the table has its one row from the start)
    conn.execute("SELECT pg_notify(%s, %s)", (channel, str(row[0])))
    return int(row[0])


def _append_audit(conn: Connection[Any], entry: AuditEntry) -> None:
    conn.execute("INSERT INTO toolkiln_audit (tool, entry) VALUES (%s, %s)", (entry.tool, encode_audit(entry)))


def _signature(data: bytes, vouched: bool) -> bytes | None:
    return hashlib.sha256(data).digest() if vouched else None


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
