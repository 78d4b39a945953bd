"""The `Store` protocol: where a `Registry` keeps its tools, and everything it knows of them.

`Registry` holds the lifecycle (who may do what, what checks, what a change writes); a store
holds the state: records and their past versions, the audit log, run counts, the tables that
lookups read, which records it wrote itself (signatures), a lock that serializes writers
across processes, and a change signal that tells a process that another one wrote. The
registry talks to its store only through this protocol, so another store (a database) needs
no change above it. `DirectoryStore` (directory.py) keeps a registry folder.

What a store hands out is its cache, answered as of its last `refresh` (the registry asks for
one before every operation); a store keeps it under one invalidation rule: whenever a loaded
record or the tables change, whatever was made from the old state is dropped (the
`runnables`, the compiled forms of the tools that call a changed tool, whether a record
verifies), and what it hands out (a record, a compiled form, the tables mapping) is replaced,
never changed, so a cache above the store may key on its identity.

Threads: the registry calls a store holding its own mutex (one call at a time). Processes:
`writing()` holds the cross-process lock; inside it, `stored(name)` is what is stored now
(not the cache), and `commit` writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from toolkiln.diagnostics.model import Diagnostic
from toolkiln.registry.models import AuditEntry, Problem, ToolRecord
from toolkiln.registry.principals import Principal

if TYPE_CHECKING:
    from toolkiln.registry.definitions import Compiled
    from toolkiln.registry.usage import Tally


class StoredRecord(NamedTuple):
    """A tool as it is stored now: its bytes (the encoded record, what a change compares and
    signs) and the record they decode to (None, with the diagnostics that say why not)."""

    data: bytes
    record: ToolRecord | None
    diagnostics: list[Diagnostic]


class ChangeSignal(Protocol):
    """How a process notices a write by another one cheaply: `value()` moves with every commit
    (None: no signal, every run asks the store); `words[0]` is the same number, for the
    registry's hot path. A store bumps it when it commits."""

    @property
    def words(self) -> memoryview | None: ...

    @property
    def hears_every_change(self) -> bool:
        """True when every change moves the counter (a database's, whose hand edits must bump it
        too): a run stays believed until it moves. False for a folder, whose files an editor or
        git may change without it: a run is believed for WATCH_SECONDS only."""
        ...

    def value(self) -> int | None: ...


