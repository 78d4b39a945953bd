"""What `Registry.invoke` remembers so that a call costs about what `run` costs, as `Registry`
methods, and the change mark an adapter uses to know, without asking the store, that what it
read of the registry still holds.

The one door's decisions that depend only on the tool's version, the kind of caller and the
policy (the tool is active, a call by such a caller runs at once) are found once by `invoke`'s
full path and kept on the tool's `HotRun` (runs.py): `door[principal kind] = (policy, version)`.
A HotRun is dropped whenever any record or table changes, in this process or another (the
store's one invalidation rule), and believed only while the change counter has not moved and
the folder was looked at less than WATCH_SECONDS ago, as `run` believes it; a new policy
object misses it; the registry's own `limits` turn it off. Only a kind that is not signed is
hot, and such a tool reaches nothing past its budgets: no program run inside it asks who calls
(`calling_as`). A tool that calls others is never remembered: its calls need clearing
(`_run_cleared`) and their approval depends on its callees.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from toolkiln.errors import Error
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.principals import Principal

if TYPE_CHECKING:
    from toolkiln.registry.kinds import Runnable
    from toolkiln.registry.policy import Policy
    from toolkiln.registry.runs import HotRun
    from toolkiln.registry.store import Store
    from toolkiln.semantics.limits import Limits

_monotonic = time.monotonic  # (a global lookup fewer per call)
_DOOR_KEYS = {"user": "person", "llm": "model"}  # the local user's words for who calls (principal_of)


@dataclass(frozen=True, slots=True)
class ChangeMark:
    """The registry's change counter when a reader started, and when (time.monotonic())."""

    changes: int
    taken: float


class _Hot(Protocol):
    """What the mixin uses of Registry (declared, not stubbed: see applying.py)."""

    policy: Policy
    limits: Limits | None
    _store: Store
    _hot: dict[str, HotRun]
    _counter: Any  # the change counter's words (None: no counter, nothing is hot)
    _hot_seconds: float
    _flush_at: float

    def _flush_quietly(self) -> None: ...


class HotDoor:
    def _door(self: _Hot, name: Any, principal: Any) -> tuple[HotRun, int] | None:
        """The tool's HotRun and version when `invoke` may run it as `run` does: it is hot and
        a call of it by this kind of caller was found to run at once under the policy the
        registry has now."""
        if type(name) is not str or self.limits is not None:
            return None
        hot = self._hot.get(name)
        if hot is None:
            return None
        if type(principal) is Principal:
            cleared = hot.door.get(principal.kind)
        else:
            cleared = hot.door.get(_DOOR_KEYS.get(principal, "")) if type(principal) is str else None
        if cleared is None or cleared[0] is not self.policy:
            return None
        if _monotonic() < hot.until and hot.changes == self._counter[0]:
            return hot, cleared[1]
        return None

    def _remember_door(
        self: _Hot, name: str, tool: Runnable, caller: Principal, version: int, reason: str | None
    ) -> None:
        """After `invoke`'s full path found that a call runs at once (the caller holds the
        mutex): remember it on the HotRun of the very tool it found, unless the tool calls others."""
        hot = self._hot.get(name)
        if reason is None and hot is not None and hot.tool is tool and not self._store.calls.get(name):
            hot.door[caller.kind] = (self.policy, version)

    def _invoke_hot(self: _Hot, hot: HotRun, name: str, args: Mapping[str, Any] | None, version: int) -> Outcome:
        """`invoke` of a call `_door` cleared: counted and run as `run`'s fast path does."""
        now = _monotonic()
        counts = hot.counts  # (this thread's cell of the tool's tally, as `run` steps it: usage.Tally)
        cell = counts.cell if hasattr(counts, "cell") else self._store.tally(name).cell()
        cell[0] += 1
        cell[1] = now
        if now >= self._flush_at:
            self._flush_quietly()
        try:
            return Outcome(True, hot.run(args), (), version, name)
        except Error as error:
            return Outcome.failed(name, error, version)

    def change_mark(self: _Hot) -> ChangeMark | None:
        """A mark to take before reading the registry (its tools, their definitions), for
        `unchanged_since` (None: this store cannot tell; read again every time)."""
        changes = self._store.changes.value()
        return None if changes is None else ChangeMark(changes, _monotonic())

    def unchanged_since(self: _Hot, mark: ChangeMark | None) -> bool:
        """Whether what was read after `mark` still holds: nothing changed through toolkiln
        since (any process's change moves the counter), and the mark is younger than the
        time within which a hand edit of the folder is seen. Asks the store nothing (no
        system call, no query): an adapter may ask in an event loop."""
        if mark is None or self._counter is None:
            return False
        return self._counter[0] == mark.changes and _monotonic() - mark.taken < self._hot_seconds
