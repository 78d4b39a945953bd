"""Moving a caller's pins, as a `Registry` method: `repin(name, to=..., by=...)`.

Only a person with the admin scope moves a pin (as only such a person approves): a model or a
service never does, whatever its scope. The caller must check against the versions it moves
to; its examples are not run (a move the review flagged as breaking is the person's choice, and
the caller's examples are then theirs to change). The record keeps its version: pins say what
it runs, not what it is; the audit line `repin` says which pins moved.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from toolkiln.registry.callees import calls_of
from toolkiln.registry.definitions import compile_definition
from toolkiln.registry.errors import InvalidRequest, NotTrusted, ToolNotFound
from toolkiln.registry.models import Pin, ToolRecord, utc_now
from toolkiln.registry.names import check_name
from toolkiln.registry.pins import APPROVED, Versions, approved_version, pin_of, pinned
from toolkiln.registry.principals import Principal, principal_of
from toolkiln.registry.reads import Reads, attempts, kept_changing
from toolkiln.registry.revisions import audit_entry
from toolkiln.registry.store import Store


class Repinning:
    """Mixed into `Registry`, whose attributes these are."""

    _store: Store
    _mutex: threading.RLock
    _reads: Callable[[], Reads]
    _writing: Callable[[], Any]
    _read_locked: Callable[..., ToolRecord]
    _with_usage: Callable[[ToolRecord], ToolRecord]

    def repin(self, name: str, *, to: Mapping[str, int] | None = None, by: Principal | str = "user") -> ToolRecord:
        """Move the caller `name` to other versions of the tools it calls: each one to its
        approved version now (`to` None), or the tools `to` names to those versions. Only a
        person with the admin scope (PermissionDenied, R0201); CompileError when the caller
        would not check against them."""
        principal = principal_of(by, "by")
        check_name(name)
        principal.require_admin_person(
            f"move the pins of `{name}`: only a person with the admin scope can",
            "which versions a caller runs is a person's decision, as approving it is; ask a person",
        )
        for _ in attempts(self._store.lock_timeout):
            with self._mutex:
                self._store.refresh()
                old = self._read_locked(name)
                pins = moved_pins(self._store, old, to)
                reads = self._reads()
            compiled = compile_definition(old.definition, pinned(reads.callees, pins))
            now = utc_now()
            record = old.model_copy(update={"pins": pins, "updated_at": now})
            with self._writing():
                if self._read_locked(name) != old or not reads.still_hold():
                    continue  # changed while it was checked: check again
                # (asked holding the lock: another process writes a record, then its signature)
                if not self._store.vouch(old, "repin"):
                    raise _untrusted(old, self._store.location)
                entry = audit_entry("repin", principal, name, now, old, record, moves(old.pins, pins))
                self._store.commit(entry, record, compiled, True)
                return self._with_usage(record)
        raise kept_changing()

    def pinned_callers(self, name: str) -> dict[str, int]:
        """The tools that call `name` directly and are pinned to a version of it: caller -> that
        version (the review shows which would move to a new one)."""
        with self._mutex:
            self._store.refresh()
            records = [self._store.records.get(caller) for caller in self._store.callers(name)]
        return {r.name: r.pins[name].version for r in records if r is not None and name in r.pins}


def moved_pins(tools: Versions, caller: ToolRecord, to: Mapping[str, int] | None) -> dict[str, Pin]:
    calls = calls_of(caller.definition)
    if to is None:
        approved = {callee: approved_version(tools, callee) for callee in sorted(calls)}
        return {callee: pin_of(record) for callee, record in approved.items() if record is not None}
    pins = {callee: pin for callee, pin in caller.pins.items() if callee in calls}
    for callee, version in to.items():
        if callee not in calls:
            raise InvalidRequest(
                f"`{caller.name}` does not call `{callee}`",
                hint=f"it calls: {', '.join(sorted(calls)) or 'no tool'}",
            )
        pins[callee] = pin_of(_approved(tools, callee, version))
    return pins


def _approved(tools: Versions, name: str, version: int) -> ToolRecord:
    """Version `version` of `name`, which must have been approved (active or disabled)."""
    if isinstance(version, bool) or not isinstance(version, int):
        raise InvalidRequest(f"a version is a whole number, not {version!r}")
    current = tools.records.get(name)
    if current is None:
        raise ToolNotFound(f"no tool named `{name}`")
    found = current if version == current.version else tools.past_version(name, version)
    if found is None or version > current.version:
        raise ToolNotFound(f"`{name}` has no version {version}", hint=f"its versions are 1 to {current.version}")
    if found.status not in APPROVED:
        raise InvalidRequest(
            f"version {version} of `{name}` was never approved ({found.status.replace('_', ' ')})",
            hint="approve it first, or choose a version that was active (see its history)",
        )
    return found


def moves(before: Mapping[str, Pin], after: Mapping[str, Pin]) -> str:
    """The audit note of a repin: `shipping_cost 1 -> 2`, one per pin that moved."""

    def shown(pin: Pin | None) -> str:
        return "unpinned" if pin is None else str(pin.version)

    names = sorted(before.keys() | after.keys())
    moved = [f"{n} {shown(before.get(n))} -> {shown(after.get(n))}" for n in names if before.get(n) != after.get(n)]
    return "; ".join(moved) or "no pin moved"


def _untrusted(record: ToolRecord, location: str) -> NotTrusted:
    return NotTrusted(
        f"`{record.name}` was not written by this registry here (a clone, a copy or a hand edit): "
        "its pins are not moved",
        hint=f"read it, then trust it: toolkiln trust {location} --tool {record.name}",
    )
