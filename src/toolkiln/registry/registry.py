"""`toolkiln.Registry`: checked tools persisted in a folder, with a lifecycle, versions,
usage counts, exports to every tool-calling format, and meta-tools for models.

The tools live in a `Store` (store.py; a registry folder by default, directory.py), which the
registry talks to through that protocol only. Every change holds the store's cross-process
lock, rereads what it changes, writes and appends one audit line; every call first catches up
with changes made by other processes. Only what compiled is written.
"""

from __future__ import annotations

import builtins
import difflib
import math
import os
import threading
import time
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from toolkiln.diagnostics import codes
from toolkiln.errors import Error, RunError
from toolkiln.interpret import runner as handles
from toolkiln.registry import exports, meta
from toolkiln.registry.applying import Applying
from toolkiln.registry.budget import CHECK_SLOTS
from toolkiln.registry.call_approvals import CallApprovals
from toolkiln.registry.callees import Callees
from toolkiln.registry.capabilities import LOCAL, Capabilities
from toolkiln.registry.changes import WATCH_SECONDS
from toolkiln.registry.changing import ACTIVATE_HINT, Changing
from toolkiln.registry.checking import Checking
from toolkiln.registry.definitions import Compiled, compile_definition
from toolkiln.registry.errors import (
    BrokenTool,
    InvalidRequest,
    RegistryError,
    ToolNotActive,
    ToolNotFound,
)
from toolkiln.registry.hot_door import HotDoor
from toolkiln.registry.kinds import KINDS, RunContext, Runnable, kind_of
from toolkiln.registry.locations import calls_for, open_store
from toolkiln.registry.models import ACTORS, STATUSES, AuditEntry, Problem, ToolRecord, utc_now
from toolkiln.registry.names import check_name
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.pending_calls import PendingCalls
from toolkiln.registry.pins import untrusted_pins
from toolkiln.registry.policy import DEFAULT_POLICY, Policy
from toolkiln.registry.postgres.urls import is_database_url
from toolkiln.registry.principals import Principal, principal_of
from toolkiln.registry.program_calls import calling_as
from toolkiln.registry.repinning import Repinning
from toolkiln.registry.revisions import audit_entry
from toolkiln.registry.runs import HotRun, Runner
from toolkiln.registry.store import Store
from toolkiln.registry.trusting import Trusting
from toolkiln.registry.workflows import WorkflowTools
from toolkiln.semantics.dates import Clock
from toolkiln.semantics.limits import Limits
from toolkiln.tool import Tool

if TYPE_CHECKING:
    from toolkiln.n8n.client import N8nClient
    from toolkiln.registry.secrets import Secrets

_monotonic = time.monotonic  # (a global lookup fewer per run)


