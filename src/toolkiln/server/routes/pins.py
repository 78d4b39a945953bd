"""POST /api/v1/tools/{name}/repin: move a caller to other versions of the tools it calls
(registry/repinning.py). The admin scope, and a person's token: a model's or a service's is
refused by the registry (R0201, 403) whatever its scope, as for approving a tool."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import Field

from toolkiln.registry.applying import Repin
from toolkiln.server.auth import Admin
from toolkiln.server.check_threads import in_check_thread
from toolkiln.server.responses import ExactJSONResponse
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.routes.tools import changed
from toolkiln.server.schemas import Body, ToolName, ToolOut
from toolkiln.server.services import Reg

router = APIRouter(prefix="/tools", tags=["tools"], responses=PROBLEMS, default_response_class=ExactJSONResponse)


class RepinTool(Body):
    to: dict[str, int] | None = Field(
        None,
        description='the callees to move and the version of each ({"shipping_cost": 2}); absent: every tool '
        "the caller calls, to its approved version now",
    )


@router.post("/{name}/repin", response_model=ToolOut, summary="Move a caller to other versions of the tools it calls")
async def repin_tool(request: Request, name: ToolName, reg: Reg, caller: Admin, body: RepinTool | None = None) -> Any:
    change = Repin(name, body.to if body is not None else None)
    return changed(await in_check_thread(request, reg.apply, change, principal=caller.acting_as()), request)
