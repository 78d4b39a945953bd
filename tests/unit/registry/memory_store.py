"""A `Store` kept in memory: the second implementation of the protocol (store.py), for the
contract tests (store_contract.py). Stores made over one `MemoryData` share it as processes
share a registry folder: each keeps its own cache and catches up on `refresh`.

It is as small as the protocol allows and as strict as it asks: records are kept as the bytes
of their encoded JSON (so what a store hands out is decoded, never shared between stores),
writers hold one lock, a commit bumps the change counter, signatures are kept per record."""

from __future__ import annotations

import hashlib
import threading
from array import array
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from toolkiln.io.tables import table_file_data
from toolkiln.registry.codec import decode_record, encode_record
from toolkiln.registry.definitions import Compiled
from toolkiln.registry.errors import NotTrusted, StoreError
from toolkiln.registry.loaded_records import LoadedRecords, ReadsLoaded
from toolkiln.registry.loaded_tables import checked_table_file
from toolkiln.registry.models import AuditEntry, ToolRecord, utc_now
from toolkiln.registry.principals import Principal
from toolkiln.registry.revisions import audit_entry
from toolkiln.registry.store import StoredRecord
from toolkiln.registry.usage import Tally, with_pending

Slot = tuple[str, int | None]  # a tool's current record (None) or one past version


class MemoryData:
    """What the stores of one in-memory registry share."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.counter = array("Q", [0])
        self.tools: dict[str, bytes] = {}
        self.versions: dict[Slot, bytes] = {}
        self.deleted: dict[str, dict[Slot, bytes]] = {}
        self.audit: list[AuditEntry] = []
        self.usage: dict[str, tuple[int, datetime | None]] = {}
        self.tables: dict[str, dict[str, Any]] = {}  # replaced, never changed
        self.signed: dict[Slot, bytes] = {}  # slot -> SHA-256 of the bytes the store wrote there


class Counter:
    """The change signal: the shared counter, as the registry's hot path reads it."""

    hears_every_change = False  # (`corrupt` changes a record without it, as a hand edit does)

    def __init__(self, data: MemoryData) -> None:
        self.data = data
        self.words: memoryview | None = memoryview(data.counter)

    def value(self) -> int | None:
        return self.data.counter[0]


