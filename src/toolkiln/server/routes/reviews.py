"""GET /api/v1/tools/{name}/review: what a person approving a tool is shown (registry/review.py),
for an approver that is not the web page (a chat bot, a CI job): what it reaches, the static
bound of what a run costs, and for a new version what changed against the approved one and the
callers it breaks. Its examples run as a check that saves nothing does: in a check thread,
within the server's check time (R0305 past it)."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter, Request

from toolkiln.registry.json_values import plain_json
from toolkiln.registry.review import review
from toolkiln.server.auth import Reader
from toolkiln.server.check_threads import in_check_thread
from toolkiln.server.responses import ExactJSONResponse
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.schemas import ToolName
from toolkiln.server.services import Reg

router = APIRouter(prefix="/tools", tags=["tools"], responses=PROBLEMS, default_response_class=ExactJSONResponse)


@router.get("/{name}/review", summary="What approving this version means: reach, cost bound, changes, broken callers")
async def review_tool(request: Request, name: ToolName, reg: Reg, _: Reader) -> Any:
    shown = await in_check_thread(request, lambda: review(reg, name, seconds=reg.check_seconds))
    return ExactJSONResponse(plain_json({**dataclasses.asdict(shown), "breaking": shown.breaking}))
