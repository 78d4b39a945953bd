"""What a check made outside the registry's lock read of the registry, and whether it still holds.

Compiling a definition, pinning an executable (reading its file) and running examples may take
seconds (or, for a file that blocks, for ever), so the registry does them without holding its
in-process mutex or the folder's cross-process lock. The check sees the registry through
`Reads`: every look-up of another tool (a `call` step checked, a callee run by an example, the
callers rechecked against a new version) holds the mutex for that look-up only and remembers
what it saw. Before writing, the registry takes the lock, catches up with the folder and asks
`still_hold()`: when a tool the check read, or the tables, changed in the meantime, it checks
again (a few times at most, then StoreError).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from toolkiln.registry.callees import Callees, ResolvePinned
from toolkiln.registry.definitions import Compiled
from toolkiln.registry.errors import BrokenTool, StoreError
from toolkiln.registry.models import AuditEntry, ToolRecord
from toolkiln.registry.store import Store
from toolkiln.tool import Tool

Seen = tuple[ToolRecord | None, Compiled | None]  # a tool's record and compiled form (None: none)
CallerPlan = tuple[Compiled | None, tuple[tuple[str, ToolRecord], ...]]


class Reads:
    """The registry as one check sees it. Made holding the mutex (after a refresh); `callees`
    is what the definition's `call` steps are checked against and its examples call, `tables`
    what its examples read."""

    def __init__(
        self,
        store: Store,
        mutex: threading.RLock,
        resolve: Callable[[str], Tool],
        resolve_pinned: ResolvePinned | None = None,
    ) -> None:
        self._store, self._mutex, self._resolve = store, mutex, resolve
        self.tables: Mapping[str, Any] = store.tables  # (replaced, never changed, by a reload)
        self._tools: dict[str, Seen] = {}
        self._callers: dict[str, tuple[tuple[str, ToolRecord], ...]] = {}
        self.records = _LockedNames(store, mutex)
        self.callees = Callees(self, self._resolved, resolve_pinned=resolve_pinned)

    # --- what Callees asks (CompiledTools) ---------------------------------------------------

    def compiled(self, name: str) -> Compiled:
        with self._mutex:
            seen = self._note(name)
        if seen[1] is None:
            raise BrokenTool(f"`{name}` does not compile")
        return seen[1]

    # (what a caller's pins read: past versions are never rewritten, so none is remembered)
    def past_version(self, name: str, version: int) -> ToolRecord | None:
        with self._mutex:
            return self._store.past_version(name, version)

    def past_verifies(self, name: str, version: int) -> bool:
        with self._mutex:
            return self._store.past_verifies(name, version)

    def audit(self, tool: str | None = None, *, after: int = 0) -> list[AuditEntry]:
        return self._store.audit(tool, after=after)

    def _resolved(self, name: str) -> Tool:
        """The callee an example's `call` step runs (as `Registry.run` finds it), remembered."""
        with self._mutex:
            try:
                return self._resolve(name)
            finally:
                self._note(name)

    def _note(self, name: str) -> Seen:
        seen = self._current(name)
        return self._tools.setdefault(name, seen)  # the first look: a later one that differs fails below

    def _current(self, name: str) -> Seen:
        try:
            compiled: Compiled | None = self._store.compiled(name)
        except BrokenTool:  # (which drops the record: read it after)
            compiled = None
        return self._store.records.get(name), compiled

    # --- the callers a new version must not break ----------------------------------------------

    def callers_of(self, name: str) -> CallerPlan:
        """The compiled form of `name` stored now (None: none that compiles) and every tool that
        calls it, directly or not, callees before callers, with their records."""
        with self._mutex:
            plan = self._callers_now(name)
            self._callers.setdefault(name, plan[1])
            return plan

    def _callers_now(self, name: str) -> CallerPlan:
        store = self._store
        if not store.callers(name):
            return None, ()
        from toolkiln.registry import dependencies  # (networkx: loaded only once tools call others)

        record = store.records.get(name)
        old = store.cached_compiled(name, record) if record is not None else None
        callers = []
        for caller in dependencies.callers_in_order(store.calls, name):
            found = store.records.get(caller)
            if found is not None and caller != name:
                callers.append((caller, found))
        return old, tuple(callers)

    # --- under the lock, before writing ---------------------------------------------------------

    def still_hold(self) -> bool:
        """Whether every tool the check read, the callers it rechecked and the tables are as
        they were (the caller holds the lock and has refreshed the store)."""
        if self._store.tables is not self.tables:
            return False
        for name, (record, compiled) in self._tools.items():
            now = self._current(name)
            if now[0] is not record or now[1] is not compiled:
                return False
        for name, callers in self._callers.items():
            now_callers = self._callers_now(name)[1]
            if len(now_callers) != len(callers):
                return False
            if any(a[0] != b[0] or a[1] is not b[1] for a, b in zip(now_callers, callers, strict=True)):
                return False
        return True


class _LockedNames:
    """The loaded tools' names, each question asked holding the mutex."""

    def __init__(self, store: Store, mutex: threading.RLock) -> None:
        self._store, self._mutex = store, mutex

    def __contains__(self, name: object) -> bool:
        with self._mutex:
            return name in self._store.records

    def keys(self) -> set[str]:
        with self._mutex:
            return set(self._store.records)

    def get(self, name: str) -> ToolRecord | None:
        with self._mutex:
            return self._store.records.get(name)


def attempts(seconds: float) -> Iterator[None]:
    """The attempts at a change checked without the lock: one more whenever what it was checked
    against changed meanwhile, for as long as the lock itself is waited for (`seconds`)."""
    deadline = time.monotonic() + seconds
    yield
    while time.monotonic() < deadline:
        yield


def kept_changing() -> StoreError:
    return StoreError(
        "what this change was checked against kept changing while it was checked",
        hint="retry when the registry is quieter, or raise lock_timeout",
    )
