"""The actions on a tool, each behind a confirmation page: approve, reject (with a reason),
enable, disable, delete, roll back. They act as the session's actor (a person, or a model:
the registry's policy decides what a model may do) and the audit line names the token."""

from __future__ import annotations

from typing import Literal, get_args

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from toolkiln.diagnostics import codes
from toolkiln.registry.errors import InvalidRequest
from toolkiln.registry.principals import Scope
from toolkiln.server.problems import ServerProblem
from toolkiln.server.services import Reg
from toolkiln.server.web.access import Posted, Viewer
from toolkiln.server.web.listing import whole_number
from toolkiln.server.web.rendering import render

router = APIRouter(include_in_schema=False)
Action = Literal["approve", "reject", "enable", "disable", "delete", "rollback"]
ACTIONS: tuple[Action, ...] = get_args(Action)
SCOPE: dict[Action, Scope] = {"approve": "admin", "reject": "admin"}  # the others: write
MAX_REASON = 500


def _scope(action: Action) -> Scope:
    return SCOPE.get(action, "write")


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
        allowed=visitor.may(_scope(action)),
        needed=_scope(action),
        max_reason=MAX_REASON,
    )


@router.post("/ui/tools/{name}/actions/{action}")
def act(request: Request, reg: Reg, visitor: Viewer, form: Posted, name: str, action: Action) -> Response:
    visitor.need(request, _scope(action))
    by = visitor.principal
    if action == "reject":
        reason = str(form.get("reason", "")).strip()
        if not reason or len(reason) > MAX_REASON:
            raise ServerProblem(
                422,
                codes.REASON_MISSING,
                f"a rejection needs a reason of 1 to {MAX_REASON} characters (field `reason`)",
                hint="say what the tool's author should change",
            )
        reg.reject(name, by=by, reason=reason)
    elif action == "rollback":
        version = whole_number(str(form.get("version", "")))
        if version is None:
            raise InvalidRequest(f"a version is a whole number, not {str(form.get('version', ''))[:20]!r}")
        reg.rollback(name, version, by=by)
    elif action == "delete":
        reg.delete(name, by=by)
        return RedirectResponse(f"/ui/tools?deleted={name}", status_code=303)
    else:
        getattr(reg, action)(name, by=by)
    tab = "versions" if action == "rollback" else "audit"
    return RedirectResponse(f"/ui/tools/{name}?tab={tab}&done={action}", status_code=303)