class Store(Protocol):
    # --- identity, opening, catching up -----------------------------------------------------

    @property
    def location(self) -> str:
        """Where the tools are kept, for messages (a folder's path)."""
        ...

    @property
    def lock_timeout(self) -> float:
        """How long a writer waits for the lock (and a change checked without it is retried)."""
        ...

    def open(self, tools: Mapping[str, Any]) -> None:
        """Load everything; `tools` is what stored definitions' `call` steps are checked against."""

    def refresh(self) -> None:
        """Catch up with changes made since the last call, by this or any other process."""

    def reload(self) -> None:
        """Read everything again."""

    def close(self) -> None:
        """Let go of what the store holds open (a database's connections and listener); a
        folder holds nothing between calls. The registry that opened it calls this as its
        `with` block ends."""

    def writing(self) -> AbstractContextManager[None]:
        """Hold the cross-process write lock, caught up with every change made before it."""
        ...

    # --- the loaded tools (as of the last refresh) ---------------------------------------------

    @property
    def records(self) -> Mapping[str, ToolRecord]:
        """The loaded records by name (a name may drop out when its record is first read)."""
        ...

    def sorted_records(self) -> list[ToolRecord]: ...

    def problems(self) -> list[Problem]:
        """What could not be loaded (skipped), each with its diagnostics, in a stable order."""
        ...

    def problem_of(self, name: str, version: int | None = None) -> Problem | None:
        """The problem of a tool's record, or of one past version."""
        ...

    def check(self, name: str) -> None:
        """Check a loaded definition not checked yet; one that fails becomes a problem."""

    def compiled(self, name: str) -> Compiled:
        """The loaded definition checked and compiled (once per content): BrokenTool when not."""
        ...

    def cached_compiled(self, name: str, record: ToolRecord) -> Compiled | None:
        """The compiled form of `record` if it is the loaded version of the tool."""
        ...

    @property
    def calls(self) -> Mapping[str, frozenset[str]]:
        """Tool -> the tools its `call` steps name."""
        ...

    def callers(self, name: str) -> list[str]:
        """The loaded tools that call `name` directly (not `name` itself)."""
        ...

    @property
    def runnables(self) -> dict[str, Any]:
        """What `Registry.run` reuses, a value per tool name, opaque to the store: emptied
        whenever a record or the tables change."""
        ...

    # --- tables --------------------------------------------------------------------------------

    @property
    def tables(self) -> Mapping[str, dict[str, Any]]:
        """The tables lookups read, by name; replaced (never changed) when they change."""
        ...

    @property
    def tables_generation(self) -> int:
        """+1 whenever the tables are replaced."""
        ...

    def rescan_tables(self) -> None:
        """Look for tables now (a tool reads one not loaded yet: it may just have been added)."""

    def put_table(self, file: str, data: bytes) -> None:
        """Keep a table file (`rates.json`, `zones.csv`: what a folder's tables/ holds), checked
        first (E0513 when it is not one, R0104 for a name that is no plain file name); nothing
        is written on failure."""

    # --- under the lock: what is stored now, and writing ------------------------------------------

    def stored(self, name: str) -> StoredRecord | None:
        """The tool as stored now (None: no such tool); the caller holds `writing()` or is
        about to check again under it."""
        ...

    def keep_version(self, old: ToolRecord, vouched: bool) -> None:
        """Keep `old` as a past version (signed when `vouched`), before its next one is committed."""

    def commit(self, entry: AuditEntry, record: ToolRecord | None, compiled: Compiled | None, vouched: bool) -> None:
        """Store `record` as the current one of `entry.tool` (None: the tool was set aside),
        signed when what it was made from verified (`vouched`), its compiled form kept; append
        the audit entry; signal the change to other processes."""

    def set_aside(self, name: str, at: datetime) -> str:
        """Take a tool and its past versions out of the store, kept where a person can restore
        them (said in the return value, for the audit note); its run counts are dropped."""
        ...

    def clear_leftovers(self, name: str) -> None:
        """Before a tool of this name is created: drop what a deleted one left (past versions,
        run counts)."""

    # --- past versions -------------------------------------------------------------------------

    def past_versions(self, name: str) -> list[int]:
        """The numbers of the stored past versions of `name`, ascending."""
        ...

    def past_version(self, name: str, version: int) -> ToolRecord | None:
        """A past version's record; one that cannot be read becomes a problem (None)."""
        ...

    # --- the audit log -------------------------------------------------------------------------

    def audit(self, tool: str | None = None, *, after: int = 0) -> list[AuditEntry]:
        """The audit entries, oldest first; only one tool's when `tool` is given; only those
        after the first `after` entries of the whole log, which an implementation reads without
        reading those first ones again where it can (an event stream asks twice a second)."""
        ...

    def append_audit(self, entry: AuditEntry) -> None: ...

    # --- run counts ----------------------------------------------------------------------------

    def tally(self, name: str) -> Tally:
        """What a run of `name` counts itself in, without a lock (usage.py)."""
        ...

    def count_run(self, name: str, when: float) -> None:
        """One run of `name` at `when` (time.monotonic())."""

    def drain_usage(self) -> None:
        """Take the runs the tallies counted into this process's pending counts."""

    def used(self) -> set[str]:
        """The tools with runs counted (stored or pending)."""
        ...

    def usage_of(self, name: str) -> tuple[int, datetime | None]:
        """A tool's run count and last use: what is stored plus what this process has pending."""
        ...

    def usage(self) -> dict[str, tuple[int, datetime | None]]:
        """Every tool with runs counted: its count and last use, as `usage_of` says, in one read."""
        ...

    def flush_usage(self, *, quietly: bool = False) -> None:
        """Add this process's pending counts to the stored ones. StoreError when they cannot be
        written, unless `quietly`: then they are kept for the next flush and a problem says why."""

    # --- what the store wrote itself ---------------------------------------------------------

    def vouch(self, record: ToolRecord, action: str) -> bool:
        """Whether `record` (as stored now) is the loaded record and verifies (what is made from
        it may be signed); NotTrusted when it does not and `action` would believe what a
        program or workflow tool claims."""
        ...

    def verified(self, name: str) -> bool:
        """Whether the loaded record of `name` is one this store signed."""
        ...

    def untrusted(self) -> set[str]: ...

    def trust(self, names: list[str] | None, principal: Principal) -> dict[str, list[int]]:
        """Sign the records of `names` (None: every tool) and their past versions as stored now,
        with an audit entry per tool (under `writing()`): {name: the versions signed}."""
        ...

    def past_verifies(self, name: str, version: int) -> bool:
        """Whether a stored past version is one this store signed."""
        ...

    # --- change notification -----------------------------------------------------------------

    @property
    def changes(self) -> ChangeSignal: ...
