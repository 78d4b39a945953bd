"""What one process knows of a registry folder, kept up to date cheaply before every operation
(the directory store's cache: directory.py puts the `Store` protocol in front of it).

At start every tool file is read and decoded; a file that does not decode becomes a `Problem`
(file + diagnostics) and is skipped. Definitions are checked and compiled when first used (run,
called, fetched) or when the problems are asked for, once per content (compiled_forms.py): a
definition that no longer checks then becomes a problem and its tool is skipped.

Afterwards `refresh()` costs two `stat` calls when nothing changed. Changes made through the
registry (in any process) append to the audit log, which names the tools to reload; any other
change to tools/ (a hand edit, a `git checkout`) changes the folder and triggers a scan of
file signatures; in-place edits that leave the folder alone are found by a periodic scan
(every `rescan_seconds`), which also looks at usage.json and tables/.

Checking a definition costs about a millisecond, so `check` does not check again a file
whose exact bytes were already checked by this toolkiln version (check_cache.py).

One invalidation rule (`_moved`): whenever a loaded record or the tables change, the generation
moves and what was made from the old state goes with it: the runnables `Registry.run` reuses,
the sorted list, whether the tool verifies, and the compiled forms of the tools that call it.
Everything else handed out (a compiled form, the tables mapping) is replaced, never changed, so
a cache above the store keys on its identity (`Reads.still_hold`, `runs.Runner`).
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.registry.callees import calls_of
from toolkiln.registry.check_cache import CheckCache
from toolkiln.registry.codec import decode_audit, decode_record, file_digest
from toolkiln.registry.compiled_forms import CompiledForms
from toolkiln.registry.definitions import Compiled
from toolkiln.registry.equality import same_data
from toolkiln.registry.errors import BrokenTool, StoreError, UnsafeFile
from toolkiln.registry.folder import Folder, Sig, sig_of
from toolkiln.registry.index import Entry, load_key, read_index, write_index
from toolkiln.registry.loaded_tables import LoadedTables
from toolkiln.registry.models import Problem, ToolRecord
from toolkiln.registry.names import NAME_PATTERN
from toolkiln.registry.past_versions import PastVersions
from toolkiln.registry.problem_files import Problems
from toolkiln.registry.records import Records
from toolkiln.registry.usage_file import UsageFile
from toolkiln.registry.vouching import Vouching


class Mirror:
    def __init__(
        self, folder: Folder, *, version_tag: str, trust_cache: bool = True, rescan_seconds: float = 2.0
    ) -> None:
        self.folder = folder
        self.version_tag = version_tag
        self.trust_cache = trust_cache
        self.rescan_seconds = rescan_seconds
        self.records = Records(self._read_deferred)
        self.problems = Problems(folder)  # by file, relative to the root
        self.generation = 0  # +1 whenever a record or the tables change: what was run before is stale
        # What `Registry.run` reuses, by tool name (opaque here): emptied whenever the
        # generation moves, so a run need not compare generations.
        self.runnables: dict[str, Any] = {}
        self._sorted: tuple[int, list[ToolRecord]] = (-1, [])
        self.tools: Mapping[str, Any] | None = None  # what `call` steps are checked against (`open`)
        self.forms = CompiledForms()
        self.checked = CheckCache(folder)
        self.past = PastVersions(folder, self.problems, self.checked, version_tag)
        self.loaded_tables = LoadedTables(folder, self.problems)
        self.usage = UsageFile(folder, self.problems)
        self.vouching = Vouching(folder, self.records, self.problems)
        self._digests: dict[str, str] = {}  # tool -> check-cache digest of its file's bytes
        self._index: dict[str, Entry] = {}  # the start-up index, while a load reads the folder
        self._files_read = 0  # tool files read and decoded (not taken from the index)
        self._sigs: dict[str, Sig] = {}  # tool name -> sig of its file when read
        self._audit_offset = 0
        self._watch: tuple[Sig | None, ...] = ()  # empty until the first load
        self._last_scan = 0.0
        self._tools_dir, self._audit_path = str(folder.tools_dir), str(folder.audit_path)

    @property
    def tables(self) -> dict[str, dict[str, Any]]:
        return self.loaded_tables.tables

    # --- refreshing -----------------------------------------------------------------------

    def _watched(self) -> tuple[Sig | None, Sig | None]:
        """What is looked at before every call: two stat calls. Registry changes always touch
        both; usage counts and tables are looked at by the periodic scan (and `load`)."""
        return sig_of(self._tools_dir), sig_of(self._audit_path)

    def load(self) -> None:
        """Read everything (at start, and on `Registry.refresh()`)."""
        self._watch = self._watched()
        self._audit_offset = self._audit_size()
        self.checked.read()
        self._sigs.clear()  # every tool file is looked at again (read, or taken from the index)
        key = load_key()
        self._index, self._files_read = read_index(self.folder, key, self.version_tag), 0
        with collector_paused():
            self._scan_tools()
            if self._files_read or len(self._index) != len(self.records):
                write_index(self.folder, key, self.version_tag, self._index_entries())
        self._index = {}
        self.past.check_all(self.records, trust_cache=self.trust_cache)
        self.usage.load()
        self._scan_tables()
        try:
            self.folder.scan(self.folder.root, ())  # only removes temporaries a dead writer left there
        except StoreError:
            pass
        self._last_scan = time.monotonic()
        self.checked.compact(set(self._digests.values()) | self.past.keys)

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
        self.checked.read()
        if periodic or named is None or (tools_changed and not named):
            self._scan_tools()
        else:
            for name in named:
                self._reload_tool(name)
        if periodic:
            self.usage.load()
            self._scan_tables()
            self._last_scan = now

    def _audit_size(self) -> int:
        sig = sig_of(self.folder.audit_path)
        return 0 if sig is None else sig[1]

    def _read_audit(self) -> set[str] | None:
        """The tools named by audit lines added since the last read; None when the log
        shrank (rewritten by hand): then only a full scan can tell."""
        if self._audit_size() < self._audit_offset:
            self._audit_offset = self._audit_size()
            return None
        try:
            lines, self._audit_offset = self.folder.read_lines(self.folder.audit_path, self._audit_offset)
        except StoreError as error:
            self.problems.unreadable(self.folder.audit_path, error)
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
        path = self.folder.tool_path(name)
        self._forget(name, path)
        if record is not None:
            sig = sig_of(path)
            self._set_record(name, record)
            if sig is not None:
                self._sigs[name] = sig
            if data is not None:
                self._digests[name] = file_digest(data, self.version_tag)
                self.vouching.read(name, data)
                if compiled is not None:
                    self.checked.remember(self._digests[name])
            if compiled is not None:
                self.forms.keep(record, compiled)
        self._audit_offset = self._audit_size()
        self._watch = self._watched()

    def _set_record(self, name: str, record: ToolRecord | Entry, *, may_call: bool = True) -> None:
        """Load a record, or one known from the index (read when first needed)."""
        self._moved(name)
        if isinstance(record, Entry):
            self.vouching.read(name, None)  # (known once the record is read)
            self.records.defer(name, record.version)
            self.forms.link(name, record.calls)
        else:
            self.records.set(name, record)
            self.forms.link(name, calls_of(record.definition) if may_call else frozenset())

    def _unset_record(self, name: str) -> None:
        """Forget a tool's record (and, by `_moved`, what was made from it)."""
        self._moved(name)
        self.records.pop(name)

    def _moved(self, name: str | None = None) -> None:
        """The one invalidation rule (see the module's documentation): the tables, or the
        loaded record of `name`, are about to change."""
        self.generation += 1
        self.runnables.clear()
        if name is not None:
            self.vouching.moved(name)
            self.forms.unlink(name)

    def sorted_records(self) -> list[ToolRecord]:
        """The records by name, sorted again only when one changed (a list of 10,000 tools
        took longer to sort than to filter)."""
        if self._sorted[0] != self.generation:
            self._read_all_deferred()  # (one that no longer decodes is dropped: the generation moves)
            self._sorted = (self.generation, [self.records[name] for name in sorted(self.records)])
        return self._sorted[1]

    def callers(self, name: str) -> list[str]:
        """The loaded tools that call `name` directly (not `name` itself)."""
        return self.forms.callers(name, self.records)

    # --- tools ----------------------------------------------------------------------------

    def _scan_tools(self) -> None:
        refused: dict[str, UnsafeFile] = {}
        folder_rel = self.folder.relative(self.folder.tools_dir)
        try:
            found = self.folder.scan(self.folder.tools_dir, (".json",), refused)
            self.problems.pop(folder_rel, None)
        except StoreError as error:
            found = {}
            self.problems.unreadable(self.folder.tools_dir, error)
        for filename, refusal in refused.items():
            path = self.folder.tools_dir / filename
            self._drop_record_for(self.folder.relative(path))
            self._sigs.pop(filename[:-5], None)
            self.problems.unreadable(path, refusal)
        seen = set()
        tools_prefix = folder_rel + os.sep
        try:
            with self.folder.reading(self.folder.tools_dir, found) as read:
                for filename, sig in found.items():
                    name = filename[:-5]
                    rel = tools_prefix + filename
                    if not NAME_PATTERN.fullmatch(name):
                        self._drop_record_for(rel)
                        self.problems.note(
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
                            self._read_tool_file(name, self.folder.tools_dir / filename, sig, read)
        except StoreError as error:  # the folder went away or became unreadable since the scan
            self.problems.unreadable(self.folder.tools_dir, error)
        for name in list(self.records):
            if name not in seen:
                self._forget(name, self.folder.tool_path(name))
        for rel in list(self.problems):
            if rel.startswith(tools_prefix) and Path(rel).name not in found and Path(rel).name not in refused:
                del self.problems[rel]

    def _reload_tool(self, name: str) -> None:
        if not NAME_PATTERN.fullmatch(name):
            return
        path = self.folder.tool_path(name)
        sig = sig_of(path)
        if sig is None:
            self._forget(name, path)
        elif sig != self._sigs.get(name) or name not in self.records:
            self._read_tool_file(name, path, sig)

    def _forget(self, name: str, path: Path) -> None:
        self._unset_record(name)
        self._sigs.pop(name, None)
        self.forms.drop(name)
        self._digests.pop(name, None)
        self.vouching.read(name, None)
        self.problems.pop(self.folder.relative(path), None)

    def _drop_record_for(self, rel: str) -> None:
        name = Path(rel).stem
        if NAME_PATTERN.fullmatch(name):
            self._unset_record(name)

    def _read_tool_file(
        self, name: str, path: Path, sig: Sig, read: Callable[[Path], bytes | None] | None = None
    ) -> None:
        """Read and decode a tool file; its record is loaded (checked when first used), or it is a problem."""
        rel = self.folder.relative(path)
        try:
            data = (read or self.folder.read_bytes)(path)
        except StoreError as error:
            self._unset_record(name)
            self._sigs[name] = sig
            self.problems.unreadable(path, error)
            return
        if data is None:
            self._forget(name, path)
            return
        self._sigs[name] = sig
        self._digests[name] = file_digest(data, self.version_tag)
        self.vouching.read(name, data)
        self._files_read += 1
        record, diagnostics = decode_record(data, rel)
        if record is not None and record.name != name:
            diagnostics = [
                replace(
                    Diagnostic.of(
                        codes.INVALID_NAME,
                        f"the file {rel} holds the tool `{record.name}`",
                        None,
                        hint=f"rename the file to {record.name}.json or fix its name",
                    ),
                    file=rel,
                )
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
        if self.trust_cache and self._digests.get(name) in self.checked:
            return  # (before anything that would read a deferred record)
        if self.forms.has(name, self.records.get(name)):
            return
        if name in self.records:  # (dropped meanwhile: a tool it calls failed, or it no longer decodes)
            try:
                self.compiled(name)
            except BrokenTool:
                pass

    def compiled(self, name: str) -> Compiled:
        """The loaded record's definition checked and compiled, on its first use: again only
        when its content changes or a tool it calls changes. One that does not check becomes a
        problem (and its tool is skipped): BrokenTool."""
        record = self.records.get(name)
        if record is None:  # a deferred record that no longer decodes
            problem = self.problems.of(self.folder.tool_path(name))
            raise BrokenTool(
                f"the stored tool `{name}` cannot be loaded" + (f": {problem.message}" if problem else ""),
                hint="fix or delete its file",
                diagnostics=list(problem.diagnostics) if problem else [],
            )
        cached = self.forms.cached(name, record)
        if cached is not None:
            return cached
        compiled, diagnostics = self.forms.compile(name, record, self.tools)
        if compiled is None:
            rel = self.folder.relative(self.folder.tool_path(name))
            self._unset_record(name)
            self.problems[rel] = Problem(file=rel, diagnostics=tuple(replace(d, file=rel) for d in diagnostics))
            raise BrokenTool(
                f"the stored tool `{name}` no longer compiles",
                hint=f"see the problems of {rel}",
                diagnostics=diagnostics,
            )
        digest = self._digests.get(name)
        if digest is not None:
            self.checked.remember(digest)
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
            with collector_paused(), self.folder.reading(self.folder.tools_dir, names) as read:
                for name in names:
                    self._read_deferred(name, read)

    def _read_deferred(self, name: str, read: Callable[[Path], bytes | None] | None = None) -> ToolRecord | None:
        """Read a record the index vouched for, when first needed; a file whose bytes are not
        the ones indexed is read as a changed file (a problem if it no longer decodes)."""
        path = self.folder.tool_path(name)
        try:
            data = (read or self.folder.read_bytes)(path)
        except StoreError as error:
            self._unset_record(name)
            self.problems.unreadable(path, error)
            return None
        if data is not None and file_digest(data, self.version_tag) == self._digests.get(name):
            record, diagnostics = decode_record(data, self.folder.relative(path))
            if record is not None and not diagnostics and record.name == name:
                self.records.set(name, record)  # the same content: nothing changed
                self.vouching.read(name, data)
                return record
        self._read_tool_file(name, path, sig_of(path) or (0, 0, 0), lambda _: data)
        return self.records.get(name)  # (read now, or dropped)

    def _index_entries(self) -> dict[str, Entry]:
        """The index of what is loaded now: every tool file that decoded."""
        return {
            f"{name}.json": Entry(
                self._sigs[name], self._digests[name], version, self.forms.calls.get(name, frozenset())
            )
            for name in self.records
            if name in self._sigs and name in self._digests and (version := self.records.version(name)) is not None
        }

    # --- what the registry wrote itself, and the tables ------------------------------------

    def untrusted(self) -> set[str]:
        """The loaded tools whose records do not verify here."""
        self._read_all_deferred()
        return self.vouching.untrusted()

    def rescan_tables(self) -> None:
        """Look at tables/ now (a tool reads a table not loaded yet: it may just have been added)."""
        self._scan_tables()

    def _scan_tables(self) -> None:
        if self.loaded_tables.scan():
            self._moved()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector: decoding thousands of records makes millions
    of objects, and the collections they set off took half the start-up time (records hold
    no reference cycles). Nothing is frozen: freezing is the application's choice (a
    pre-fork server's), never a library's (docs/decisions.md)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
