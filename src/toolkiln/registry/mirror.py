"""What one process knows of the store, kept up to date cheaply before every operation.

At start every tool file is read and decoded; a file that does not decode becomes a `Problem`
(file + diagnostics) and is skipped. Definitions are checked and compiled when first used (run,
called, fetched) or when the problems are asked for, once per content (see `compiled`): a
definition that no longer checks then becomes a problem and its tool is skipped.

Afterwards `refresh()` costs four `stat` calls when nothing changed. Changes made through the
registry (in any process) append to the audit log, which names the tools to reload; any other
change to tools/ (a hand edit, a `git checkout`) changes the folder and triggers a scan of
file signatures; in-place edits that leave the folder alone are found by a periodic scan
(every `rescan_seconds`).

Checking a definition costs about a millisecond, so `check` does not check again a file
whose exact bytes were already checked by this toolkiln version (its digest is in
.cache/checked); a hand edit changes the bytes, so it is.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import RunError
from toolkiln.interpret.tables import MAX_TABLE_BYTES, table_file_data
from toolkiln.registry.callees import Callees, calls_of
from toolkiln.registry.codec import content_key, decode_audit, decode_record, encode_audit, file_digest
from toolkiln.registry.definitions import Compiled, verify_stored
from toolkiln.registry.equality import same_data
from toolkiln.registry.errors import BrokenTool, NotTrusted, StoreError, UnsafeFile
from toolkiln.registry.index import Entry, load_key, read_index, write_index
from toolkiln.registry.kinds import kind_of
from toolkiln.registry.models import AuditEntry, Problem, ToolRecord, utc_now
from toolkiln.registry.names import NAME_PATTERN
from toolkiln.registry.principals import Principal
from toolkiln.registry.records import Records
from toolkiln.registry.signatures import Signatures, slot
from toolkiln.registry.store import MAX_USAGE_BYTES, Sig, Store, sig_of

Usage = dict[str, tuple[int, datetime | None]]


class Mirror:
    def __init__(
        self, store: Store, *, version_tag: str, trust_cache: bool = True, rescan_seconds: float = 2.0
    ) -> None:
        self.store = store
        self.version_tag = version_tag
        self.trust_cache = trust_cache
        self.rescan_seconds = rescan_seconds
        self.records = Records(self._read_deferred)
        self.problems: dict[str, Problem] = {}  # by file, relative to the root
        self.tables: dict[str, dict[str, Any]] = {}
        self.tables_generation = 0  # +1 whenever the tables are reloaded
        self.generation = 0  # +1 whenever a record or the tables change: what was run before is stale
        # What `Registry.run` reuses, by tool name: emptied whenever the generation moves, so a
        # run need not compare generations (see Registry.run).
        self.runnables: dict[str, Any] = {}
        self._sorted: tuple[int, list[ToolRecord]] = (-1, [])
        self.usage: Usage = {}
        self.tools: Callees | None = None  # what `call` steps are checked against (set by Registry)
        self.calls: dict[str, frozenset[str]] = {}  # tool -> the tools it calls
        self._callers: dict[str, set[str]] = {}  # tool -> the tools that call it
        self._compiling: set[str] = set()
        # tool -> (the record compiled, the content key of its definition, the compiled form)
        self._compiled: dict[str, tuple[ToolRecord, str, Compiled]] = {}
        self._digests: dict[str, str] = {}  # tool -> check-cache digest of its file's bytes
        self.signatures = Signatures(store)
        self._unsigned: dict[str, str | None] = {}  # signatures of past versions kept, not written yet
        self._sha256: dict[str, bytes] = {}  # tool -> SHA-256 of the bytes its loaded record came from
        self._verified: dict[str, bool] = {}  # tool -> whether its loaded record is signed here
        self._version_keys: set[str] = set()  # check-cache keys of the past versions there are
        self._index: dict[str, Entry] = {}  # the start-up index, while a load reads the folder
        self._files_read = 0  # tool files read and decoded (not taken from the index)
        self._sigs: dict[str, Sig] = {}  # tool name -> sig of its file when read
        self._table_sigs: dict[str, Sig] = {}
        self._usage_sig: Sig | None = None
        self._checked: set[str] = set()
        self._checked_offset = 0
        self._audit_offset = 0
        self._watch: tuple[Sig | None, ...] = ()  # empty until the first load
        self._last_scan = 0.0
        self._tools_dir, self._audit_path = str(store.tools_dir), str(store.audit_path)

    # --- refreshing -----------------------------------------------------------------------

    def _watched(self) -> tuple[Sig | None, Sig | None]:
        """What is looked at before every call: two stat calls. Registry changes always touch
        both; usage counts and tables are looked at by the periodic scan (and `load`)."""
        return sig_of(self._tools_dir), sig_of(self._audit_path)

    def load(self) -> None:
        """Read everything (at start, and on `Registry.refresh()`)."""
        self._watch = self._watched()
        self._audit_offset = self._audit_size()
        self._read_checked()
        self._sigs.clear()  # every tool file is looked at again (read, or taken from the index)
        key = load_key()
        self._index, self._files_read = read_index(self.store, key, self.version_tag), 0
        with collector_paused():
            self._scan_tools()
            if self._files_read or len(self._index) != len(self.records):
                write_index(self.store, key, self.version_tag, self._index_entries())
        self._index = {}
        self.check_versions()
        self._load_usage()
        self._scan_tables()
        try:
            self.store.scan(self.store.root, ())  # only removes temporaries a dead writer left there
        except StoreError:
            pass
        self._last_scan = time.monotonic()
        self._compact_checked()

    def refresh(self) -> None:
        """Catch up with changes made since the last call, by this or any other process."""
        watch = self._watched()
        now = time.monotonic()
        periodic = now - self._last_scan >= self.rescan_seconds
        if watch == self._watch and not periodic:
            return
        old = self._watch
        self._watch = watch
        named: set[str] | None = set()
        if not old or watch[1] != old[1]:
            named = self._read_audit()
        tools_changed = not old or watch[0] != old[0]
        self._read_checked()
        if periodic or named is None or (tools_changed and not named):
            self._scan_tools()
        else:
            for name in named:
                self._reload_tool(name)
        if periodic:
            self._load_usage()
            self._scan_tables()
            self._last_scan = now

    def _audit_size(self) -> int:
        sig = sig_of(self.store.audit_path)
        return 0 if sig is None else sig[1]

    def _read_audit(self) -> set[str] | None:
        """The tools named by audit lines added since the last read; None when the log
        shrank (rewritten by hand): then only a full scan can tell."""
        if self._audit_size() < self._audit_offset:
            self._audit_offset = self._audit_size()
            return None
        try:
            lines, self._audit_offset = self.store.read_lines(self.store.audit_path, self._audit_offset)
        except StoreError as error:
            self.note_unreadable(self.store.audit_path, error)
            return None
        names = set()
        for line in lines:
            entry = decode_audit(line)
            if entry is None:
                return None
            names.add(entry.tool)
        return names

    def note_own_write(
        self, name: str, record: ToolRecord | None, compiled: Compiled | None, data: bytes | None = None
    ) -> None:
        """After this process wrote a tool (holding the lock): remember it without rereading;
        `data`, the file's bytes, checked when `compiled` is given (for the check cache)."""
        path = self.store.tool_path(name)
        self._forget(name, path)
        if record is not None:
            sig = sig_of(path)
            self._set_record(name, record)
            if sig is not None:
                self._sigs[name] = sig
            if data is not None:
                self._digests[name] = file_digest(data, self.version_tag)
                self._sha256[name] = hashlib.sha256(data).digest()
                if compiled is not None:
                    self._remember_checked(self._digests[name])
            if compiled is not None:
                self._compiled[name] = (record, content_key(record), compiled)
        self._audit_offset = self._audit_size()
        self._watch = self._watched()

    def _set_record(self, name: str, record: ToolRecord | Entry, *, may_call: bool = True) -> None:
        """Load a record, or one known from the index (read when first needed)."""
        if name in self.records:  # (a name not loaded has no compiled callers to forget)
            self._unset_record(name)
        self._moved()
        self._verified.pop(name, None)
        if isinstance(record, Entry):
            self._sha256.pop(name, None)  # (known once the record is read)
            self.records.defer(name, record.version)
            calls = self.calls[name] = record.calls
        else:
            self.records.set(name, record)
            calls = self.calls[name] = calls_of(record.definition) if may_call else frozenset()
        for callee in calls:
            self._callers.setdefault(callee, set()).add(name)

    def _unset_record(self, name: str) -> None:
        """Forget a tool's record, and the compiled forms of the tools that call it (directly or
        not): they were checked against it, and compile again on their next use."""
        self._moved()
        self.records.pop(name)
        for callee in self.calls.pop(name, ()):
            self._callers.get(callee, set()).discard(name)
        stack, seen = list(self._callers.get(name, ())), set()
        while stack:
            caller = stack.pop()
            if caller not in seen:
                seen.add(caller)
                self._compiled.pop(caller, None)
                stack.extend(self._callers.get(caller, ()))

    def _moved(self) -> None:
        self.generation += 1
        self.runnables.clear()

    def sorted_records(self) -> list[ToolRecord]:
        """The records by name, sorted again only when one changed (a list of 10,000 tools
        took longer to sort than to filter)."""
        if self._sorted[0] != self.generation:
            self._read_all_deferred()  # (one that no longer decodes is dropped: the generation moves)
            self._sorted = (self.generation, [self.records[name] for name in sorted(self.records)])
        return self._sorted[1]

    def callers(self, name: str) -> list[str]:
        """The loaded tools that call `name` directly (not `name` itself)."""
        return sorted(c for c in self._callers.get(name, ()) if c != name and c in self.records)

    def _remember_checked(self, digest: str) -> None:
        if digest in self._checked:
            return
        self._checked.add(digest)
        try:
            self.store.append_line(self.store.cache_path, digest, durable=False)
        except StoreError:
            pass  # only a cache: a read-only registry checks again next time

    # --- tools ----------------------------------------------------------------------------

    def note_unreadable(self, path: Path, error: StoreError) -> None:
        """A file (or folder) the store refused or could not read: a problem with its code."""
        rel = self.store.relative(path)
        diagnostic = Diagnostic.of(codes.lookup_code(error.code) or codes.STORE_ERROR, error.message, None, error.hint)
        self.problems[rel] = Problem(file=rel, diagnostics=(diagnostic.model_copy(update={"file": rel}),))

    def _scan_tools(self) -> None:
        refused: dict[str, UnsafeFile] = {}
        folder_rel = self.store.relative(self.store.tools_dir)
        try:
            found = self.store.scan(self.store.tools_dir, (".json",), refused)
            self.problems.pop(folder_rel, None)
        except StoreError as error:
            found = {}
            self.note_unreadable(self.store.tools_dir, error)
        for filename, refusal in refused.items():
            path = self.store.tools_dir / filename
            self._drop_record_for(self.store.relative(path))
            self._sigs.pop(filename[:-5], None)
            self.note_unreadable(path, refusal)
        seen = set()
        tools_prefix = folder_rel + os.sep
        try:
            with self.store.reading(self.store.tools_dir, found) as read:
                for filename, sig in found.items():
                    name = filename[:-5]
                    rel = tools_prefix + filename
                    if not NAME_PATTERN.fullmatch(name):
                        self._drop_record_for(rel)
                        self.problems[rel] = _problem(
                            rel,
                            codes.INVALID_NAME,
                            f"`{filename}` is not a tool file name",
                            "tool files are named <name>.json with a name matching ^[a-z][a-z0-9_]{0,63}$",
                        )
                        continue
                    seen.add(name)
                    if self._sigs.get(name) != sig or (name not in self.records and rel not in self.problems):
                        indexed = self._index.get(filename)
                        if indexed is not None and indexed.sig == sig:
                            self._sigs[name], self._digests[name] = sig, indexed.digest
                            self.problems.pop(rel, None)
                            self._set_record(name, indexed)
                        else:
                            self._read_tool_file(name, self.store.tools_dir / filename, sig, read)
        except StoreError as error:  # the folder went away or became unreadable since the scan
            self.note_unreadable(self.store.tools_dir, error)
        for name in list(self.records):
            if name not in seen:
                self._forget(name, self.store.tool_path(name))
        for rel in list(self.problems):
            if rel.startswith(tools_prefix) and Path(rel).name not in found and Path(rel).name not in refused:
                del self.problems[rel]

    def _reload_tool(self, name: str) -> None:
        if not NAME_PATTERN.fullmatch(name):
            return
        path = self.store.tool_path(name)
        sig = sig_of(path)
        if sig is None:
            self._forget(name, path)
        elif sig != self._sigs.get(name) or name not in self.records:
            self._read_tool_file(name, path, sig)

    def _forget(self, name: str, path: Path) -> None:
        self._unset_record(name)
        self._sigs.pop(name, None)
        self._compiled.pop(name, None)
        self._digests.pop(name, None)
        self._sha256.pop(name, None)
        self.problems.pop(self.store.relative(path), None)

    def _drop_record_for(self, rel: str) -> None:
        name = Path(rel).stem
        if NAME_PATTERN.fullmatch(name):
            self._unset_record(name)

    def _read_tool_file(
        self, name: str, path: Path, sig: Sig, read: Callable[[Path], bytes | None] | None = None
    ) -> None:
        """Read and decode a tool file; its record is loaded (checked when first used), or it is a problem."""
        rel = self.store.relative(path)
        try:
            data = (read or self.store.read_bytes)(path)
        except StoreError as error:
            self._unset_record(name)
            self._sigs[name] = sig
            self.note_unreadable(path, error)
            return
        if data is None:
            self._forget(name, path)
            return
        self._sigs[name] = sig
        self._digests[name] = file_digest(data, self.version_tag)
        self._sha256[name] = hashlib.sha256(data).digest()
        self._files_read += 1
        record, diagnostics = decode_record(data, rel)
        if record is not None and record.name != name:
            diagnostics = [
                Diagnostic.of(
                    codes.INVALID_NAME,
                    f"the file {rel} holds the tool `{record.name}`",
                    None,
                    hint=f"rename the file to {record.name}.json or fix its name",
                ).model_copy(update={"file": rel})
            ]
        if diagnostics or record is None:
            self._unset_record(name)
            self.problems[rel] = Problem(file=rel, diagnostics=tuple(diagnostics))
            return
        self.problems.pop(rel, None)
        # (a file without the text "call", even escaped, has no call step: no need to look)
        self._set_record(name, record, may_call=b'"call"' in data or b"\\u" in data)

    def check(self, name: str) -> None:
        """Check a loaded definition not checked yet (for `problems`, which asks for each tool in
        turn): one whose file's exact bytes the check cache knows is trusted; one that fails
        becomes a problem."""
        if self.trust_cache and self._digests.get(name) in self._checked:
            return  # (before anything that would read a deferred record)
        known = self._compiled.get(name)
        if known is not None and known[0] is self.records.get(name):
            return
        if name in self.records:  # (dropped meanwhile: a tool it calls failed, or it no longer decodes)
            try:
                self.compiled(name)
            except BrokenTool:
                pass

    def compiled(self, name: str) -> Compiled:
        """The loaded record's definition checked and compiled, on its first use: again only
        when its content changes (`content_key`) or a tool it calls changes. One that does not
        check becomes a problem (and its tool is skipped): BrokenTool."""
        record = self.records.get(name)
        if record is None:  # a deferred record that no longer decodes
            problem = self.problems.get(self.store.relative(self.store.tool_path(name)))
            raise BrokenTool(
                f"the stored tool `{name}` cannot be loaded" + (f": {problem.message}" if problem else ""),
                hint="fix or delete its file",
                diagnostics=list(problem.diagnostics) if problem else [],
            )
        cached = self._compiled.get(name)
        if cached is not None and cached[0] is record:
            return cached[2]
        key = content_key(record)
        if cached is not None and cached[1] == key:
            self._compiled[name] = (record, key, cached[2])
            return cached[2]
        if name in self._compiling:  # tools calling each other in a cycle (files edited by hand)
            raise BrokenTool(f"`{name}` calls itself through other tools", hint="break the cycle")
        self._compiling.add(name)
        try:
            compiled, diagnostics = verify_stored(
                record.definition,
                name=record.name,
                description=record.description,
                parameters=record.parameters,
                risk_level=record.risk_level,
                kind=record.kind,
                tools=self.tools,
            )
        finally:
            self._compiling.discard(name)
        if compiled is None:
            rel = self.store.relative(self.store.tool_path(name))
            self._unset_record(name)
            self.problems[rel] = Problem(
                file=rel, diagnostics=tuple(d.model_copy(update={"file": rel}) for d in diagnostics)
            )
            raise BrokenTool(
                f"the stored tool `{name}` no longer compiles",
                hint=f"see the problems of {rel}",
                diagnostics=diagnostics,
            )
        digest = self._digests.get(name)
        if digest is not None:
            self._remember_checked(digest)
        self._compiled[name] = (record, key, compiled)
        return compiled

    def cached_compiled(self, name: str, record: ToolRecord) -> Compiled | None:
        """The compiled form of `record` if it is the loaded (so checked) version of the tool."""
        loaded = self.records.get(name)
        if loaded is None or not same_data(loaded.definition, record.definition):
            return None
        try:
            return self.compiled(name)
        except BrokenTool:
            return None

    def _read_all_deferred(self) -> None:
        """Read every record not read yet (a listing needs them all), as a start reads them."""
        names = self.records.deferred()
        if names:
            with collector_paused(), self.store.reading(self.store.tools_dir, names) as read:
                for name in names:
                    self._read_deferred(name, read)

    def _read_deferred(self, name: str, read: Callable[[Path], bytes | None] | None = None) -> ToolRecord | None:
        """Read a record the index vouched for, when first needed; a file whose bytes are not
        the ones indexed is read as a changed file (a problem if it no longer decodes)."""
        path = self.store.tool_path(name)
        try:
            data = (read or self.store.read_bytes)(path)
        except StoreError as error:
            self._unset_record(name)
            self.note_unreadable(path, error)
            return None
        if data is not None and file_digest(data, self.version_tag) == self._digests.get(name):
            record, diagnostics = decode_record(data, self.store.relative(path))
            if record is not None and not diagnostics and record.name == name:
                self.records.set(name, record)  # the same content: nothing changed
                self._sha256[name] = hashlib.sha256(data).digest()
                return record
        self._read_tool_file(name, path, sig_of(path) or (0, 0, 0), lambda _: data)
        return self.records.get(name)  # (read now, or dropped)

    def _index_entries(self) -> dict[str, Entry]:
        """The index of what is loaded now: every tool file that decoded."""
        return {
            f"{name}.json": Entry(self._sigs[name], self._digests[name], version, self.calls.get(name, frozenset()))
            for name in self.records
            if name in self._sigs and name in self._digests and (version := self.records.version(name)) is not None
        }

    # --- what the registry wrote itself (signatures.py) -------------------------------------

    def verified(self, name: str) -> bool:
        """Whether the loaded record of `name` is one this registry signed, here."""
        self._signatures_changed()
        return self._verified_now(name)

    def _verified_now(self, name: str) -> bool:
        known = self._verified.get(name)
        if known is None:
            record = self.records.get(name)  # (reads a deferred record: its bytes are then known)
            digest = self._sha256.get(name)
            known = self._verified[name] = (
                record is not None
                and digest is not None
                and self.signatures.verifies(slot(name), name, record.version, digest)
            )
        return known

    def untrusted(self) -> set[str]:
        """The loaded tools whose records do not verify here."""
        self._read_all_deferred()
        self._signatures_changed()
        return {name for name in self.records if not self._verified_now(name)}

    def _signatures_changed(self) -> None:
        self.signatures.refresh()
        for name in self.signatures.take_changed():
            self._verified.pop(name, None)

    def vouch(self, record: ToolRecord, action: str) -> bool:
        """Whether `record` (as read from disk) is the loaded record and verifies: whether what
        is made from it may be signed. NotTrusted when it does not and `action` would act on
        what a program or workflow tool claims (anything but disable, reject and delete)."""
        vouched = self.records.get(record.name) == record and self.verified(record.name)
        if not vouched and kind_of(record.kind).signed and action not in ("disable", "reject", "delete"):
            raise NotTrusted(
                f"`{record.name}` was not written by this registry here (a clone, a copy, another "
                f"machine or a hand edit): what its file claims is not believed, so it may not {action}",
                hint=f"read it, then trust it: toolkiln trust {self.store.root} --tool {record.name}",
            )
        return vouched

    def sign(self, name: str, record: ToolRecord | None, data: bytes | None, vouched: bool, past: bool = False) -> None:
        """After the registry wrote `name`'s file (`past`: a past version), holding the lock:
        sign its bytes when what it was made from verified, else leave it unsigned; a deleted
        tool (`record` None) loses every signature. Signing never undoes the write: a
        signatures file that cannot be written leaves the record unsigned, and says so."""
        if record is None:
            self.signatures.refresh()
            changes = dict.fromkeys(self.signatures.slots_of(name))
        else:
            where = slot(name, record.version if past else None)
            changes = {where: self.signatures.mac(name, record.version, data or b"") if vouched else None}
        self._unsigned.update(changes)
        if past:
            return  # (written with the record's own, which follows: one write of the file)
        try:
            self.signatures.write(self._unsigned)
        except StoreError as error:
            self.note_unreadable(self.signatures.path, error)
        self._unsigned = {}
        self._verified.pop(name, None)

    def trust(self, names: list[str], principal: Principal) -> dict[str, list[int]]:
        """Sign the records of `names` as they are on disk now, with their past versions, and
        say who did in the audit log (the caller holds the lock): {name: the versions signed}."""
        signed = self.signatures.sign_as_found(names)
        self._verified.clear()
        for name, versions in signed.items():
            note = f"signed here: version(s) {', '.join(map(str, versions))}"
            entry = AuditEntry(
                at=utc_now(), by=principal.actor, via=principal.via, action="trust", tool=name, note=note
            )
            self.store.append_line(self.store.audit_path, encode_audit(entry))
        return signed

    # --- past versions --------------------------------------------------------------------

    def check_versions(self) -> None:
        """Look at every past version of the loaded tools (at load): a file that is not a
        regular file, does not decode or holds another version is a problem (R0303, E01xx)."""
        folder = self.store.versions_dir
        prefix = self.store.relative(folder)
        self._version_keys = set()
        for rel in [r for r in self.problems if r == prefix or r.startswith(prefix + os.sep)]:
            del self.problems[rel]
        try:
            self.store.check_folders(folder, create=False)
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name) if folder.exists() else []
        except StoreError as error:
            self.note_unreadable(folder, error)
            return
        except OSError as error:
            self.note_unreadable(folder, StoreError(f"cannot list {prefix}: {error.strerror or error}"))
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
                try:
                    self.store.check_folders(Path(entry.path), create=False)
                except StoreError as error:
                    self.note_unreadable(Path(entry.path), error)
                continue
            version = self.records.version(entry.name)
            if version is None:
                continue  # what a deleted tool left behind is removed when the name is used again
            refused: dict[str, UnsafeFile] = {}
            try:
                found = self.store.scan(Path(entry.path), (".json",), refused)
            except StoreError as error:
                self.note_unreadable(Path(entry.path), error)
                continue
            for filename, refusal in refused.items():
                self.note_unreadable(Path(entry.path) / filename, refusal)
            for filename, sig in found.items():
                number = filename[:-5]
                if not number.isdigit() or int(number) >= version:
                    continue  # left by an update that died before its record was written
                # A version file is written once: one that decoded before, unchanged since (same
                # inode, size and time), is not read again. These keys are apart from the digests
                # of checked tool files (a version is decoded, never compiled).
                rel = self.store.relative(Path(entry.path) / filename)
                key = file_digest(f"{rel}\0{sig}".encode(), self.version_tag + " past version")
                self._version_keys.add(key)
                if self.trust_cache and key in self._checked:
                    self.problems.pop(rel, None)
                elif self.past_version(entry.name, int(number)) is not None:
                    self._remember_checked(key)

    def past_version(self, name: str, version: int) -> ToolRecord | None:
        """A past version's record; a file that cannot be read or decoded is added to the problems."""
        path = self.store.version_path(name, version)
        rel = self.store.relative(path)
        try:
            data = self.store.read_bytes(path)
        except StoreError as error:
            self.note_unreadable(path, error)
            return None
        if data is None:
            self.problems.pop(rel, None)
            return None
        record, diagnostics = decode_record(data, rel)
        if record is not None and (record.name, record.version) != (name, version):
            diagnostics = [
                Diagnostic.of(
                    codes.INVALID_NAME,
                    f"{rel} holds version {record.version} of `{record.name}`",
                    None,
                    hint="restore the file from version control",
                ).model_copy(update={"file": rel})
            ]
            record = None
        if record is None:
            self.problems[rel] = Problem(file=rel, diagnostics=tuple(diagnostics))
        else:
            self.problems.pop(rel, None)
        return record

    # --- the check cache ------------------------------------------------------------------

    def _read_checked(self) -> None:
        sig = sig_of(self.store.cache_path)
        size = 0 if sig is None else sig[1]
        if size < self._checked_offset:
            self._checked, self._checked_offset = set(), 0
        if size == self._checked_offset:
            return
        try:
            lines, self._checked_offset = self.store.read_lines(self.store.cache_path, self._checked_offset)
        except StoreError:
            return  # only a cache: everything is checked
        self._checked.update(line.strip() for line in lines if len(line.strip()) == 64)

    def _compact_checked(self) -> None:
        """Keep the cache from growing without end: rewrite it with the live digests only (those
        of the tool files and past versions there are now)."""
        live = (set(self._digests.values()) | self._version_keys) & self._checked
        if len(self._checked) <= 2 * len(live) + 1000:
            return
        try:
            with self.store.lock():
                self.store.write_text(self.store.cache_path, "".join(f"{d}\n" for d in sorted(live)))
        except StoreError:
            return
        self._checked = live
        self._checked_offset = sig_of(self.store.cache_path)[1]  # type: ignore[index]

    # --- usage and tables -----------------------------------------------------------------

    def note_usage(self, usage: Usage) -> None:
        """The counts this process just wrote to usage.json (holding the lock)."""
        self.usage = usage
        self._usage_sig = sig_of(self.store.usage_path)
        self.problems.pop(self.store.relative(self.store.usage_path), None)

    def _load_usage(self) -> None:
        path = self.store.usage_path
        sig = sig_of(path)
        if sig == self._usage_sig and sig is not None:
            return
        self._usage_sig = sig
        rel = self.store.relative(path)
        self.problems.pop(rel, None)
        try:
            data = self.store.read_bytes(path, MAX_USAGE_BYTES)
        except StoreError as error:
            self.usage = {}
            self.note_unreadable(path, error)
            return
        usage, problem = decode_usage(data, rel)
        self.usage = usage
        if problem is not None:
            self.problems[rel] = problem

    def rescan_tables(self) -> None:
        """Look at tables/ now (a tool reads a table not loaded yet: it may just have been added)."""
        self._scan_tables()

    def _scan_tables(self) -> None:
        refused: dict[str, UnsafeFile] = {}
        folder_rel = self.store.relative(self.store.tables_dir)
        try:
            found = self.store.scan(self.store.tables_dir, (".json", ".csv", ".JSON", ".CSV"), refused)
            folder_problem = None
        except StoreError as error:
            found, folder_problem = {}, error
        sigs = found
        if sigs == self._table_sigs and self._table_sigs and not refused:
            return
        self._table_sigs = sigs
        prefix = folder_rel + os.sep
        for rel in [r for r in self.problems if r.startswith(prefix) or r == folder_rel]:
            del self.problems[rel]
        if folder_problem is not None:
            self.note_unreadable(self.store.tables_dir, folder_problem)
        for filename, refusal in refused.items():
            self.note_unreadable(self.store.tables_dir / filename, refusal)
        tables: dict[str, dict[str, Any]] = {}
        origin: dict[str, str] = {}
        for filename in sorted(found):
            path = self.store.tables_dir / filename
            rel = self.store.relative(path)
            try:
                raw = self.store.read_bytes(path, MAX_TABLE_BYTES)  # a regular file inside the folder only
            except StoreError as error:
                self.note_unreadable(path, error)
                continue
            if raw is None:
                continue  # removed since the scan
            try:
                loaded = table_file_data(raw, path)
            except RunError as error:
                self.problems[rel] = Problem(
                    file=rel,
                    diagnostics=(
                        Diagnostic.of(codes.INVALID_TABLE, error.message, None, error.hint).model_copy(
                            update={"file": rel}
                        ),
                    ),
                )
                continue
            clash = sorted(set(loaded) & set(tables))
            if clash:
                self.problems[rel] = _problem(
                    rel,
                    codes.INVALID_TABLE,
                    f"table `{clash[0]}` is also defined in {origin[clash[0]]}",
                    "each table name may come from one file only; this file is skipped",
                )
                continue
            tables.update(loaded)
            origin.update(dict.fromkeys(loaded, rel))
        self.tables = tables
        self.tables_generation += 1
        self._moved()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector: decoding thousands of records makes millions
    of objects, and the collections they set off took half the start-up time (records hold
    no reference cycles). What was made then joins the oldest generation."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:  # (never when someone froze objects on purpose: a pre-fork server)
            # The new objects go straight to the oldest generation: otherwise the first young
            # collection after this walks every one of them (0.2-0.3 s for 10,000 records).
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()


