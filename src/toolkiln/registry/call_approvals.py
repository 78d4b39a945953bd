"""Approval of each call, as `Registry` methods: a call that needs a person's approval (the
policy's call rules, or the tool's own `approve_calls`) does not run; `invoke` keeps it as a
pending call and answers an Outcome with the code R0730 and the call's id. A person with the
admin scope approves (the stored arguments run, on the version the call was made to) or
denies it, with a reason; whoever waits gets the outcome.

    outcome = reg.invoke("send_mail", args, principal=model)     # outcome.pending, outcome.call
    reg.decide_call(outcome.call, approve=True, by=admin)          # runs it: the run's Outcome
    reg.wait_for_call(outcome.call)                                # what the caller gets back
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.details import ErrorDetails
from toolkiln.errors import Error, RunError
from toolkiln.registry.call_rules import approval_reason
from toolkiln.registry.errors import (
    CallDenied,
    CallToolChanged,
    InvalidRequest,
    TooManyPendingCalls,
)
from toolkiln.registry.models import ToolRecord, utc_now
from toolkiln.registry.names import check_name
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.pending_calls import CALL_STATUSES, Caller, PendingCall, PendingCalls, new_call_id
from toolkiln.registry.principals import Principal, principal_of
from toolkiln.registry.program_calls import calling_as
from toolkiln.registry.revisions import audit_entry

if TYPE_CHECKING:
    from threading import RLock

    from toolkiln.registry.kinds import Runnable
    from toolkiln.registry.policy import Policy
    from toolkiln.registry.store import Store

WAIT_POLL_SECONDS = 0.2
RUN_GRACE_SECONDS = 300.0  # how long a waiter waits past expiry for an approved call's run


class _Running(Protocol):
    """What the mixin uses of Registry (declared, not stubbed: see applying.py)."""

    policy: Policy
    pending_calls: PendingCalls
    _store: Store
    _mutex: RLock
    _cleared: threading.local  # `.on` while a call checked for approval runs (in this thread)
    _reasons: dict[str, tuple[ToolRecord, tuple[Any, ...], str, str | None]]  # see _approval_needed

    def _runnable(self, name: str) -> Runnable: ...
    def invoke(self, name: str, args: Any, *, principal: Principal | str) -> Outcome: ...
    def _loaded(self, name: str) -> ToolRecord: ...
    def _writing(self) -> AbstractContextManager[None]: ...
    def _read_locked(self, name: str) -> ToolRecord: ...
    def _with_usage(self, record: ToolRecord) -> ToolRecord: ...
    def _run_tool(
        self, tool: Runnable, name: str, args: Any, tables: Any, limits: Any, clock: Any, now: float
    ) -> Any: ...


class CallApprovals:
    def _approval_needed(self: _Running, record: ToolRecord, principal: Principal) -> str | None:
        """Why a call of `record` by `principal` waits for a person: the tool's flag or a rule,
        for the tool or any tool it calls at any depth (None: it runs now). The caller holds
        the mutex."""
        rules, calls = self.policy.call_rules, self._store.calls
        if not calls.get(record.name):  # (the common case: a tool that calls no other)
            if not rules and not record.approve_calls:
                return None
            # Remembered per tool while its record (replaced on every change), the rules and the
            # caller's kind stay the same: the rules cost a call a dictionary look-up.
            known = self._reasons.get(record.name)
            if known is not None and known[0] is record and known[1] is rules and known[2] == principal.kind:
                return known[3]
            reason = approval_reason(rules, record, principal, partial(self._store.compiled, record.name))
            self._reasons[record.name] = (record, rules, principal.kind, reason)
            return reason
        seen, todo = {record.name}, [record]
        while todo:
            current = todo.pop()
            reason = approval_reason(rules, current, principal, partial(self._store.compiled, current.name))
            if reason is not None:
                return reason if current is record else f"`{record.name}` calls `{current.name}`: {reason}"
            for name in sorted(calls.get(current.name, ())):
                callee = self._store.records.get(name)
                if callee is not None and name not in seen:
                    seen.add(name)
                    todo.append(callee)
        return None

    def _hold(
        self: _Running,
        record: ToolRecord,
        args: Mapping[str, Any] | None,
        principal: Principal,
        conversation: str | None,
        reason: str,
    ) -> Outcome:
        """Keep a call for a person's decision: its pending Outcome."""
        if args is not None and not isinstance(args, Mapping):
            raise InvalidRequest(f"the arguments of `{record.name}` must be an object, not {type(args).__name__}")
        now = utc_now()
        # (a new call is where the folder grows: the decided calls past their time go first)
        policy = self.policy
        self.pending_calls.forget(now - timedelta(seconds=policy.call_retention_seconds), policy.max_decided_calls, now)
        who = (principal.kind, principal.name)
        mine = [c for c in self.pending_calls.list("pending", now) if (c.caller.kind, c.caller.name) == who]
        if len(mine) >= self.policy.max_pending_calls:
            raise TooManyPendingCalls(
                f"{principal.described} has {len(mine)} calls waiting for approval already; "
                f"at most {self.policy.max_pending_calls} may wait",
                hint="wait for a person to decide them (or for them to expire), then call again",
            )
        call = PendingCall(
            id=new_call_id(),
            tool=record.name,
            version=record.version,
            arguments=dict(args or {}),
            caller=Caller.of(principal),
            conversation=conversation,
            reason_held=reason,
            created=now,
            expires=now + timedelta(seconds=self.policy.call_expiry_seconds),
        )
        self.pending_calls.add(call)
        return _pending(call)

    def _run_cleared(self: _Running, tool: Runnable, name: str, args: Any, tables: Any, limits: Any, clock: Any) -> Any:
        """Run a call that was checked for approval (or approved): the tools it calls may run."""
        if not self._store.calls.get(name):  # (it calls no other tool: nothing to clear)
            return self._run_tool(tool, name, args, tables, limits, clock, time.monotonic())
        cleared = self._cleared
        before, cleared.on = getattr(cleared, "on", False), True
        try:
            return self._run_tool(tool, name, args, tables, limits, clock, time.monotonic())
        finally:
            cleared.on = before

    def _refuse_held_callee(self: _Running, name: str) -> None:
        """RunError when a tool that might wait for a person's approval is called by another
        outside a checked call (`run`, a check's trial run): a call step is not a way around it."""
        if getattr(self._cleared, "on", False):
            return
        record = self._loaded(name)
        if not record.approve_calls and not self.policy.call_rules:
            return
        if approval_reason(self.policy.call_rules, record, None, partial(self._store.compiled, name)) is not None:
            raise RunError(
                codes.CALL_PENDING.code,
                f"`{name}` may need a person's approval of each call; another tool calls it only within a call "
                "made through Registry.invoke (which holds it for approval when it does)",
                hint="call the outer tool through invoke (the REST API, MCP, an agent loop), not run",
            )

    def calls(self: _Running, status: str | None = "pending") -> list[PendingCall]:
        """The calls kept for approval, oldest first: those of `status` (None: all)."""
        if status is not None and status not in CALL_STATUSES:
            raise InvalidRequest(f"unknown call status {status!r}", hint=f"one of {', '.join(CALL_STATUSES)}")
        return self.pending_calls.list(status, utc_now())

    def call(self: _Running, call_id: str) -> PendingCall:
        """One call kept for approval, as it stands now (CallNotFound)."""
        return self.pending_calls.get(call_id, utc_now())

    def decide_call(
        self: _Running, call_id: str, *, approve: bool, by: Principal | str, reason: str | None = None
    ) -> Outcome:
        """Approve (run the stored arguments, keep the outcome) or deny a pending call, as
        `by`: the approved run's Outcome, a denial's R0731, or why the decision was refused
        (R0733 when another decision came first, R0201 for anyone but an admin person)."""
        try:
            principal = principal_of(by, "by")
            self.policy.check_call_decision(principal, str(call_id)[:40])
            decided = self.pending_calls.decide(
                call_id, "approved" if approve else "denied", Caller.of(principal), reason, utc_now()
            )
        except Error as error:
            return Outcome.failed(str(call_id)[:40], error)
        if not approve:
            return outcome_of(decided)
        outcome = CallApprovals._run_approved(self, decided)
        try:
            return outcome_of(self.pending_calls.finish(decided.id, outcome.reply() | {"version": outcome.version}))
        except Error:  # it ran, and is not run again; only its waiters do not hear how it went
            return replace(outcome, call=decided.id)

    def wait_for_call(self: _Running, call_id: str, timeout: float | None = None) -> Outcome:
        """Wait until a call is decided (and, approved, has run) or expires, at most `timeout`
        seconds (None: until it expires): what the caller that made it gets back."""
        started, deadline = time.monotonic(), timeout
        while True:
            try:
                call = self.pending_calls.get(call_id, utc_now())
            except Error as error:
                return Outcome.failed(str(call_id)[:40], error)
            if deadline is None:  # until it expires, and then as long as an approved run may take
                deadline = max(0.0, (call.expires - utc_now()).total_seconds()) + RUN_GRACE_SECONDS
            if call.status == "denied" or call.outcome is not None or time.monotonic() - started >= deadline:
                return outcome_of(call)
            time.sleep(WAIT_POLL_SECONDS)

    def settled(self: _Running, outcome: Outcome, timeout: float | None = None) -> Outcome:
        """`outcome` itself, or, for a call that waits for a person, what it comes to: the
        approved run's outcome or the denial (`wait_for_call`). What the agent loops and MCP
        hand the model: it pauses until a person decides, then resumes with the outcome."""
        if not outcome.pending or outcome.call is None:
            return outcome
        return CallApprovals.wait_for_call(self, outcome.call, timeout)

    def require_call_approval(
        self: _Running, name: str, required: bool = True, by: Principal | str = "user"
    ) -> ToolRecord:
        """Make every call of `name` wait for a person's approval (or no longer): an admin
        person's decision, never a model's; a new version keeps it."""
        principal = principal_of(by, "by")
        check_name(name)
        principal.require_admin_person(
            f"change whether calls of `{name}` need approval", "only a person with the admin scope can"
        )
        with self._writing():
            old = self._read_locked(name)
            vouched = self._store.vouch(old, "approve")
            record = old.model_copy(update={"approve_calls": bool(required)})
            note = "each call waits for a person's approval" if required else "calls run without approval"
            entry = audit_entry("approve_calls", principal, name, utc_now(), old, record, note)
            self._store.commit(entry, record, self._store.cached_compiled(name, old), vouched)
            return self._with_usage(record)

    def _run_approved(self: _Running, call: PendingCall) -> Outcome:
        """Run an approved call's stored arguments on the version it was made to."""
        version = None
        try:
            with self._mutex:
                tool = self._runnable(call.tool)
                version = self._loaded(call.tool).version
            if version != call.version:
                raise CallToolChanged(
                    f"`{call.tool}` is at version {version}; the call was made to version {call.version}",
                    hint="make the call again",
                )
            with calling_as(call.caller.principal, self.invoke):  # (as the caller who made it)
                result = CallApprovals._run_cleared(self, tool, call.tool, call.arguments, None, None, None)
        except Error as error:
            return Outcome.failed(call.tool, error, version)
        return Outcome(True, result, (), version, call.tool)


