"""The registry's one door for changes, as a `Registry` method: `apply(request, principal=...)`
carries out a Create, Update, Rollback, Delete, Lifecycle or Repin request and says how it went as an
`Outcome` (the record written, its version, or the coded, hinted errors), never raising for
the caller's mistake. REST, the web page, MCP and the meta-tools change tools through it;
`create`, `update`, `approve`, ... stay the raising methods for Python users.

    outcome = reg.apply(Create(definition), principal=caller)
    outcome = reg.apply(Lifecycle("shipping_cost", "reject", reason="rates are wrong"), principal=admin)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol, assert_never

from toolkiln.errors import Error
from toolkiln.registry.definitions import apply_changes
from toolkiln.registry.errors import InvalidRequest
from toolkiln.registry.models import ToolRecord
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.principals import Principal
from toolkiln.registry.repairing import with_certain_fixes

Action = Literal["enable", "disable", "approve", "reject", "deploy"]


@dataclass(frozen=True, slots=True)
class Create:
    """A new tool from `definition` (JSON DSL dict or text, text DSL, or a path); `note` is
    kept in the audit entry. `fix`: a compute definition's certain fixes are applied first
    (a model's definition: see registry/repairing.py); the audit note and the Outcome's
    `fixes` name them."""

    definition: Any
    note: str | None = None
    fix: bool = False


@dataclass(frozen=True, slots=True)
class Update:
    """Change `name`: definition fields to new values, or `{"definition": a whole new one}`.
    `fix`: when the change touches the program, the changed definition's certain fixes are
    applied first, as for `Create` (the Outcome's `fixes` name them)."""

    name: str
    changes: Any
    fix: bool = False


@dataclass(frozen=True, slots=True)
class Rollback:
    """Make past version `version` of `name` current again, as a new version."""

    name: str
    version: int


@dataclass(frozen=True, slots=True)
class Delete:
    """Delete `name` and its past versions (`force`: even when other tools call it)."""

    name: str
    force: bool = False


@dataclass(frozen=True, slots=True)
class Lifecycle:
    """Enable, disable, approve, reject (`reason` kept in the audit entry) or deploy `name`."""

    name: str
    action: Action
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Repin:
    """Move the caller `name` to other versions of the tools it calls: each to its approved
    version (`to` None), or the tools `to` names to those versions (registry/repinning.py)."""

    name: str
    to: Mapping[str, int] | None = None


Change = Create | Update | Rollback | Delete | Lifecycle | Repin


class _Changing(Protocol):
    """The raising methods `apply` calls (Registry's), declared here rather than as stubs on
    the mixin: a stub would shadow a method that a base listed after it defines."""

    def create(self, definition: Any, created_by: Principal | str = ..., *, note: str | None = ...) -> ToolRecord: ...
    def update(self, name: str, changes: Any, by: Principal | str = ...) -> ToolRecord: ...
    def get(self, name: str) -> ToolRecord: ...
    def rollback(self, name: str, version: int, by: Principal | str = ...) -> ToolRecord: ...
    def delete(self, name: str, by: Principal | str = ..., *, force: bool = ...) -> None: ...
    def enable(self, name: str, by: Principal | str = ...) -> ToolRecord: ...
    def disable(self, name: str, by: Principal | str = ...) -> ToolRecord: ...
    def approve(self, name: str, by: Principal | str = ...) -> ToolRecord: ...
    def reject(self, name: str, by: Principal | str = ..., *, reason: str | None = ...) -> ToolRecord: ...
    def deploy(self, name: str, by: Principal | str = ...) -> ToolRecord: ...
    def repin(self, name: str, *, to: Mapping[str, int] | None = ..., by: Principal | str = ...) -> ToolRecord: ...


class Applying:
    """Mixed into `Registry`, whose public raising methods it calls."""

    def apply(self: _Changing, request: Change, *, principal: Principal | str) -> Outcome:
        """Carry out `request` for `principal`: ok with the record written (None for a delete)
        and its version, or the errors (each with a code and a hint) that say why not."""
        tool = tool_named(request)
        fixes: tuple[str, ...] = ()
        try:
            if isinstance(request, Create) and request.fix:
                request, fixes = _fixed(request)
            elif isinstance(request, Update) and request.fix:
                request, fixes = _fixed_update(self, request)
            record = _carry_out(self, request, principal)
        except Error as error:  # an update's fixes may quote the stored tool: said only when it is made
            return replace(Outcome.failed(tool, error), fixes=fixes if isinstance(request, Create) else ())
        if record is None:
            return Outcome(True, None, (), None, tool)
        return Outcome(True, record, (), record.version, record.name, fixes=fixes)


def _carry_out(reg: _Changing, request: Change, by: Principal | str) -> ToolRecord | None:
    match request:
        case Create(definition, note):
            return reg.create(definition, created_by=by, note=note)
        case Update(name, changes, _):
            return reg.update(name, changes, by=by)
        case Rollback(name, version):
            return reg.rollback(name, version, by=by)
        case Delete(name, force):
            reg.delete(name, by=by, force=force)
            return None
        case Repin(name, to):
            return reg.repin(name, to=to, by=by)
        case Lifecycle(name, "reject", reason):
            return reg.reject(name, by=by, reason=reason)
        case Lifecycle(name, action):
            acts = {"enable": reg.enable, "disable": reg.disable, "approve": reg.approve, "deploy": reg.deploy}
            act = acts.get(action) if isinstance(action, str) else None
            if act is None:
                hint = "use enable, disable, approve, reject or deploy"
                raise InvalidRequest(f"unknown action {str(action)[:40]!r}", hint)
            return act(name, by=by)
        case _:
            assert_never(request)


def _fixed(request: Create) -> tuple[Create, tuple[str, ...]]:
    """The request with its definition's certain fixes applied, its note naming them."""
    fixed = with_certain_fixes(request.definition)
    if not fixed.applied:
        return request, ()
    note = "; ".join(part for part in (request.note, fixed.summary) if part)
    return Create(fixed.definition, note), fixed.applied


# What an update may change that the fixes look at: the program, not its description.
_PROGRAM_FIELDS = frozenset({"definition", "logic", "parameters", "tables"})


def _fixed_update(reg: _Changing, request: Update) -> tuple[Update, tuple[str, ...]]:
    """The update as a whole definition with its certain fixes applied, when it changes the
    program; as it is otherwise. The fixes are found on the definition the update makes
    (a fix of the logic alone could miss a declared parameter), and `update` checks it again."""
    changes = request.changes
    if isinstance(changes, Mapping) and not _PROGRAM_FIELDS & set(changes):
        return request, ()
    try:
        changed = apply_changes(reg.get(request.name).definition, changes)
    except Error:  # not there, or a bad change: `update` says so
        return request, ()
    fixed = with_certain_fixes(changed)
    if not fixed.applied:
        return request, ()
    return Update(request.name, {"definition": fixed.definition}), fixed.applied


def tool_named(request: Change) -> str:
    """The tool a request is about, as an Outcome names it (a new tool: its definition's name)."""
    if not isinstance(request, Create):
        return request.name if isinstance(request.name, str) else repr(request.name)[:64]
    definition = request.definition
    name = definition.get("name") if isinstance(definition, Mapping) else None
    return name[:64] if isinstance(name, str) else "new tool"
