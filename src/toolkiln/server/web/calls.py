"""The calls that wait for a person's approval, on the web page: a list with, for an admin
person, an Approve button and a Deny form (with a reason) on each pending call. The forms carry
the session's CSRF token; a decision goes through `Registry.decide_call` as the session's
principal, which refuses anyone but an admin person (R0201) and a call decided already (R0733)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from toolkiln.diagnostics import codes
from toolkiln.registry.errors import PermissionDenied
from toolkiln.semantics.values import dumps
from toolkiln.server.problems import ServerProblem, failed
from toolkiln.server.services import Reg, in_run_slot
from toolkiln.server.web.access import Posted, Viewer, Visitor
from toolkiln.server.web.rendering import render

router = APIRouter(include_in_schema=False)
Decision = Literal["approve", "deny"]
Shown = Literal["pending", "approved", "denied", "all"]
MAX_REASON = 500


def may_decide(reg: Reg, visitor: Visitor) -> bool:
    """Whether the page offers the decisions: the registry asks the same when one is posted."""
    if not visitor.may("admin"):
        return False
    try:
        reg.policy.check_call_decision(visitor.principal, "")
    except PermissionDenied:
        return False
    return True


@router.get("/ui/calls")
def list_calls(request: Request, reg: Reg, visitor: Viewer, status: Shown = "pending", done: str = "") -> Response:
    calls = reg.calls(None if status == "all" else status)
    return render(
        request,
        "calls.html",
        visitor,
        calls=calls,
        shown=status,
        arguments={call.id: dumps(call.arguments, indent=2) for call in calls},
        outcomes={call.id: dumps(call.outcome, indent=2) for call in calls if call.outcome is not None},
        decides=may_decide(reg, visitor),
        done={"approved": "Approved: the call ran.", "denied": "Denied."}.get(done, ""),
        max_reason=MAX_REASON,
    )


@router.post("/ui/calls/{call_id}/{decision}")
async def decide(
    request: Request, reg: Reg, visitor: Viewer, form: Posted, call_id: str, decision: Decision
) -> Response:
    visitor.need(request, "admin")
    reason = str(form.get("reason", "")).strip() or None
    if decision == "deny" and (reason is None or len(reason) > MAX_REASON):
        raise ServerProblem(
            422,
            codes.REASON_MISSING,
            f"a denial needs a reason of 1 to {MAX_REASON} characters (field `reason`)",
            hint="say why: the model that made the call reads it",
        )
    principal = visitor.principal
    outcome = await in_run_slot(  # (an approval runs the tool: in a run slot, as an execute)
        request, lambda: reg.decide_call(call_id, approve=decision == "approve", by=principal, reason=reason)
    )
    if outcome.call is None:  # the decision was not taken
        return failed(outcome, request.url.path)  # (a page: see error_pages.py)
    done = "approved" if decision == "approve" else "denied"
    return RedirectResponse(f"/ui/calls?status=all&done={done}#{outcome.call}", status_code=303)