def _pending(call: PendingCall) -> Outcome:
    message = f"it waits for a person's approval as call {call.id}, until {call.expires:%Y-%m-%d %H:%M:%S} UTC"
    hint = f"{call.reason_held}; a person approves or denies it (GET /api/v1/calls?status=pending)"
    return Outcome(
        False, None, (ErrorDetails.coded(codes.CALL_PENDING, message, hint),), call.version, call.tool, call.id
    )


def outcome_of(call: PendingCall) -> Outcome:
    """What the caller of a pending call gets: still pending, denied (with the reason) or the
    approved run's outcome."""
    if call.status == "pending":
        return _pending(call)
    if call.status == "denied":
        who = f" by {call.decided_by.described}" if call.decided_by else ""
        error = CallDenied(
            f"`{call.tool}` did not run: denied{who}: {call.reason or 'no reason given'}",
            hint="do without it, or ask the person (a denied call is not run again)",
        )
        return replace(Outcome.failed(call.tool, error, call.version), call=call.id)
    reply = call.outcome
    if reply is None:  # approved, the run not finished (or its process died before it said)
        return _pending(call)
    version = reply.get("version")
    if reply.get("ok"):
        return Outcome(True, reply.get("result"), (), version, call.tool, call.id)
    errors = tuple(_details(error) for error in _dicts(reply.get("errors")))
    return Outcome(False, None, errors, version, call.tool, call.id)


def _dicts(items: Any) -> Iterator[dict[str, Any]]:
    return (item for item in (items if isinstance(items, list) else []) if isinstance(item, dict))


def _details(error: dict[str, Any]) -> ErrorDetails:
    """An error kept in a call's file, as it was (its fix, a suggestion for a source, is left out)."""
    kept = {key: error[key] for key in ErrorDetails._fields if error.get(key) is not None and key != "fix"}
    if isinstance(kept.get("expected"), list):
        kept["expected"] = tuple(kept["expected"])
    return ErrorDetails(**{"code": codes.REGISTRY_ERROR.code, "message": "", **kept})


__all__ = ["CallApprovals", "outcome_of"]
