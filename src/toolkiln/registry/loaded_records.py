"""What a store that keeps each record as bytes (a database; the tests' memory store) has loaded:
each record decoded from its bytes, or the problem of one that does not decode or compile; their
compiled forms and call graph; and the runs made from them (`runnables`), emptied whenever a
record or the tables change (store.py's one invalidation rule). The store asks its storage what
changed and hands the bytes here; the protocol's reading members are these."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolkiln.registry.callees import calls_of
from toolkiln.registry.codec import decode_record
from toolkiln.registry.compiled_forms import CompiledForms
from toolkiln.registry.definitions import Compiled
from toolkiln.registry.errors import BrokenTool
from toolkiln.registry.models import Problem, ToolRecord


class LoadedRecords:
    def __init__(self, where: str) -> None:
        self.where = where  # what a problem names as its file: the store's location
        self.runnables: dict[str, Any] = {}
        self.forms = CompiledForms()
        self.tools: Mapping[str, Any] | None = None  # the registry's kinds of tools (Store.open)
        self.records: dict[str, ToolRecord] = {}
        self.bytes: dict[str, bytes] = {}  # the bytes each loaded record came from
        self._problems: dict[str, Problem] = {}
        self._past_problems: dict[tuple[str, int], Problem] = {}  # past versions read and found broken

    def load(self, name: str, data: bytes, compiled: Compiled | None) -> None:
        self.moved(name)
        self._problems.pop(name, None)
        self.records.pop(name, None)
        self.bytes[name] = data
        record, diagnostics = decode_record(data, f"{self.where}#{name}")
        if record is None:
            self._problems[name] = Problem(file=f"{self.where}#{name}", diagnostics=tuple(diagnostics))
            return
        self.records[name] = record
        self.forms.link(name, calls_of(record.definition))
        if compiled is not None:
            self.forms.keep(record, compiled)

    def forget(self, name: str) -> None:
        self.moved(name)
        self.records.pop(name, None)
        self.bytes.pop(name, None)
        self._problems.pop(name, None)
        for key in [key for key in self._past_problems if key[0] == name]:
            del self._past_problems[key]

    def past_read(self, name: str, version: int, data: bytes) -> ToolRecord | None:
        """Past version `version` of `name` decoded from its bytes; one that does not decode is
        a problem (as the folder reports a broken versions/ file) until it is read fine."""
        where = f"{self.where}#{name}@{version}"
        record, diagnostics = decode_record(data, where)
        if record is None:
            self._past_problems[(name, version)] = Problem(file=where, diagnostics=tuple(diagnostics))
        else:
            self._past_problems.pop((name, version), None)
        return record

    def moved(self, name: str | None) -> None:
        """What was made from `name` (from the tables: None) goes."""
        self.runnables.clear()
        if name is not None:
            self.forms.unlink(name)

    def sorted_records(self) -> list[ToolRecord]:
        return [self.records[name] for name in sorted(self.records)]

    def problems(self) -> list[Problem]:
        past = [self._past_problems[key] for key in sorted(self._past_problems)]
        return [self._problems[name] for name in sorted(self._problems)] + past

    def problem_of(self, name: str, version: int | None = None) -> Problem | None:
        return self._problems.get(name) if version is None else self._past_problems.get((name, version))

    def check(self, name: str) -> None:
        try:
            self.compiled(name)
        except BrokenTool:
            pass

    def compiled(self, name: str) -> Compiled:
        record = self.records.get(name)
        if record is None:
            raise BrokenTool(f"the stored tool `{name}` cannot be loaded")
        cached = self.forms.cached(name, record)
        if cached is not None:
            return cached
        compiled, diagnostics = self.forms.compile(name, record, self.tools)
        if compiled is None:
            self.moved(name)
            del self.records[name]
            self._problems[name] = Problem(file=f"{self.where}#{name}", diagnostics=tuple(diagnostics))
            raise BrokenTool(f"the stored tool `{name}` no longer compiles", diagnostics=diagnostics)
        return compiled

    def cached_compiled(self, name: str, record: ToolRecord) -> Compiled | None:
        loaded = self.records.get(name)
        if loaded is None or loaded.definition != record.definition:
            return None
        try:
            return self.compiled(name)
        except BrokenTool:
            return None

    @property
    def calls(self) -> Mapping[str, frozenset[str]]:
        return self.forms.calls

    def callers(self, name: str) -> list[str]:
        return self.forms.callers(name, self.records)


class ReadsLoaded:
    """The Store protocol's members that read the loaded tools, for a store that keeps them in
    `self.loaded` (the database store; the tests' memory store): each asks `loaded`."""

    loaded: LoadedRecords

    @property
    def records(self) -> Mapping[str, ToolRecord]:
        return self.loaded.records

    def sorted_records(self) -> list[ToolRecord]:
        return self.loaded.sorted_records()

    def problems(self) -> list[Problem]:
        return self.loaded.problems()

    def problem_of(self, name: str, version: int | None = None) -> Problem | None:
        return self.loaded.problem_of(name, version)

    def check(self, name: str) -> None:
        self.loaded.check(name)

    def compiled(self, name: str) -> Compiled:
        return self.loaded.compiled(name)

    def cached_compiled(self, name: str, record: ToolRecord) -> Compiled | None:
        return self.loaded.cached_compiled(name, record)

    @property
    def calls(self) -> Mapping[str, frozenset[str]]:
        return self.loaded.calls

    def callers(self, name: str) -> list[str]:
        return self.loaded.callers(name)
