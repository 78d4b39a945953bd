"""The lifecycle of a tool and the policy that decides statuses and permissions.

    create ──> active <──enable── disabled
      │          └──────disable──────^
      └──> pending_approval ──approve──> active
                  └─────────reject───> rejected

`TRANSITIONS` is the whole state machine of explicit actions. Creating and changing a tool
are decided by a `Policy`: what status a new tool starts in, what status a changed one goes
to, and who may do what. A policy is a plain frozen value; pass your own to `Registry`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from toolkiln.registry.call_rules import CallRule
from toolkiln.registry.errors import InvalidTransition, PermissionDenied
from toolkiln.registry.kinds import kind_of
from toolkiln.registry.models import Actor, Status, ToolRecord
from toolkiln.registry.principals import Principal

Transition = Literal["enable", "disable", "approve", "reject"]

TRANSITIONS: dict[tuple[Status, Transition], Status] = {
    ("active", "disable"): "disabled",
    ("disabled", "enable"): "active",
    ("pending_approval", "approve"): "active",
    ("pending_approval", "reject"): "rejected",
}

_WHAT_NEXT: dict[Status, str] = {
    "active": "an active tool can be disabled, updated or deleted",
    "disabled": "a disabled tool can be enabled, updated or deleted",
    "pending_approval": "a tool waiting for approval can be approved or rejected (by a person), updated or deleted",
    "rejected": "a rejected tool can be updated (it is then reviewed again) or deleted",
}


def transition(record: ToolRecord, action: Transition) -> Status:
    """The status `action` leads to from the record's status; InvalidTransition if none."""
    target = TRANSITIONS.get((record.status, action))
    if target is None:
        raise InvalidTransition(
            f"cannot {action} `{record.name}`: it is {record.status.replace('_', ' ')}", hint=_WHAT_NEXT[record.status]
        )
    return target


def next_actions(status: Status) -> list[str]:
    """The explicit actions allowed from `status` (besides update and delete)."""
    return [action for (source, action) in TRANSITIONS if source == status]


@dataclass(frozen=True)
class Policy:
    """Decides the status of new and changed tools, and who may do what.

    - A tool a person (`"user"`) or a service (`"service"`, an operator's automation such as
      a CI job) creates is active.
    - A tool a model (`"llm"`) creates is active when it is a pure compute tool of a risk level
      not in `llm_approval_risks`; otherwise (side effects, which later kinds have, or high
      risk) it waits in pending_approval: a model's workflow, script and executable tools
      always wait.
    - Every new version of a tool of `reapproval_kinds` (executables: a new version may pin a
      new file) waits for a person's approval, whoever made it.
    - Only a person approves or rejects.
    - A call matched by one of `call_rules` (or of a tool whose record asks for it) waits for a
      person's approval, for at most `call_expiry_seconds`; only a person with the admin scope
      approves or denies it. A decided (or expired) call is kept for its caller for
      `call_retention_seconds`, and at most `max_decided_calls` of them are kept (the newest).
    - When `protect_user_tools` is on, a model may not update, roll back, enable, disable or
      delete a tool a person or a service created.
    """

    llm_approval_risks: frozenset[str] = frozenset({"high"})
    # None: as each kind's class says (kinds/: `side_effects`, `reapproval`).
    side_effect_kinds: frozenset[str] | None = None
    reapproval_kinds: frozenset[str] | None = None
    protect_user_tools: bool = True
    # Calls that wait for a person's approval (call_rules.py): none by default.
    call_rules: tuple[CallRule, ...] = ()
    call_expiry_seconds: float = 3600.0  # a call nobody decided within this is denied "expired"
    max_pending_calls: int = 100  # per caller (kind and name): more are refused (R0735)
    call_retention_seconds: float = 7 * 24 * 3600.0
    max_decided_calls: int = 1000

    def initial_status(self, created_by: Actor, kind: str, risk_level: str) -> Status:
        if created_by != "llm":
            return "active"
        side_effects = kind_of(kind).side_effects if self.side_effect_kinds is None else kind in self.side_effect_kinds
        if side_effects or risk_level in self.llm_approval_risks:
            return "pending_approval"
        return "active"

    def status_after_change(self, record: ToolRecord, by: Actor, kind: str, risk_level: str) -> Status:
        """The status of a tool after a new version (update or rollback) by `by`.

        A version that would need approval waits for it. A person's new version of a pending or
        rejected tool is taken as approved; a model's is reviewed again. Otherwise an active tool
        stays active and a disabled one disabled."""
        reapproval = kind_of(kind).reapproval if self.reapproval_kinds is None else kind in self.reapproval_kinds
        if reapproval:
            return "pending_approval"
        needed = self.initial_status(by, kind, risk_level)
        if needed == "pending_approval":
            return "pending_approval"
        if record.status in ("pending_approval", "rejected"):
            return "pending_approval" if by == "llm" else needed
        return record.status

    def check(self, action: str, by: Actor, record: ToolRecord) -> None:
        """PermissionDenied unless `by` may do `action` to `record`."""
        if action in ("approve", "reject") and by != "user":
            raise PermissionDenied(
                f"only a person can {action} `{record.name}`",
                hint="approval is the human check on tools a model created; ask the user",
            )
        if self.protect_user_tools and by == "llm" and record.created_by != "llm":
            who = "a person" if record.created_by == "user" else "a service"
            raise PermissionDenied(
                f"a model cannot {action} `{record.name}`: it was created by {who}",
                hint="ask the user to do it, or create a tool of your own under another name",
            )

    def check_call_decision(self, principal: Principal, call_id: str) -> None:
        """PermissionDenied unless `principal` may approve or deny a pending call."""
        if not (principal.kind == "person" and principal.allows("admin")):
            raise PermissionDenied(
                f"{principal.described} cannot decide call {call_id}: only a person with the admin scope can",
                hint="approving a call is the human check on what a tool does; ask a person",
            )


DEFAULT_POLICY = Policy()
