"""What a person approving a tool is shown: what it can reach, what a run can cost (a compute
tool's static bound), and for a new version what changed against the last approved one (its
parameters and result, the approved version's examples that now give other results) and
whether it breaks the tools that call it (their own examples, run against it).

Nothing here changes the registry: definitions are compiled and examples run as a check that
saves nothing does (see checking.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from toolkiln.ast.types import fits
from toolkiln.check.cost import NoBound, cost_bound
from toolkiln.errors import CompileError, RunError
from toolkiln.registry.budget import finish_within, too_slow
from toolkiln.registry.callees import calls_of
from toolkiln.registry.definitions import compile_definition
from toolkiln.registry.equality import same_data
from toolkiln.registry.errors import BrokenTool, RegistryError
from toolkiln.registry.examples import run_examples, within_budget
from toolkiln.registry.kinds import kind_of
from toolkiln.registry.models import ToolRecord
from toolkiln.registry.pins import APPROVED
from toolkiln.registry.reads import Reads
from toolkiln.registry.registry import Registry
from toolkiln.semantics.dates import clock_at
from toolkiln.semantics.values import to_json
from toolkiln.tool import Tool

Budget = tuple[float, float] | None  # (seconds, deadline) for all the runs together


@dataclass(frozen=True)
class Reach:
    """What a run can touch beyond its arguments."""

    network: bool = False
    files: str = "none"
    secrets: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    n8n: bool = False
    secrets_not_set: tuple[str, ...] = ()  # of `secrets`: a run is refused (R0742) until they are


@dataclass(frozen=True)
class ParameterChange:
    name: str
    change: str  # added, removed, narrowed, widened, changed, now required, now optional
    old: str | None = None
    new: str | None = None


@dataclass(frozen=True)
class ExampleChange:
    """An example of the approved version whose result the new version changes."""

    args: str
    approved: str
    now: str


@dataclass(frozen=True)
class BrokenCaller:
    caller: str
    problem: str


@dataclass(frozen=True)
class PinnedCaller:
    caller: str
    version: int  # the version of the reviewed tool it runs


@dataclass(frozen=True)
class Review:
    name: str
    version: int
    reach: Reach
    cost: str | None = None
    cost_note: str | None = None
    approved: int | None = None  # the version compared against
    parameters: list[ParameterChange] = field(default_factory=list)
    result: tuple[str, str] | None = None  # (approved, new) when the result type changed
    examples: list[ExampleChange] = field(default_factory=list)
    broken_callers: list[BrokenCaller] = field(default_factory=list)
    # Every tool that calls it, directly or not, callees first: once this version is approved
    # the runs of those not pinned to a version of it run it.
    callers: list[str] = field(default_factory=list)
    # The tools that call it pinned to a version of it (pins.py): they stay there until a
    # person moves them (to this version: `version`, once it is approved).
    pinned: list[PinnedCaller] = field(default_factory=list)

    @property
    def breaking(self) -> bool:
        return bool(self.broken_callers)


def review(reg: Registry, name: str, *, seconds: float | None = None) -> Review:
    """The review of `name`'s current version (a tool waiting for approval, usually). With
    `seconds`, it runs as a check that saves nothing does: in a thread of its own, the
    examples within that total (CheckTooSlow past it)."""
    if seconds is None:
        return _review(reg, name, None)
    budget = seconds
    return finish_within(seconds, reg._check_slots, lambda until: _review(reg, name, (budget, until)))


def _review(reg: Registry, name: str, budget: Budget) -> Review:
    history = reg.history(name)
    record = history[-1]
    reads = reg._reads()
    reach = _with_unset_secrets(reg, reach_of(record))
    new = _compiled_tool(record, reads)
    cost, note = _cost(record, new, reads)
    approved = next((past for past in reversed(history[:-1]) if past.status in APPROVED), None)
    callers = [caller for caller, _ in reads.callers_of(name)[1]]
    pinned = [PinnedCaller(caller, version) for caller, version in sorted(reg.pinned_callers(name).items())]
    if approved is None:
        return Review(name, record.version, reach, cost, note, callers=callers, pinned=pinned)
    old = _compiled_tool(approved, reads)
    return Review(
        name,
        record.version,
        reach,
        cost,
        note,
        approved.version,
        parameter_changes(approved, record, old, new),
        _result_change(old, new),
        changed_examples(reg, approved, new, budget),
        broken_callers(reg, reads, name, new, budget),
        callers,
        pinned,
    )


def reach_of(record: ToolRecord) -> Reach:
    """From the definition's own requests (what the kinds store): a program's sandbox,
    network and file; a compute tool's calls; a deploying kind's n8n."""
    definition = record.definition
    secrets = definition.get("secrets")
    named = tuple(str(s) for s in secrets) if isinstance(secrets, list) else ()
    kind = kind_of(record.kind)
    if kind.has_examples or kind.deploys:  # it computes, or n8n runs it: no process of its own
        return Reach(False, "none", named, tuple(sorted(calls_of(definition))), kind.deploys)
    unsandboxed = definition.get("sandbox") == "none"
    files = "the host's files (no sandbox)" if unsandboxed else "its own /tmp inside the sandbox"
    if definition.get("path"):
        files += f"; runs the file {definition['path']}"
    return Reach(definition.get("network") is True, files, named)


def _with_unset_secrets(reg: Registry, reach: Reach) -> Reach:
    """`reach` with the declared secrets the registry has no value for (names only)."""
    if not reach.secrets:
        return reach
    try:
        is_set = {info.name for info in reg.secret_store().names()}
    except RegistryError:  # (a registry in a database keeps no secrets yet; an unreadable file)
        is_set = set()
    return replace(reach, secrets_not_set=tuple(name for name in reach.secrets if name not in is_set))


def _compiled_tool(record: ToolRecord, reads: Reads) -> Tool | None:
    """A compute version's tool, compiled against today's registry (None: another kind, or a
    version that no longer compiles)."""
    if not kind_of(record.kind).has_examples:
        return None
    try:
        return compile_definition(record.definition, reads.callees).tool
    except (CompileError, BrokenTool):
        return None


def _cost(record: ToolRecord, tool: Tool | None, reads: Reads) -> tuple[str | None, str | None]:
    if tool is None:
        computes = kind_of(record.kind).has_examples
        return None, "it does not compile against today's registry" if computes else None

    def callee(name: str) -> Tool | None:
        try:
            return reads.compiled(name).tool
        except BrokenTool:
            return None

    try:
        return str(cost_bound(tool.program, tool.checked, callees=callee)), None
    except NoBound as error:
        return None, str(error)


def parameter_changes(
    old: ToolRecord, new: ToolRecord, old_tool: Tool | None, new_tool: Tool | None
) -> list[ParameterChange]:
    before, after = _properties(old), _properties(new)
    old_types = {p.name: p.type for p in old_tool.checked.parameters} if old_tool else {}
    new_types = {p.name: p.type for p in new_tool.checked.parameters} if new_tool else {}
    changes = [ParameterChange(p, "added", None, _words(after[p])) for p in after if p not in before]
    changes += [ParameterChange(p, "removed", _words(before[p]), None) for p in before if p not in after]
    for p in (p for p in after if p in before):
        was, now = _words(before[p]), _words(after[p])
        if was != now:
            a, b = old_types.get(p), new_types.get(p)
            widened = a is not None and b is not None and fits(a, b)
            narrowed = a is not None and b is not None and fits(b, a)
            verdict = "widened" if widened and not narrowed else "narrowed" if narrowed and not widened else "changed"
            changes.append(ParameterChange(p, verdict, was, now))
        required = (p in _required(old), p in _required(new))
        if required[0] != required[1]:
            changes.append(ParameterChange(p, "now required" if required[1] else "now optional", was, now))
    return changes


def _properties(record: ToolRecord) -> dict[str, Any]:
    properties = record.parameters.get("properties")
    return properties if isinstance(properties, dict) else {}


def _required(record: ToolRecord) -> set[str]:
    required = record.parameters.get("required")
    return set(required) if isinstance(required, list) else set()


def _words(spec: Any) -> str:
    shown = dict(spec) if isinstance(spec, dict) else {"type": spec}
    shown.pop("description", None)
    return to_json(shown)


def _result_change(old: Tool | None, new: Tool | None) -> tuple[str, str] | None:
    if old is None or new is None or old.result_type == new.result_type:
        return None
    return old.result_type, new.result_type


def changed_examples(reg: Registry, approved: ToolRecord, new: Tool | None, budget: Budget) -> list[ExampleChange]:
    """The approved version's examples whose result the new version changes (or fails)."""
    examples = approved.definition.get("examples") or []
    if new is None or not isinstance(examples, list):
        return []
    changes = []
    for example in examples:
        args, expected = example.get("args"), example.get("expect")
        clock = clock_at(example["now"]) if "now" in example else None
        try:
            result = new.run(args, tables=reg.tables, limits=within_budget(reg.limits, budget), clock=clock)
        except RunError as error:
            if budget is not None and time.monotonic() >= budget[1]:
                raise too_slow(budget[0]) from None
            changes.append(ExampleChange(to_json(args), to_json(expected), f"fails: [{error.code}] {error.message}"))
            continue
        if not same_data(result, expected):
            changes.append(ExampleChange(to_json(args), to_json(expected), to_json(result, exact=True)))
    return changes


