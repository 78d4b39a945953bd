"""The actions on a tool, each behind a confirmation page: approve, reject (with a reason),
enable, disable, delete, roll back. They act as the session's actor (a person, or a model:
the registry's policy decides what a model may do) and the audit line names the token."""

from __future__ import annotations

from typing import Literal, get_args

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from toolkiln.diagnostics import codes
from toolkiln.registry.applying import Change, Delete, Lifecycle, Rollback
from toolkiln.registry.errors import InvalidRequest, PermissionDenied
from toolkiln.registry.models import ToolRecord
from toolkiln.registry.policy import Policy
from toolkiln.registry.principals import Scope
from toolkiln.server.problems import ServerProblem, failed
from toolkiln.server.services import Reg
from toolkiln.server.web.access import Posted, Viewer, Visitor
from toolkiln.server.web.listing import whole_number
from toolkiln.server.web.rendering import render

router = APIRouter(include_in_schema=False)
Action = Literal["approve", "reject", "enable", "disable", "delete", "rollback"]
ACTIONS: tuple[Action, ...] = get_args(Action)
SCOPE: dict[str, Scope] = {"approve": "admin", "reject": "admin"}  # the others (and "update"): write
MAX_REASON = 500


def _scope(action: str) -> Scope:
    return SCOPE.get(action, "write")


def refusal(visitor: Visitor, policy: Policy, action: str, record: ToolRecord) -> str | None:
    """Why `visitor` may not `action` `record` ("update": edit it), None when they may: the
    token's scope first, then who acts (a model never approves, nor changes a person's tool).
    The page offers only what this allows; the registry checks again when it is done."""
    needed = _scope(action)
    if not visitor.may(needed):
        return f"This needs a token of scope {needed}; you signed in with {visitor.token.scope}."
    try:
        policy.check(action, visitor.principal.actor, record)
    except PermissionDenied as error:
        return f"As {visitor.principal.kind} you cannot do this: {error.message}."
    return None


def offered(visitor: Visitor, policy: Policy, actions: list[str], record: ToolRecord) -> list[str]:
    return [action for action in actions if refusal(visitor, policy, action, record) is None]


@router.get("/ui/tools/{name}/confirm/{action}")
def confirm(request: Request, reg: Reg, visitor: Viewer, name: str, action: Action, version: int = 0) -> Response:
    record = reg.get(name)
    return render(
        request,
        "confirm.html",
        visitor,
        record=record,
        action=action,
        version=version,
        refused=refusal(visitor, reg.policy, action, record),
        max_reason=MAX_REASON,
    )


@router.post("/ui/tools/{name}/actions/{action}")
def act(request: Request, reg: Reg, visitor: Viewer, form: Posted, name: str, action: Action) -> Response:
    visitor.need(request, _scope(action))
    outcome = reg.apply(_request(name, action, form), principal=visitor.principal)
    if not outcome.ok:
        return failed(outcome, request.url.path)  # (a page: see error_pages.py)
    if action == "delete":
        return RedirectResponse(f"/ui/tools?deleted={name}", status_code=303)
    tab = "versions" if action == "rollback" else "audit"
    return RedirectResponse(f"/ui/tools/{name}?tab={tab}&done={action}", status_code=303)


def _request(name: str, action: Action, form: Posted) -> Change:
    """The registry's request for a confirmed action; a reason or version the form lacks is
    refused here, before the registry is asked."""
    if action == "reject":
        reason = str(form.get("reason", "")).strip()
        if not reason or len(reason) > MAX_REASON:
            raise ServerProblem(
                422,
                codes.REASON_MISSING,
                f"a rejection needs a reason of 1 to {MAX_REASON} characters (field `reason`)",
                hint="say what the tool's author should change",
            )
        return Lifecycle(name, "reject", reason=reason)
    if action == "rollback":
        version = whole_number(str(form.get("version", "")))
        if version is None:
            raise InvalidRequest(f"a version is a whole number, not {str(form.get('version', ''))[:20]!r}")
        return Rollback(name, version)
    if action == "delete":
        return Delete(name)
    return Lifecycle(name, action)
