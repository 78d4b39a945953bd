"""The compiled forms of the loaded definitions, and which tools call which.

Checking and compiling a definition costs about a millisecond, so a store compiles each one on
first use and keeps the form for the record it was made from: for the same record object, or
a record whose definition and copied fields are the same (`content_key`: a status change
leaves it alone). A form is dropped when a tool it calls, directly or not, changes: it was
checked against that tool. Any store can hold one of these (the directory store does).
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import Any

from toolkiln.diagnostics.model import Diagnostic
from toolkiln.registry.codec import content_key
from toolkiln.registry.definitions import Compiled, verify_stored
from toolkiln.registry.errors import BrokenTool
from toolkiln.registry.models import ToolRecord
from toolkiln.registry.pins import pinned


class CompiledForms:
    def __init__(self) -> None:
        self.calls: dict[str, frozenset[str]] = {}  # tool -> the tools it calls
        self._callers: dict[str, set[str]] = {}  # tool -> the tools that call it
        self._compiling: set[str] = set()
        # tool -> (the record compiled, the content key of its definition, the compiled form)
        self._forms: dict[str, tuple[ToolRecord, str, Compiled]] = {}

    # --- who calls whom -------------------------------------------------------------------

    def link(self, name: str, calls: frozenset[str]) -> None:
        """`name` (loaded now) calls `calls`."""
        self.calls[name] = calls
        for callee in calls:
            self._callers.setdefault(callee, set()).add(name)

    def unlink(self, name: str) -> None:
        """`name` is no longer loaded as it was: forget what it calls, and the compiled forms of
        the tools that call it (directly or not), which compile again on their next use."""
        for callee in self.calls.pop(name, ()):
            self._callers.get(callee, set()).discard(name)
        stack, seen = list(self._callers.get(name, ())), set()
        while stack:
            caller = stack.pop()
            if caller not in seen:
                seen.add(caller)
                self._forms.pop(caller, None)
                stack.extend(self._callers.get(caller, ()))

    def callers(self, name: str, loaded: Container[str]) -> list[str]:
        """The `loaded` tools that call `name` directly (not `name` itself)."""
        return sorted(c for c in self._callers.get(name, ()) if c != name and c in loaded)

    # --- compiled forms -------------------------------------------------------------------

    def drop(self, name: str) -> None:
        self._forms.pop(name, None)

    def keep(self, record: ToolRecord, compiled: Compiled) -> None:
        """The form of `record` compiled by a write that checked it."""
        self._forms[record.name] = (record, content_key(record), compiled)

    def has(self, name: str, record: ToolRecord | None) -> bool:
        """Whether the form of this very record is kept."""
        known = self._forms.get(name)
        return known is not None and known[0] is record

    def cached(self, name: str, record: ToolRecord) -> Compiled | None:
        """The kept form of `record` (the same record, or one with the same content)."""
        cached = self._forms.get(name)
        if cached is None:
            return None
        if cached[0] is record:
            return cached[2]
        key = content_key(record)
        if cached[1] != key:
            return None
        self._forms[name] = (record, key, cached[2])
        return cached[2]

    def compile(
        self, name: str, record: ToolRecord, tools: Mapping[str, Any] | None
    ) -> tuple[Compiled | None, list[Diagnostic]]:
        """Check and compile `record`'s definition against `tools` (what its `call` steps see,
        through the record's pins);
        kept when it compiles. BrokenTool for tools calling each other in a cycle (hand edits)."""
        if name in self._compiling:
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
                tools=pinned(tools, record.pins),
            )
        finally:
            self._compiling.discard(name)
        if compiled is not None:
            self._forms[name] = (record, content_key(record), compiled)
        return compiled, diagnostics
