"""What a change writes: a tool's first record, the record of its next version, and the audit
line (when, who, what, and the version and status before and after)."""

from __future__ import annotations

from datetime import datetime

from toolkiln.registry.definitions import Compiled
from toolkiln.registry.models import Action, Actor, AuditEntry, Deployment, Status, ToolRecord
from toolkiln.registry.pins import kept_pins
from toolkiln.registry.policy import Policy
from toolkiln.registry.principals import Principal


def first_version(
    compiled: Compiled, status: Status, actor: Actor, now: datetime, deployment: Deployment | None
) -> ToolRecord:
    return ToolRecord(
        name=compiled.name,
        description=compiled.description,
        kind=compiled.kind.name,
        parameters=compiled.parameters,
        risk_level=compiled.risk_level,
        status=status,
        created_by=actor,
        created_at=now,
        updated_at=now,
        version=1,
        definition=compiled.definition,
        deployment=deployment,
    )


def next_version(policy: Policy, old: ToolRecord, compiled: Compiled, actor: Actor, now: datetime) -> ToolRecord:
    """The record of the version after `old` (the policy may send it back to approval)."""
    status = policy.status_after_change(old, actor, compiled.kind.name, compiled.risk_level)
    return old.model_copy(
        update={
            "description": compiled.description,
            "parameters": compiled.parameters,
            "risk_level": compiled.risk_level,
            "status": status,
            "updated_at": now,
            "version": old.version + 1,
            "definition": compiled.definition,
            "pins": kept_pins(old, compiled.definition),  # (moved only by a person: pins.py)
        }
    )


def audit_entry(
    action: Action,
    by: Principal | Actor,
    tool: str,
    at: datetime,
    old: ToolRecord | None = None,
    new: ToolRecord | None = None,
    note: str | None = None,
) -> AuditEntry:
    """The audit line of every change (and of an unsandboxed run, and a trust): who (`by`: a
    principal, or the actor a record names), what, and the version and status before and after."""
    principal = by if isinstance(by, Principal) else None
    return AuditEntry(
        at=at,
        by=principal.actor if principal is not None else by,
        via=principal.via if principal is not None else None,
        action=action,
        tool=tool,
        old_version=old.version if old else None,
        new_version=new.version if new else None,
        old_status=old.status if old else None,
        new_status=new.status if new else None,
        note=note,
    )
