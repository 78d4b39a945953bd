"""`DirectoryStore`: the `Store` (store.py) of a registry folder, the default.

It puts the protocol in front of four parts: the folder itself (folder.py: layout, atomic
writes, the cross-process lock), what this process knows of it (mirror.py: records, problems,
compiled forms, tables, signatures, kept up to date cheaply), the run counts (usage.py) and the
change counter other processes bump (changes.py). Every write holds the folder's lock, writes
atomically and appends one audit line, then tells the mirror what it wrote, so that it need
not read it back.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from toolkiln.registry.changes import ChangeCounter
from toolkiln.registry.codec import decode_audit, decode_record, encode_audit, encode_record
from toolkiln.registry.definitions import Compiled
from toolkiln.registry.errors import StoreError
from toolkiln.registry.folder import Folder
from toolkiln.registry.loaded_tables import checked_table_file
from toolkiln.registry.mirror import Mirror
from toolkiln.registry.models import AuditEntry, Problem, ToolRecord, utc_now
from toolkiln.registry.principals import Principal
from toolkiln.registry.revisions import audit_entry
from toolkiln.registry.store import StoredRecord
from toolkiln.registry.usage import Tally, UsageBook, flush_quietly, not_written
from toolkiln.version import __version__

AUDIT_MARKS = 16  # positions in the audit log remembered (a server streams to at most 8 clients)


class DirectoryStore:
    """A registry folder (see folder.py for its layout). `durable=False` skips fsync (writes
    stay atomic and safe from killed processes, but a power cut may lose the last ones);
    `rescan_seconds` is how often files changed outside toolkiln are looked for;
    `trust_check_cache=False` checks every file again instead of trusting .cache/checked."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        lock_timeout: float = 30.0,
        durable: bool = True,
        rescan_seconds: float = 2.0,
        trust_check_cache: bool = True,
    ) -> None:
        self.folder = Folder(path, lock_timeout=lock_timeout, durable=durable)
        self.mirror = Mirror(
            self.folder,
            version_tag=f"toolkiln {__version__}",
            trust_cache=trust_check_cache,
            rescan_seconds=rescan_seconds,
        )
        self._usage = UsageBook(self.folder)
        self.changes = ChangeCounter(self.folder.open_changes)
        # entries -> the byte offset they end at, for the last few audit reads: a read of what
        # came after starts at the nearest one instead of decoding the whole log again (each
        # event stream asks twice a second, each from its own position)
        self._audit_marks: dict[int, int] = {0: 0}
        self._audit_marks_lock = threading.Lock()
        # Pending run counts are flushed when the store is collected or the interpreter exits.
        self._finalizer = weakref.finalize(self, flush_quietly, self._usage)

    # --- identity, opening, catching up -----------------------------------------------------

    @property
    def location(self) -> str:
        return os.fspath(self.folder.root)

    @property
    def lock_timeout(self) -> float:
        return self.folder.lock_timeout

    def open(self, tools: Mapping[str, Any]) -> None:
        self.mirror.tools = tools
        self.mirror.load()

    def refresh(self) -> None:
        self.mirror.refresh()

    def reload(self) -> None:
        self.mirror.load()

    def close(self) -> None:
        """(nothing held open: each write opens and closes its files)"""

    @contextmanager
    def writing(self) -> Iterator[None]:
        with self.folder.lock():
            self.mirror.refresh()
            yield

    # --- the loaded tools --------------------------------------------------------------------

    @property
    def records(self) -> Mapping[str, ToolRecord]:
        return self.mirror.records

    def sorted_records(self) -> list[ToolRecord]:
        return self.mirror.sorted_records()

    def problems(self) -> list[Problem]:
        problems = self.mirror.problems
        return [problems[f] for f in sorted(problems)]

    def problem_of(self, name: str, version: int | None = None) -> Problem | None:
        path = self.folder.tool_path(name) if version is None else self.folder.version_path(name, version)
        return self.mirror.problems.of(path)

    def check(self, name: str) -> None:
        self.mirror.check(name)

    def compiled(self, name: str) -> Compiled:
        return self.mirror.compiled(name)

    def cached_compiled(self, name: str, record: ToolRecord) -> Compiled | None:
        return self.mirror.cached_compiled(name, record)

    @property
    def calls(self) -> Mapping[str, frozenset[str]]:
        return self.mirror.forms.calls

    def callers(self, name: str) -> list[str]:
        return self.mirror.callers(name)

    @property
    def runnables(self) -> dict[str, Any]:
        return self.mirror.runnables

    @property
    def tables(self) -> Mapping[str, dict[str, Any]]:
        return self.mirror.tables

    @property
    def tables_generation(self) -> int:
        return self.mirror.loaded_tables.generation

    def rescan_tables(self) -> None:
        self.mirror.rescan_tables()

    def put_table(self, file: str, data: bytes) -> None:
        checked_table_file(file, data)
        with self.folder.lock():
            self.folder.check_folders(self.folder.tables_dir)
            self.folder.write_bytes(self.folder.tables_dir / file, data)
            self.changes.bump()
        self.rescan_tables()

    # --- under the lock ----------------------------------------------------------------------

    def stored(self, name: str) -> StoredRecord | None:
        path = self.folder.tool_path(name)
        data = self.folder.read_bytes(path)
        if data is None:
            return None
        record, diagnostics = decode_record(data, self.folder.relative(path))
        return StoredRecord(data, record, diagnostics)

    def keep_version(self, old: ToolRecord, vouched: bool) -> None:
        data = encode_record(old).encode("utf-8")
        self.folder.write_bytes(self.folder.version_path(old.name, old.version), data)
        self.mirror.vouching.sign(old.name, old, data, vouched, past=True)

    def commit(self, entry: AuditEntry, record: ToolRecord | None, compiled: Compiled | None, vouched: bool) -> None:
        """Write the tool file (already set aside for a delete), sign it when `vouched`, mark it
        checked, append the audit line, bump the change counter."""
        name = entry.tool
        data = None
        if record is not None:
            data = encode_record(record).encode("utf-8")
            self.folder.write_bytes(self.folder.tool_path(name), data)
        self.mirror.vouching.sign(name, record, data, vouched)
        self.append_audit(entry)
        self.changes.bump()
        self.mirror.note_own_write(name, record, compiled, data)

    def set_aside(self, name: str, at: datetime) -> str:
        """Move the tool's files to .deleted/<name>.<UTC time>/ (returned, relative to the root)."""
        backup = self.folder.set_aside(name, at.strftime("%Y%m%dT%H%M%S%fZ"))
        self._usage.drop(name)
        usage = self._usage.flush(forget=(name,))
        if usage is not None:
            self.mirror.usage.note(usage)
        return backup

    def clear_leftovers(self, name: str) -> None:
        self.folder.remove_tree(self.folder.version_dir(name))
        if name in self.mirror.usage.counts:
            self.mirror.usage.note(self._usage.flush(forget=(name,)) or {})

    # --- past versions, the audit log --------------------------------------------------------

    def past_versions(self, name: str) -> list[int]:
        return self.folder.past_versions(name)

    def past_version(self, name: str, version: int) -> ToolRecord | None:
        return self.mirror.past.read(name, version)

    def audit(self, tool: str | None = None, *, after: int = 0) -> list[AuditEntry]:
        with self._audit_marks_lock:
            count = max(known for known in self._audit_marks if known <= after)
            offset = self._audit_marks[count]
        found: list[AuditEntry] = []
        while True:  # read in chunks: the log only grows
            lines, end = self.folder.read_lines(self.folder.audit_path, offset)
            if end < offset:  # the log is gone (read_lines answers 0): nothing after
                with self._audit_marks_lock:
                    self._audit_marks = {0: 0}
                return []
            for entry in filter(None, map(decode_audit, lines)):
                if count >= after and (tool is None or entry.tool == tool):
                    found.append(entry)
                count += 1
            if end == offset:
                self._remember_audit_mark(count, offset)
                return found
            offset = end

    def _remember_audit_mark(self, count: int, offset: int) -> None:
        with self._audit_marks_lock:
            self._audit_marks[count] = offset
            while len(self._audit_marks) > AUDIT_MARKS:
                del self._audit_marks[min(known for known in self._audit_marks if known)]

    def append_audit(self, entry: AuditEntry) -> None:
        self.folder.append_line(self.folder.audit_path, encode_audit(entry))

    # --- run counts --------------------------------------------------------------------------

    def tally(self, name: str) -> Tally:
        return self._usage.tally(name)

    def count_run(self, name: str, when: float) -> None:
        self._usage.count(name, when)

    def drain_usage(self) -> None:
        self._usage.drain()

    def used(self) -> set[str]:
        self._usage.drain()
        return self.mirror.usage.counts.keys() | self._usage.pending.keys()

    def usage_of(self, name: str) -> tuple[int, datetime | None]:
        return self._usage.merged(self.mirror.usage.counts, name)

    def usage(self) -> dict[str, tuple[int, datetime | None]]:
        self._usage.drain()
        stored = self.mirror.usage.counts
        return {name: self._usage.merged(stored, name) for name in stored.keys() | self._usage.pending.keys()}

    def flush_usage(self, *, quietly: bool = False) -> None:
        """When usage.json cannot be written (a full disk, a read-only folder) and `quietly`, the
        counts stay in memory for the next flush, and a problem on usage.json says why until a
        flush succeeds."""
        try:
            usage = self._usage.flush(lambda name: self.folder.tool_path(name).exists())
        except StoreError as error:
            if not quietly:
                raise
            self.mirror.problems.unreadable(self.folder.usage_path, not_written(error, self._usage))
            return
        if usage is not None:
            self.mirror.usage.note(usage)

    # --- what the store wrote itself ---------------------------------------------------------

    def vouch(self, record: ToolRecord, action: str) -> bool:
        return self.mirror.vouching.vouch(record, action)

    def verified(self, name: str) -> bool:
        return self.mirror.vouching.verified(name)

    def untrusted(self) -> set[str]:
        return self.mirror.untrusted()

    def trust(self, names: list[str] | None, principal: Principal) -> dict[str, list[int]]:
        chosen = list(self.mirror.records) if names is None else names
        signed = self.mirror.vouching.trust(chosen)
        for name, versions in signed.items():
            note = f"signed here: version(s) {', '.join(map(str, versions))}"
            self.append_audit(audit_entry("trust", principal, name, utc_now(), note=note))
        self.changes.bump()
        return signed

    def past_verifies(self, name: str, version: int) -> bool:
        return self.mirror.vouching.past_verifies(name, version)