class _WithNewVersions(Mapping[str, Any]):
    """The registry's callees, with some standing in as new versions (Tools: a `call` step
    runs them directly)."""

    def __init__(self, base: Mapping[str, Any], new: Mapping[str, Tool]) -> None:
        self.base, self.new = base, new

    def __getitem__(self, name: str) -> Any:
        return self.new[name] if name in self.new else self.base[name]

    def __iter__(self) -> Iterator[str]:
        return iter(set(self.base) | set(self.new))

    def __len__(self) -> int:
        return len(set(self.base) | set(self.new))


def broken_callers(reg: Registry, reads: Reads, name: str, new: Tool | None, budget: Budget) -> list[BrokenCaller]:
    """The tools that call `name` (directly or not) that would no longer check, or whose own
    examples would fail, against its new version."""
    _, callers = reads.callers_of(name)
    if new is None or not callers:
        return []
    versions: dict[str, Tool] = {name: new}
    broken = []
    for caller, record in callers:
        try:
            compiled = compile_definition(record.definition, _WithNewVersions(reads.callees, versions))
        except CompileError as error:
            broken.append(BrokenCaller(caller, error.diagnostics[0].message if error.diagnostics else str(error)))
            continue
        if compiled.tool is None:
            continue
        versions[caller] = compiled.tool
        examples = compiled.examples or []
        failing = run_examples(compiled.tool, examples, tables=reg.tables, limits=reg.limits, budget=budget)
        if failing:
            broken.append(BrokenCaller(caller, failing[0].message))
    return broken
