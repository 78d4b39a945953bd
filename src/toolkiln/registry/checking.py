"""Checking a definition without saving it, as `Registry` methods: compiled against the
registry's tools, its examples run, without the registry's lock (see reads.py), within a
total time budget when asked (see budget.py)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from toolkiln.registry.admission import passing
from toolkiln.registry.budget import finish_within
from toolkiln.registry.definitions import Compiled
from toolkiln.registry.reads import Reads
from toolkiln.registry.store import Store
from toolkiln.semantics.limits import DEFAULT_LIMITS, Limits
from toolkiln.tool import Tool

# A check that saves nothing may take this many times the registry's max_seconds in all.
CHECK_BUDGET_FACTOR = 2


class Checking:
    """Mixed into `Registry`, whose attributes these are."""

    limits: Limits | None
    _store: Store
    _mutex: threading.RLock
    _check_slots: threading.BoundedSemaphore

    def _pinned(self, definition: Any, callees: Mapping[str, Any]) -> Compiled:
        raise NotImplementedError  # (Registry's)

    def _callee_tool(self, name: str) -> Tool:
        raise NotImplementedError  # (Registry's)

    def _pinned_callee_tool(self, name: str, version: int, tool: Tool) -> Tool:
        raise NotImplementedError  # (Registry's)

    def check_definition(self, definition: Any, *, seconds: float | None = None) -> Compiled:
        """Compile a definition against the registry's tools and run its examples, saving
        nothing (for the meta-tools, the factory, the validate routes), without holding the
        registry's lock. `seconds`: a total time budget (`check_seconds` for a caller who only
        asks), past which CheckTooSlow."""
        if seconds is None:
            return self._checked(definition, None)
        return finish_within(seconds, self._check_slots, lambda until: self._checked(definition, (seconds, until)))

    @property
    def check_seconds(self) -> float:
        """The total a check that saves nothing may take: twice the registry's max_seconds."""
        return CHECK_BUDGET_FACTOR * (self.limits or DEFAULT_LIMITS).max_seconds

    def _checked(self, definition: Any, budget: tuple[float, float] | None) -> Compiled:
        reads = self._reads()
        return passing(self._pinned(definition, reads.callees), reads.tables, self.limits, budget)

    def _reads(self) -> Reads:
        """A view of the registry for a check made without the lock (see reads.py)."""
        with self._mutex:
            self._store.refresh()
            return Reads(self._store, self._mutex, self._callee_tool, self._pinned_callee_tool)
