"""/api/v1/calls: the calls that wait for a person's approval, and their decisions.

    GET  /api/v1/calls?status=pending          the calls of a status (pending, approved, denied, all)
    GET  /api/v1/calls/{id}                     one call, its decision and an approved call's outcome
    POST /api/v1/calls/{id}/approve             run it with the stored arguments (admin person)
    POST /api/v1/calls/{id}/deny  {"reason"}    never run it (admin person)
    PUT  /api/v1/tools/{name}/call-approval     {"required": true}: each call of a tool waits

Reading needs the read scope; deciding the admin scope and a person (the registry's policy
refuses a model or a service whatever its scope: R0201). A decision that was not taken (not
found, decided first by another, not allowed) is problem details; a decision taken answers
200 with the call and the outcome the caller gets (a denied call's is R0731, as data).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam
from pydantic import Field

from toolkiln.registry.outcome import Outcome
from toolkiln.server.auth import Admin, Reader
from toolkiln.server.problems import failed
from toolkiln.server.responses import ExactJSONResponse
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.schemas import Body, ToolName
from toolkiln.server.services import Reg, in_run_slot

router = APIRouter(tags=["calls"], responses=PROBLEMS, default_response_class=ExactJSONResponse)

CallId = Annotated[str, PathParam(description="a call's id", max_length=40, examples=["c0123456789abcdef01234567"])]
Status = Annotated[
    Literal["pending", "approved", "denied", "all"], Query(description="the calls of this status, or all")
]


class Decision(Body):
    reason: str | None = Field(None, max_length=2000, description="why (kept with the call; a model reads it)")


class CallApproval(Body):
    required: bool = Field(description="whether each call of the tool waits for a person's approval")


@router.get("/calls", summary="List the calls kept for approval (oldest first)")
def list_calls(reg: Reg, _: Reader, status: Status = "pending") -> Any:
    calls = reg.calls(None if status == "all" else status)
    return ExactJSONResponse([call.to_dict() for call in calls])


@router.get("/calls/{call_id}", summary="One call kept for approval: its decision and outcome")
def show_call(call_id: CallId, reg: Reg, _: Reader) -> Any:
    return ExactJSONResponse(reg.call(call_id).to_dict())  # R0732 (404): no such call


@router.post("/calls/{call_id}/approve", summary="Approve a pending call: it runs with its stored arguments")
async def approve_call(request: Request, call_id: CallId, reg: Reg, caller: Admin, body: Decision | None = None) -> Any:
    return await _decide(request, reg, call_id, caller.acting_as(), approve=True, reason=body.reason if body else None)


@router.post("/calls/{call_id}/deny", summary="Deny a pending call, with a reason: it never runs")
async def deny_call(request: Request, call_id: CallId, reg: Reg, caller: Admin, body: Decision | None = None) -> Any:
    return await _decide(request, reg, call_id, caller.acting_as(), approve=False, reason=body.reason if body else None)


@router.put("/tools/{name}/call-approval", summary="Make each call of a tool wait for a person's approval, or not")
def set_call_approval(name: ToolName, body: CallApproval, reg: Reg, caller: Admin) -> Any:
    record = reg.require_call_approval(name, body.required, by=caller.acting_as())  # R0201 unless a person
    return ExactJSONResponse({"tool": record.name, "version": record.version, "approve_calls": record.approve_calls})


async def _decide(
    request: Request, reg: Any, call_id: str, principal: Any, *, approve: bool, reason: str | None
) -> Any:
    outcome: Outcome = await in_run_slot(  # (an approval runs the tool: in a run slot, as an execute)
        request, lambda: reg.decide_call(call_id, approve=approve, by=principal, reason=reason)
    )
    if outcome.call is None:  # the decision was not taken
        return failed(outcome, request.url.path)
    return ExactJSONResponse({"call": reg.call(outcome.call).to_dict(), "outcome": outcome.reply()})


def pending_answer(outcome: Outcome) -> ExactJSONResponse:
    """An execute whose call waits for a person: 202, the call's id and where to follow it."""
    return ExactJSONResponse(
        {
            "tool": outcome.tool,
            "version": outcome.version,
            "status": "pending",
            "call": outcome.call,
            "message": outcome.message,
            "errors": outcome.error_dicts,
        },
        status_code=202,
        headers={"Location": f"/api/v1/calls/{outcome.call}"},
    )