class MemoryStore(ReadsLoaded):
    def __init__(self, data: MemoryData | None = None, *, lock_timeout: float = 5.0) -> None:
        self.data = data or MemoryData()
        self.lock_timeout = lock_timeout
        self.location = "memory"
        self.changes = Counter(self.data)
        self.loaded = LoadedRecords("memory")
        self.runnables = self.loaded.runnables
        self._tables: dict[str, dict[str, Any]] = {}
        self._tables_generation = 0
        self._seen = -1
        self._tallies: dict[str, Tally] = {}
        self._pending: dict[str, tuple[int, float]] = {}

    # --- opening, catching up -----------------------------------------------------------------

    def open(self, tools: Mapping[str, Any]) -> None:
        self.loaded.tools = tools
        self.reload()

    def reload(self) -> None:
        self._seen = -1
        self.refresh()

    def close(self) -> None:
        """(memory: nothing to let go)"""

    def refresh(self) -> None:
        if self.data.counter[0] == self._seen and self.data.tables is self._tables:
            return
        self._seen = self.data.counter[0]
        for name in [n for n in self.loaded.bytes if n not in self.data.tools]:
            self.loaded.forget(name)
        for name, data in list(self.data.tools.items()):
            if self.loaded.bytes.get(name) is not data:
                self.loaded.load(name, data, None)
        if self.data.tables is not self._tables:
            self._tables = self.data.tables
            self._tables_generation += 1
            self.loaded.moved(None)

    @contextmanager
    def writing(self) -> Iterator[None]:
        if not self.data.lock.acquire(timeout=self.lock_timeout):
            raise StoreError(f"the memory store stayed locked for {self.lock_timeout:g} s")
        try:
            self.refresh()
            yield
        finally:
            self.data.lock.release()

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
        with self.writing():
            self.data.tables = {**self.data.tables, **table_file_data(data, Path(file))}
            self.data.counter[0] += 1

    # --- under the lock --------------------------------------------------------------------------

    def stored(self, name: str) -> StoredRecord | None:
        data = self.data.tools.get(name)
        if data is None:
            return None
        record, diagnostics = decode_record(data, f"memory:{name}")
        return StoredRecord(data, record, diagnostics)

    def keep_version(self, old: ToolRecord, vouched: bool) -> None:
        data = encode_record(old).encode()
        self.data.versions[(old.name, old.version)] = data
        self._sign((old.name, old.version), data, vouched)

    def commit(self, entry: AuditEntry, record: ToolRecord | None, compiled: Compiled | None, vouched: bool) -> None:
        name = entry.tool
        if record is None:
            for slot in [s for s in self.data.signed if s[0] == name]:
                del self.data.signed[slot]
        else:
            data = encode_record(record).encode()
            self.data.tools[name] = data
            self._sign((name, None), data, vouched)
            self.loaded.load(name, data, compiled)
        self.data.audit.append(entry)
        self.data.counter[0] += 1
        self._seen = self.data.counter[0]  # (the lock is held: no one else wrote since the refresh)
        if record is None:
            self.loaded.forget(name)

    def _sign(self, slot: Slot, data: bytes, vouched: bool) -> None:
        if vouched:
            self.data.signed[slot] = hashlib.sha256(data).digest()
        else:
            self.data.signed.pop(slot, None)

    def set_aside(self, name: str, at: datetime) -> str:
        where = f"{name}.{at.strftime('%Y%m%dT%H%M%S%fZ')}"
        kept = {slot: data for slot, data in self.data.versions.items() if slot[0] == name}
        kept[(name, None)] = self.data.tools.pop(name)
        for slot in kept:
            self.data.versions.pop(slot, None)
        self.data.deleted[where] = kept
        self._pending.pop(name, None)
        self.data.usage.pop(name, None)
        return f"deleted/{where}"

    def clear_leftovers(self, name: str) -> None:
        for slot in [s for s in self.data.versions if s[0] == name]:
            del self.data.versions[slot]
        self.data.usage.pop(name, None)

    # --- past versions, the audit log ----------------------------------------------------------

    def past_versions(self, name: str) -> list[int]:
        return sorted(version for tool, version in self.data.versions if tool == name and version is not None)

    def past_version(self, name: str, version: int) -> ToolRecord | None:
        data = self.data.versions.get((name, version))
        return None if data is None else decode_record(data, f"memory:{name}@{version}")[0]

    def audit(self, tool: str | None = None, *, after: int = 0) -> list[AuditEntry]:
        return [entry for entry in self.data.audit[after:] if tool is None or entry.tool == tool]

    def append_audit(self, entry: AuditEntry) -> None:
        self.data.audit.append(entry)

    # --- run counts --------------------------------------------------------------------------------

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
        return set(self.data.usage) | set(self._pending)

    def usage_of(self, name: str) -> tuple[int, datetime | None]:
        return self.usage().get(name, (0, None))

    def usage(self) -> dict[str, tuple[int, datetime | None]]:
        self.drain_usage()
        return with_pending(dict(self.data.usage), self._pending)

    def flush_usage(self, *, quietly: bool = False) -> None:
        self.drain_usage()
        pending, self._pending = self._pending, {}
        with self.data.lock:
            for name, (count, _) in pending.items():
                if name in self.data.tools:
                    old = self.data.usage.get(name, (0, None))[0]
                    self.data.usage[name] = (old + count, datetime.now(UTC))

    # --- what the store wrote itself -----------------------------------------------------------------

    def vouch(self, record: ToolRecord, action: str) -> bool:
        vouched = self.loaded.records.get(record.name) == record and self.verified(record.name)
        if not vouched and record.kind != "compute" and action not in ("disable", "reject", "delete"):
            raise NotTrusted(f"`{record.name}` was not written by this store: it may not {action}")
        return vouched

    def verified(self, name: str) -> bool:
        data = self.loaded.bytes.get(name)
        return data is not None and self.data.signed.get((name, None)) == hashlib.sha256(data).digest()

    def untrusted(self) -> set[str]:
        return {name for name in self.loaded.records if not self.verified(name)}

    def trust(self, names: list[str] | None, principal: Principal) -> dict[str, list[int]]:
        signed: dict[str, list[int]] = {}
        for name in list(self.loaded.records) if names is None else names:
            slots: list[Slot] = [(name, None), *((name, v) for v in self.past_versions(name))]
            for slot in slots:
                data = self.data.tools.get(name) if slot[1] is None else self.data.versions.get(slot)
                record = None if data is None else decode_record(data, f"memory:{name}")[0]
                if data is None or record is None:
                    continue
                self._sign(slot, data, True)
                signed.setdefault(name, []).append(record.version)
        for name, versions in signed.items():
            note = f"signed here: version(s) {', '.join(map(str, sorted(versions)))}"
            self.append_audit(audit_entry("trust", principal, name, utc_now(), note=note))
        self.data.counter[0] += 1
        return {name: sorted(versions) for name, versions in signed.items()}

    def past_verifies(self, name: str, version: int) -> bool:
        data = self.data.versions.get((name, version))
        return data is not None and self.data.signed.get((name, version)) == hashlib.sha256(data).digest()
