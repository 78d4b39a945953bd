"""Callers pinned to the versions of the tools they call (docs/approval.md, "Pinned callers").

A caller's record keeps, per tool its `call` steps name, the version it was approved with
(`ToolRecord.pins`, signed with the record). When the caller is compiled, `pinned` gives its
`call` steps the callee as before when the pin is the callee's current version, and else that
version's own record compiled (with its own pins) and held by the caller's compiled form: the
resolution is made once per compiled caller, and a call into it only asks whether the tool was
disabled meanwhile. A pin that no longer names what it named is R0770 at the call, never
another version.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol, overload

from toolkiln.check import ToolSignature
from toolkiln.diagnostics import codes
from toolkiln.errors import CompileError, RunError
from toolkiln.interpret.runtime import Runtime
from toolkiln.registry.callees import Callees, RegistryCallee, ResolvePinned, calls_of
from toolkiln.registry.definitions import compile_definition
from toolkiln.registry.errors import BrokenTool, NotTrusted
from toolkiln.registry.models import AuditEntry, Pin, ToolRecord
from toolkiln.semantics.values import to_json
from toolkiln.tool import Tool

APPROVED = ("active", "disabled")  # a version that was in use: a person (or the policy) let it run
_ROLLED_BACK_TO = re.compile(r"to version ([0-9]+)")  # the note of a rollback's audit line


def pin_digest(definition: Mapping[str, Any]) -> str:
    """What a pin names besides the version number: the definition without its description
    (a description-only change keeps the version, and so the pin)."""
    logic = {key: value for key, value in definition.items() if key != "description"}
    return hashlib.sha256(to_json(logic).encode()).hexdigest()


def pin_of(record: ToolRecord) -> Pin:
    return Pin(version=record.version, digest=pin_digest(record.definition))


def names(record: ToolRecord, pins: Mapping[str, Pin]) -> bool:
    """Whether `record` is the version `pins` names."""
    pin = pins.get(record.name)
    return pin is not None and pin.version == record.version and pin.digest == pin_digest(record.definition)


class Versions(Protocol):
    """What finding a tool's approved version reads (the registry's Store is one)."""

    @property
    def records(self) -> Mapping[str, ToolRecord]: ...
    def past_versions(self, name: str) -> list[int]: ...
    def past_version(self, name: str, version: int) -> ToolRecord | None: ...


def approved_version(tools: Versions, name: str) -> ToolRecord | None:
    """The version of `name` a caller approved now is pinned to: its current one when it is
    active or disabled, else its latest version that was (None: never approved)."""
    current = tools.records.get(name)
    if current is None or current.status in APPROVED:
        return current
    for version in reversed(tools.past_versions(name)):
        if version < current.version:
            past = tools.past_version(name, version)
            if past is not None and past.status in APPROVED:
                return past
    return None


def pins_at_approval(tools: Versions, record: ToolRecord) -> dict[str, Pin]:
    """The pins of `record` once a person approves it: those it has for the tools it still
    calls, and one for each other tool it calls that was ever approved."""
    calls = calls_of(record.definition)
    pins = {name: pin for name, pin in record.pins.items() if name in calls}
    for callee in sorted(calls - pins.keys()):
        approved = approved_version(tools, callee)
        if approved is not None:
            pins[callee] = pin_of(approved)
    return pins


def kept_pins(old: ToolRecord, definition: Mapping[str, Any]) -> dict[str, Pin]:
    """The pins a new version of `old` keeps: those of the tools it still calls."""
    calls = calls_of(definition)
    return {name: pin for name, pin in old.pins.items() if name in calls}


def rolled_back(entries: Iterable[AuditEntry], version: int) -> bool:
    """Whether a rollback went from `version` (or later) back to a version before it."""
    for entry in entries:
        if entry.action != "rollback" or entry.old_version is None or entry.old_version < version:
            continue
        target = _ROLLED_BACK_TO.search(entry.note or "")
        if target is not None and int(target.group(1)) < version:
            return True
    return False


class PinnedCallee:
    """A callee as a caller pinned to one of its past versions holds it: that version's
    signature and tool, or the error its calls meet (R0770: the version is gone)."""

    __slots__ = ("name", "signature", "version", "_tool", "_error", "_runnable")

    def __init__(
        self,
        name: str,
        version: int,
        signature: ToolSignature,
        tool: Tool | None,
        error: RunError | None,
        runnable: ResolvePinned | None,
    ) -> None:
        self.name, self.version, self.signature = name, version, signature
        self._tool, self._error, self._runnable = tool, error, runnable

    def run_call(self, args: dict[str, Any], tables: Mapping[str, Any], caller: Runtime) -> Any:
        if self._tool is None:
            raise self._error or pin_gone(self.name, self.version, "cannot be run")
        tool = self._tool if self._runnable is None else self._runnable(self.name, self.version, self._tool)
        return tool.run_call(args, tables, caller)


def untrusted_pins(record: ToolRecord, location: str) -> NotTrusted:
    """A caller whose record has pins but was not written by this registry here (R0710)."""
    return NotTrusted(
        f"`{record.name}` was not written by this registry here (a clone, a copy or a hand edit): the "
        "versions of the tools it calls (its pins) are not believed, so it may not run",
        hint=f"read it, then trust it: toolkiln trust {location} --tool {record.name}",
    )


def pin_gone(name: str, version: int, why: str) -> RunError:
    return RunError(
        codes.PINNED_VERSION_GONE.code,
        f"the caller is pinned to version {version} of `{name}`, which {why}",
        hint="a person moves the caller to a version that runs: toolkiln tools repin CALLER",
    )


class Pinned(Mapping[str, Any]):
    """`callees` as a caller with `pins` sees them (`seen`: the pinned versions being compiled
    around it, so past versions calling each other do not loop)."""

    def __init__(self, callees: Callees, pins: Mapping[str, Pin], seen: frozenset[tuple[str, int]] = frozenset()):
        self.callees, self.pins, self.seen = callees, pins, seen

    def __getitem__(self, name: str) -> RegistryCallee | PinnedCallee:
        current = self.callees[name]  # KeyError when the tool is gone: the caller no longer compiles
        pin = self.pins.get(name)
        if pin is None or name in self.callees.overrides:
            return current
        record = self.callees.mirror.records.get(name)
        if record is not None and names(record, self.pins):
            return current  # found by name at each call, as an unpinned callee
        return self._past(name, pin, current.signature)

    def _past(self, name: str, pin: Pin, signature: ToolSignature) -> PinnedCallee:
        mirror = self.callees.mirror
        past = mirror.past_version(name, pin.version)
        error = None
        if past is None or pin_digest(past.definition) != pin.digest:
            error = pin_gone(name, pin.version, "is gone (deleted, or the tool made again)")
        elif (name, pin.version) in self.seen:
            error = pin_gone(name, pin.version, "calls itself through other pinned versions")
        elif rolled_back(self._rollbacks(name), pin.version):
            error = pin_gone(name, pin.version, "was rolled back")
        elif past.pins and not mirror.past_verifies(name, pin.version):
            error = pin_gone(name, pin.version, "has pins this registry did not write here")
        if error is not None or past is None:
            return PinnedCallee(name, pin.version, signature, None, error, None)
        inner = Pinned(self.callees, past.pins, self.seen | {(name, pin.version)})
        try:
            compiled = compile_definition(past.definition, inner)
        except (CompileError, BrokenTool):
            compiled = None
        if compiled is None or compiled.tool is None or compiled.kind.side_effects:
            error = pin_gone(name, pin.version, "no longer compiles")
            return PinnedCallee(name, pin.version, signature, None, error, None)
        tool = compiled.tool
        return PinnedCallee(name, pin.version, tool.signature, tool, None, self.callees.resolve_pinned)

    def _rollbacks(self, name: str) -> tuple[AuditEntry, ...]:
        """The rollbacks of `name` (since it was last made) in the audit log, read once per
        version of the tool."""
        record = self.callees.mirror.records.get(name)
        version = record.version if record is not None else 0
        known = self.callees.rollbacks.get(name)
        if known is None or known[0] != version:
            entries: list[AuditEntry] = []
            for entry in self.callees.mirror.audit(name):
                if entry.action == "create":
                    entries = []  # (a tool deleted and made again under the name: not its rollbacks)
                elif entry.action == "rollback":
                    entries.append(entry)
            known = self.callees.rollbacks[name] = (version, tuple(entries))
        return known[1]

    def __iter__(self) -> Iterator[str]:
        return iter(self.callees)

    def __len__(self) -> int:
        return len(self.callees)


@overload
def pinned(tools: Mapping[str, Any], pins: Mapping[str, Pin]) -> Mapping[str, Any]: ...
@overload
def pinned(tools: None, pins: Mapping[str, Pin]) -> None: ...
@overload
def pinned(tools: Mapping[str, Any] | None, pins: Mapping[str, Pin]) -> Mapping[str, Any] | None: ...
def pinned(tools: Mapping[str, Any] | None, pins: Mapping[str, Pin]) -> Mapping[str, Any] | None:
    """What the `call` steps of a record with `pins` are compiled against: `tools` as they see them."""
    if pins and isinstance(tools, Callees):
        return Pinned(tools, pins)
    return tools