def _problem(rel: str, code: codes.Code, message: str, hint: str) -> Problem:
    """A problem of the file `rel` with one diagnostic."""
    return Problem(file=rel, diagnostics=(Diagnostic.of(code, message, None, hint).model_copy(update={"file": rel}),))


def decode_usage(data: bytes | None, rel: str) -> tuple[Usage, Problem | None]:
    """usage.json -> {tool: (count, last used)}; a broken file is a problem and counts as empty."""
    if data is None:
        return {}, None
    try:
        raw = json.loads(data.decode("utf-8"), parse_float=Decimal)
        usage: Usage = {}
        for name, entry in raw.items():
            count = entry["count"]
            last = entry.get("last_used_at")
            if not isinstance(count, int) or count < 0:
                raise ValueError(f"bad count for {name}")
            usage[name] = (count, datetime.fromisoformat(last) if last else None)
        return usage, None
    except (ValueError, TypeError, KeyError, AttributeError, UnicodeDecodeError) as error:
        diagnostic = Diagnostic.of(
            codes.INVALID_JSON,
            f"usage counts cannot be read: {error}",
            None,
            hint="the file is rewritten at the next run; its old counts are lost",
        )
        return {}, Problem(file=rel, diagnostics=(diagnostic.model_copy(update={"file": rel}),))
