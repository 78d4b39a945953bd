"""The review's "move callers to this version": every tool pinned to another version of an
active tool moves to its current one (registry/repinning.py), as a person with the admin scope
(a model's or service's session is refused by the registry, R0201). The first caller that does
not check against it stops the rest, and its page says why."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from toolkiln.registry.applying import Repin
from toolkiln.registry.errors import ToolNotActive
from toolkiln.server.problems import failed
from toolkiln.server.services import Reg
from toolkiln.server.web.access import Posted, Viewer

router = APIRouter(include_in_schema=False)


@router.post("/ui/tools/{name}/move-callers")
def move_callers(request: Request, reg: Reg, visitor: Viewer, form: Posted, name: str) -> Response:
    visitor.need(request, "admin")
    record = reg.get(name)
    if record.status != "active":
        raise ToolNotActive(
            f"`{name}` is {record.status.replace('_', ' ')}; callers move only to an active version",
            hint="approve it first",
        )
    for caller, version in reg.pinned_callers(name).items():
        if version != record.version:
            outcome = reg.apply(Repin(caller, {name: record.version}), principal=visitor.principal)
            if not outcome.ok:
                return failed(outcome, request.url.path)  # (a page: see error_pages.py)
    return RedirectResponse(f"/ui/tools/{name}?tab=review&done=repin", status_code=303)
