"""POST /api/v1/check: the diagnostics of a compute tool or a workflow, for CI and editors."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request

from toolkiln import workflow as workflow_language  # (its compiler loads on first use)
from toolkiln.backends.n8n.document import looks_like_n8n
from toolkiln.registry.registry import Registry
from toolkiln.server.auth import Reader
from toolkiln.server.check_threads import in_check_thread
from toolkiln.server.responses import ExactJSONResponse
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.routes.runs import validate_with, validation
from toolkiln.server.schemas import CheckSource, Validation
from toolkiln.server.services import Reg

router = APIRouter(tags=["check"], responses=PROBLEMS, default_response_class=ExactJSONResponse)
_WORKFLOW_TEXT = re.compile(r"\A\s*(?:#[^\n]*\n\s*)*workflow\b")  # comments, then `workflow NAME`


def is_workflow(source: Any) -> bool:
    if isinstance(source, dict):
        return looks_like_n8n(source)
    return bool(_WORKFLOW_TEXT.match(source))


@router.post("/check", response_model=Validation, summary="Diagnostics of a compute tool or a workflow")
async def check(request: Request, body: CheckSource, reg: Reg, _: Reader) -> Any:
    return ExactJSONResponse(await in_check_thread(request, checked, reg, body))


def checked(reg: Registry, body: CheckSource) -> dict[str, Any]:
    workflow = body.kind == "workflow" or (body.kind == "auto" and is_workflow(body.source))
    if not workflow:
        return validate_with(reg, body.source)  # calls resolve to the registry's tools
    return validation(workflow_language.check_workflow(body.source, strict=body.strict, n8n_version=body.n8n_version))