class Registry(Checking, Trusting, Changing, Repinning, Applying, CallApprovals, HotDoor):
    """Persisted, checked tools: in the folder `path`, or in the `Store` given instead (the
    folder's own options then do not apply). See docs/registry.md.

    `policy` decides statuses and permissions; `limits` bound every run (a run's own `limits=`
    wins); `usage_flush_seconds` is how often run counts reach usage.json (0: on every run);
    `rescan_seconds` how often files changed outside toolkiln are looked for;
    `trust_check_cache=False` makes `problems` recheck every file instead of trusting
    .cache/checked (definitions are checked on first use, or when the problems are asked for);
    `durable=False` skips fsync (writes stay atomic and safe from killed processes, but a power
    cut may lose the last ones: for tests and throw-away registries). `n8n` is the client that
    deploys and runs workflow tools (default: one from TOOLKILN_N8N_URL / TOOLKILN_N8N_API_KEY
    when needed); the registry does not close it. `capabilities` are what its tools may use
    beyond their budgets (capabilities.py): every one for the local user (`LOCAL`, the
    default); a server passes what its operator granted. `pending_calls` keeps the calls that
    wait for a person's approval (the policy's call rules; default: the folder's calls/).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | Store,
        *,
        policy: Policy | None = None,
        limits: Limits | None = None,
        lock_timeout: float = 30.0,
        usage_flush_seconds: float = 1.0,
        rescan_seconds: float = 2.0,
        trust_check_cache: bool = True,
        durable: bool = True,
        n8n: N8nClient | None = None,
        capabilities: Capabilities = LOCAL,
        pending_calls: PendingCalls | None = None,
    ) -> None:
        self.policy = policy or DEFAULT_POLICY
        self.capabilities = capabilities
        self._workflows = WorkflowTools(n8n, self._secret)
        self.limits = limits
        self._owns_store = isinstance(path, str | os.PathLike)  # (closed when its `with` ends)
        if isinstance(path, str | os.PathLike):
            path = open_store(
                path,
                lock_timeout=lock_timeout,
                durable=durable,
                rescan_seconds=rescan_seconds,
                trust_check_cache=trust_check_cache,
            )
        self._store: Store = path
        self.path = Path(self._store.location)
        # Calls kept for a person's approval (call_approvals.py): beside the tools by default.
        self.pending_calls = pending_calls or calls_for(self._store, lock_timeout=lock_timeout, durable=durable)
        self._runner = Runner()
        self._counter = self._store.changes.words  # (None: no hot path, every run asks the store)
        # name -> HotRun: what `run` reuses without asking the store while nothing has changed
        # (see changes.py). The store owns it and empties it in place whenever a record or the
        # tables change (its one invalidation rule, store.py).
        self._hot: dict[str, HotRun] = self._store.runnables
        # (callee, version) -> what a caller pinned to that past version runs (_pinned_callee_tool)
        self._pinned_hot: dict[tuple[str, int], tuple[Tool, tuple[int, int], float, Tool, Policy | None]] = {}
        # (a database's signal hears every change: no look at the store while it is quiet)
        self._hot_seconds = math.inf if self._store.changes.hears_every_change else min(WATCH_SECONDS, rescan_seconds)
        self._mutex = threading.RLock()
        self._cleared = threading.local()  # `.on` while a call checked for approval runs (call_approvals.py)
        self._reasons: dict[str, Any] = {}  # why a tool's calls wait, by tool (call_approvals.py)
        self._check_slots = threading.BoundedSemaphore(CHECK_SLOTS)
        self._flush_seconds = usage_flush_seconds
        self._flush_at = time.monotonic() + usage_flush_seconds  # when `run` next flushes the counts
        resolve = weakref.WeakMethod(self._callee_tool)
        resolve_pinned = weakref.WeakMethod(self._pinned_callee_tool)
        self._store.open(
            Callees(
                self._store,
                lambda name: resolve()(name),  # type: ignore[misc]
                resolve_pinned=lambda name, version, tool: resolve_pinned()(name, version, tool),  # type: ignore[misc]
            )
        )

    def __repr__(self) -> str:
        return f"<Registry {self._store.location} ({len(self._store.records)} tools)>"

    @property
    def location(self) -> str:
        """Where the registry is, as it may be printed: its folder, or its database's URL
        without the password (`path` folds a URL's `//`)."""
        return self._store.location

    def secret_store(self) -> Secrets:
        """The registry's secrets (registry/secrets.py): beside its folder, or in its database
        sealed under the fleet's key (registry/postgres/secrets.py)."""
        from toolkiln.registry.secrets import SecretStore

        if is_database_url(self.location):
            from toolkiln.registry.postgres.secrets import DatabaseSecretStore

            return DatabaseSecretStore(self._store)  # type: ignore[arg-type]
        return SecretStore(self.path)

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        """Close, and let go of the store it opened (a database's connections: a `with` block
        per request would otherwise keep two connections each until the process ends)."""
        self.close()
        if self._owns_store:
            self._store.close()

    def close(self) -> None:
        """Write pending usage counts (when they cannot be written, they are kept and a problem
        says why: closing never fails for them). The registry stays usable."""
        self._flush_quietly()

    def flush(self) -> None:
        """Add this process's pending run counts to the stored ones (usage.json)."""
        self._flush(quietly=False)

    def _flush_quietly(self) -> None:
        """Flush the run counts; counting never turns a run into a failure. When they cannot be
        written, the store keeps them for the next flush and a problem says why."""
        self._flush(quietly=True)

    def _flush(self, *, quietly: bool) -> None:
        with self._mutex:
            self._flush_at = time.monotonic() + self._flush_seconds  # (a failure is retried then)
            self._store.flush_usage(quietly=quietly)

    def refresh(self) -> None:
        """Reread every file now (changes are otherwise picked up before each call)."""
        with self._mutex:
            self._store.reload()

    # --- reading ----------------------------------------------------------------------------

    @property
    def problems(self) -> list[Problem]:
        """Files that could not be loaded and were skipped, each with its diagnostics. Every
        definition not checked yet is checked first (files whose bytes were checked before
        are trusted through the check cache)."""
        with self._mutex:
            self._store.refresh()
            names = sorted(self._store.records)
        for name in names:  # the mutex for one check at a time: thousands take seconds
            with self._mutex:
                self._store.check(name)
        with self._mutex:
            return self._store.problems()

    @property
    def tables(self) -> dict[str, dict[str, Any]]:
        """The tables lookups read: tables/*.json and *.csv, by table name."""
        with self._mutex:
            self._store.refresh()
            return dict(self._store.tables)

    def get(self, name: str) -> ToolRecord:
        """A tool's record; its definition is checked (once): BrokenTool when it no longer checks."""
        with self._mutex:
            self._store.refresh()
            if check_name(name) in self._store.records:
                try:
                    self._store.compiled(name)
                except BrokenTool:
                    pass  # now a problem: _loaded says so
            return self._with_usage(self._loaded(name))

    def list(self, status: str | None = None, created_by: str | None = None) -> builtins.list[ToolRecord]:
        """The tools, by name; optionally only those of one status or creator."""
        if status is not None and status not in STATUSES:
            raise InvalidRequest(f"unknown status {status!r}", hint=f"statuses are: {', '.join(STATUSES)}")
        if created_by is not None and created_by not in ACTORS:
            raise InvalidRequest(f"created_by must be one of {', '.join(ACTORS)}, not {created_by!r}")
        with self._mutex:
            self._store.refresh()
            used = self._store.used()  # the others have no runs
            return [
                self._with_usage(r) if r.name in used else r
                for r in self._store.sorted_records()
                if (status is None or r.status == status) and (created_by is None or r.created_by == created_by)
            ]

    def __contains__(self, name: object) -> bool:
        with self._mutex:
            self._store.refresh()
            return name in self._store.records

    def __len__(self) -> int:
        with self._mutex:
            self._store.refresh()
            return len(self._store.records)

    def history(self, name: str) -> builtins.list[ToolRecord]:
        """Every version of a tool, oldest first; the last is the current one."""
        with self._mutex:
            self._store.refresh()
            current = self._loaded(check_name(name))
            versions = []
            for number in self._store.past_versions(name):
                if number >= current.version:
                    continue  # left by an update that died before its record was written
                past = self._store.past_version(name, number)
                if past is not None:
                    versions.append(past)
            return versions + [self._with_usage(current)]

    def audit_log(self, tool: str | None = None, *, after: int = 0) -> builtins.list[AuditEntry]:
        """The audit entries, oldest first; only one tool's when `tool` is given; only those
        after the first `after` entries of the log (what an event stream has not sent yet)."""
        return self._store.audit(tool, after=after)

    def run_counts(self) -> dict[str, tuple[int, datetime | None]]:
        """Each run tool's run count and last use, whoever ran it (stored, and this process's
        runs not yet stored): what the event stream compares to tell of runs."""
        with self._mutex:
            self._store.refresh()
            return dict(sorted(self._store.usage().items()))

    # --- running and exporting ----------------------------------------------------------------

    def run(
        self,
        name: str,
        args: Mapping[str, Any] | None = None,
        *,
        tables: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
        clock: Clock | datetime | None = None,
    ) -> Any:
        """Run an active tool with the registry's tables (plus `tables`); counts the use.
        `clock`: what today() and now() read, as `Tool.run` takes it (a workflow's n8n reads
        its own). Raises ToolNotActive, RunError (bad arguments, run-time failures) and the like."""
        now = _monotonic()
        try:
            hot = self._hot[name]
        except (KeyError, TypeError):  # (TypeError: not a name at all; the slow path says so)
            return self._run_tool(self._runnable(check_name(name)), name, args, tables, limits, clock, now)
        # Every test below is needed and each costs tens of nanoseconds: see docs/performance.md.
        if now < hot.until and hot.changes == self._counter[0]:  # type: ignore[index]
            try:
                cell = hot.counts.cell  # this thread's count of the tool's runs (usage.Tally)
            except AttributeError:
                cell = self._store.tally(name).cell()
            cell[0] += 1
            cell[1] = now
            if now >= self._flush_at:
                self._flush_quietly()
            if tables is None and limits is None and clock is None and self.limits is None:
                return hot.run(args)  # the tool's fast path (Tool.runner), no keywords
            return hot.tool.run(args, tables=tables, limits=limits or self.limits, clock=clock)
        return self._run_tool(self._runnable(check_name(name)), name, args, tables, limits, clock, now)

    def runner(self, name: str) -> handles.Runner:
        """A handle on the active tool `name`: `runner.run(args)` is `reg.run(name, args)`,
        counted and kept up to date with the folder as `run` is (a later update runs the new
        version). Raises now what `run` would raise for the name (ToolNotActive and the like)."""
        self._runnable(check_name(name))
        return handles.Runner(partial(self.run, name), name)

    def invoke(
        self,
        name: str,
        args: Mapping[str, Any] | None = None,
        *,
        principal: Principal | str,
        tables: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
        clock: Clock | datetime | None = None,
        conversation: str | None = None,
    ) -> Outcome:
        """Run an active tool for `principal` and say how it went. Never raises for the caller's
        mistake (no such tool, not active, bad arguments, a failed run): those are the Outcome's
        errors. The version reported is the one that ran, found in the same look-up as the tool.
        A call the policy holds for a person's approval does not run: the Outcome is pending
        (R0730; `outcome.call` is its id, `conversation` is kept with it).
        `run` stays the fast path (it raises, reports no version and knows no approval)."""
        if tables is None and limits is None and clock is None:
            door = self._door(name, principal)
            if door is not None:  # (what the slow path below found is still true: run as `run` does)
                return self._invoke_hot(door[0], name, args, door[1])
        shown = name if isinstance(name, str) else repr(name)[:64]
        version = None
        try:
            caller = principal_of(principal, "principal")
            with self._mutex:  # the tool, its version and whether it waits from one state of the folder
                tool = self._runnable(check_name(name))
                record = self._loaded(name)
                version = record.version
                reason = self._approval_needed(record, caller)
                self._remember_door(name, tool, caller, version, reason)
            if reason is not None:
                return self._hold(record, args, caller, conversation, reason)
            with calling_as(caller, self.invoke):  # (the tools a javascript tool calls: as this caller)
                result = self._run_cleared(tool, name, args, tables, limits, clock)
        except Error as error:
            return Outcome.failed(shown, error, version)
        return Outcome(True, result, (), version, name)

    def _run_tool(
        self,
        tool: Runnable,
        name: str,
        args: Mapping[str, Any] | None,
        tables: Mapping[str, Any] | None,
        limits: Limits | None,
        clock: Clock | datetime | None,
        now: float,
    ) -> Any:
        """Run a tool found by `_runnable` (what changed in the folder caught up with first) and
        count the use."""
        try:
            return tool.run(args, tables=tables, limits=limits or self.limits, clock=clock)
        finally:
            self._store.count_run(name, now)
            if now >= self._flush_at:
                self._flush_quietly()

    def export(self, format: str) -> exports.Export:  # noqa: A002 - the public parameter name
        """The active tools in `format`, with the tools left out and the adaptations made."""
        exports.check_format(format)
        specs = [
            exports.ToolSpec(r.name, r.description, r.parameters, dict(KINDS[r.kind].annotations))
            for r in self.list(status="active")
            if r.kind in KINDS  # (a record of a kind this toolkiln lacks does not run: a problem once checked)
        ]
        return exports.export(specs, format)

    def definitions(self, format: str) -> builtins.list[dict[str, Any]]:  # noqa: A002
        """The active tools as `format` ("openai", "anthropic", "mcp", "gemini") expects them.
        Tools the format cannot express are left out: `export(format).skipped` says which."""
        return self.export(format).definitions

    def meta_definitions(self, format: str) -> builtins.list[dict[str, Any]]:  # noqa: A002
        """The meta-tools (create_compute_tool, ...) in `format`."""
        return meta.meta_definitions(format)

    def call_meta(self, name: str, args: Any, created_by: Principal | str = "llm") -> dict[str, Any]:
        """Carry out a meta-tool call; never raises on bad input: {"ok": false, "errors": [...]}."""
        return meta.call_meta(self, name, args, created_by)

    # --- internals ------------------------------------------------------------------------------

    def _runnable(self, name: str) -> Runnable:
        """The active tool `name`, as its kind runs it; ToolNotActive and the like. While `run`
        would reuse it (its HotRun: the change counter unmoved, the folder looked at less than
        WATCH_SECONDS ago), that one, without asking the store: `invoke` as fast as `run`."""
        hot = self._hot.get(name)
        if hot is not None and _monotonic() < hot.until and hot.changes == self._counter[0]:  # type: ignore[index]
            return hot.tool  # type: ignore[no-any-return]
        with self._mutex:
            changes = self._store.changes.value()  # before the refresh: a change during it is seen next time
            self._store.drain_usage()  # (at least every 50 ms of runs: the runs not yet drained stay few)
            self._store.refresh()
            record = self._loaded(name)
            kind = kind_of(record.kind)
            if kind.signed:  # its status (and what it reaches) is believed only when signed here
                self._store.vouch(record, "run")
            elif record.pins and not self._store.vouch(record, "run"):
                raise untrusted_pins(record, self._store.location)
            if record.status != "active":
                raise ToolNotActive(
                    f"`{name}` is {record.status.replace('_', ' ')}; only active tools run",
                    hint=ACTIVATE_HINT.get(record.status),
                )
            compiled = self._store.compiled(name)
            context = RunContext(
                self.capabilities, self._note_unsandboxed, self._workflows, self._with_tables, self._secret
            )
            tool = kind.runnable(record, compiled, context)
            if changes is not None and not kind.signed:  # (a signed kind is vouched for at each run)
                fast = tool.runner().run if isinstance(tool, Tool) else tool.run
                until = time.monotonic() + self._hot_seconds
                self._hot[name] = HotRun(changes, until, fast, tool, self._store.tally(name).local)
            return tool

    def _with_tables(self, name: str, tool: Tool) -> Tool:
        """A compute tool with the registry's tables it reads (the caller holds the mutex)."""
        if self._runner.needs_missing_table(name, tool, self._store.tables):
            self._store.rescan_tables()
        return self._runner.tool(name, tool, self._store.tables, self._store.tables_generation)

    def _callee_tool(self, name: str) -> Tool:
        """The tool a `call` step runs: as `run` would find it, its refusal as a RunError."""
        try:
            tool = self._runnable(name)
            self._refuse_held_callee(name)
        except RegistryError as error:
            raise RunError(error.code, error.message, hint=error.hint) from error
        if not isinstance(tool, Tool):  # replaced by a tool of another kind since the caller was checked
            kind = self._loaded(name).kind
            raise RunError(codes.UNKNOWN_TOOL.code, f"`{name}` is a {kind} tool; compute tools cannot call it")
        return tool

    def _pinned_callee_tool(self, name: str, version: int, tool: Tool) -> Tool:
        """The past version `version` of `name` a pinned caller runs (`tool`, compiled with the
        caller): refused while the tool is disabled, with the registry's tables it reads. Kept,
        as `run` keeps a tool, while neither the registry's change counter nor the tables move."""
        hit = self._pinned_hot.get((name, version))
        if hit is not None and hit[0] is tool and hit[1] == self._generation() and _monotonic() < hit[2]:
            if hit[4] is not self.policy:  # (calls that may wait for a person: asked each time, as by name)
                self._refuse_held_callee(name)
            return hit[3]
        generation = self._generation()  # (before the look: a change during it is seen next time)
        record = self._store.records.get(name)
        if record is not None and record.status == "disabled":
            raise RunError(codes.TOOL_NOT_ACTIVE.code, f"`{name}` is disabled; only active tools run")
        self._refuse_held_callee(name)
        with self._mutex:
            runnable = self._with_tables(f"{name}@{version}", tool)
        if generation is not None:
            may_wait = record is None or record.approve_calls or bool(self.policy.call_rules)
            policy = None if may_wait else self.policy  # (its calls never wait under this policy)
            self._pinned_hot[name, version] = (tool, generation, _monotonic() + self._hot_seconds, runnable, policy)
        return runnable

    def _generation(self) -> tuple[int, int] | None:
        """The change counter and the tables' generation (None: a store without a counter)."""
        return None if self._counter is None else (self._counter[0], self._store.tables_generation)

    @contextmanager
    def _writing(self) -> Iterator[None]:
        with self._mutex, self._store.writing():
            yield

    def _pinned(self, definition: Any, callees: Mapping[str, Any]) -> Compiled:
        """A new or changed definition compiled, an executable pinned to its file as it is now.
        A file outside the granted folders is never opened: with no folder granted, an
        executable is R0700 at once; outside the granted ones it is R0605, as a missing file."""
        folders = self.capabilities.executable_folders
        return compile_definition(definition, callees, pin=True, allowed_folders=folders)

    def _secret(self, name: str) -> str | None:
        """A secret's value, for a program tool's run only (never a route, a result or a model)."""
        return self.secret_store().get(name)

    def _note_unsandboxed(self, record: ToolRecord) -> None:
        """An audit line for a run outside the sandbox, written before the run starts."""
        note = 'unsandboxed (sandbox "none", granted to this registry)'
        self._store.append_audit(audit_entry("run", record.created_by, record.name, utc_now(), record, record, note))

    @overload
    def _read_locked(self, name: str) -> ToolRecord: ...
    @overload
    def _read_locked(self, name: str, *, missing_ok: Literal[True]) -> ToolRecord | None: ...
    def _read_locked(self, name: str, *, missing_ok: bool = False) -> ToolRecord | None:
        """The tool's record as it is on disk now (the caller holds the lock)."""
        stored = self._store.stored(name)
        if stored is None:
            if missing_ok:
                return None
            raise self._not_found(name)
        if stored.record is None:
            raise BrokenTool(
                f"the file of `{name}` cannot be loaded",
                hint="fix or delete it; see problems",
                diagnostics=stored.diagnostics,
            )
        return stored.record

    def _loaded(self, name: str) -> ToolRecord:
        record = self._store.records.get(name)
        if record is not None:
            return record
        problem = self._store.problem_of(name)
        if problem is not None:
            raise BrokenTool(
                f"`{name}` cannot be loaded: {problem.message}",
                hint="fix or delete its file",
                diagnostics=list(problem.diagnostics),
            )
        raise self._not_found(name)

    def _not_found(self, name: str) -> ToolNotFound:
        close = difflib.get_close_matches(name, list(self._store.records), n=1)
        hint = f"did you mean `{close[0]}`?" if close else "list the tools to see their names"
        return ToolNotFound(f"no tool named `{name}`", hint=hint)

    def _with_usage(self, record: ToolRecord) -> ToolRecord:
        count, last = self._store.usage_of(record.name)
        if count == record.usage_count and last == record.last_used_at:
            return record
        return record.model_copy(update={"usage_count": count, "last_used_at": last})
