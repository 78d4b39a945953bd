"""Composition: how a registered tool's `call` steps see the other registered tools.

When a tool is compiled, its `call` steps are checked against `Callees`, a view of the loaded
tools by name (any status: a callee must exist and compile). What a compiled caller keeps is a
`RegistryCallee` per callee, which finds the callee again at each call: so a caller runs the
callee's current version, and only while the callee is active; unless the caller is pinned to
another version of it (pins.py, which sees these callees through the caller's pins).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Set
from typing import TYPE_CHECKING, Any, Protocol

from toolkiln.check import ToolSignature
from toolkiln.interpret.runtime import Runtime
from toolkiln.registry.errors import BrokenTool
from toolkiln.registry.models import AuditEntry, ToolRecord
from toolkiln.tool import Tool

if TYPE_CHECKING:
    from toolkiln.registry.kinds import Compiled


class Names(Protocol):
    def __contains__(self, name: object, /) -> bool: ...
    def keys(self) -> Set[str]: ...
    def get(self, name: str, /) -> ToolRecord | None: ...


class CompiledTools(Protocol):
    """Where callees come from (the registry's `Store` is one, `reads.Reads` another): the
    loaded tools' names, and each one's compiled form (BrokenTool when it does not compile)."""

    @property
    def records(self) -> Names: ...

    def compiled(self, name: str) -> Compiled: ...

    # (what a caller's pins read: pins.py)
    def past_version(self, name: str, version: int) -> ToolRecord | None: ...
    def past_verifies(self, name: str, version: int) -> bool: ...
    def audit(self, tool: str | None = None, *, after: int = 0) -> list[AuditEntry]: ...


Resolve = Callable[[str], Tool]  # the runnable active tool of a name, or RunError
# (name, version, that version's tool) -> the tool to run (with its tables), or RunError
ResolvePinned = Callable[[str, int, Tool], Tool]


class RegistryCallee:
    """A callee as a compiled caller holds it: its signature when checked, and a way to find
    its current, active version when called."""

    __slots__ = ("name", "signature", "_resolve")

    def __init__(self, name: str, signature: ToolSignature, resolve: Resolve) -> None:
        self.name = name
        self.signature = signature
        self._resolve = resolve

    def run_call(self, args: dict[str, Any], tables: Mapping[str, Any], caller: Runtime) -> Any:
        return self._resolve(self.name).run_call(args, tables, caller)


class Callees(Mapping[str, RegistryCallee]):
    """The loaded tools that compile, by name, as callees; `overrides` stand in for the stored
    versions of some (the new version of a tool being updated, while its callers are rechecked)."""

    def __init__(
        self,
        mirror: CompiledTools,
        resolve: Resolve,
        overrides: Mapping[str, Compiled] | None = None,
        resolve_pinned: ResolvePinned | None = None,
    ) -> None:
        self.mirror = mirror
        self.resolve = resolve
        self.overrides = dict(overrides or {})
        self.resolve_pinned = resolve_pinned  # (None: a pinned past version runs without the registry's tables)
        # tool -> (its current version, its rollbacks): what pins.py reads of the audit log, again
        # only once the version moves (a rollback makes a new version)
        self.rollbacks: dict[str, tuple[int, tuple[AuditEntry, ...]]] = {}

    def with_overrides(self, overrides: Mapping[str, Compiled]) -> Callees:
        return Callees(self.mirror, self.resolve, {**self.overrides, **overrides}, self.resolve_pinned)

    def __getitem__(self, name: str) -> RegistryCallee:
        compiled = self.overrides.get(name)
        if compiled is None:
            if name not in self.mirror.records:
                raise KeyError(name)
            try:
                compiled = self.mirror.compiled(name)
            except BrokenTool:
                raise KeyError(name) from None
        if compiled.kind.side_effects or compiled.tool is None:
            raise KeyError(name)  # a `call` step is pure computation: workflows have side effects
        return RegistryCallee(name, compiled.tool.signature, self.resolve)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.mirror.records.keys() | self.overrides.keys()))

    def __len__(self) -> int:
        return len(self.mirror.records.keys() | self.overrides.keys())


def calls_of(definition: Mapping[str, Any]) -> frozenset[str]:
    """The tools a stored (canonical JSON) definition's `call` steps name."""
    logic = definition.get("logic")
    steps = logic.get("steps") if isinstance(logic, Mapping) else None
    return frozenset(_calls(steps or ()))


def _calls(steps: Iterable[Any]) -> Iterator[str]:
    stack = [iter(steps)]
    while stack:
        for step in stack[-1]:
            if not isinstance(step, Mapping):
                continue
            if step.get("op") == "call" and isinstance(step.get("tool"), str):
                yield step["tool"]
            elif step.get("op") == "condition":
                for branch in ("then", "else"):
                    if isinstance(step.get(branch), list):
                        stack.append(iter(step[branch]))
                break
        else:
            stack.pop()
