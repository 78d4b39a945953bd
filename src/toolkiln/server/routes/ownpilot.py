"""/api/v1/custom-tools: OwnPilot's create route, mapped onto the same registry (issue 27, item 5).

`POST /api/v1/custom-tools` takes OwnPilot's body as it is (`name`, `description`,
`parameters`, `code`, `permissions`, `requiredApiKeys`, and OwnPilot's other fields, which are
ignored) and creates a `javascript` script tool, as `toolkiln tools import --from ownpilot`
does (registry/ownpilot.py): 201 with the record and `mapped`, what each permission and key
became. Who creates it is the token's principal; OwnPilot's `createdBy: "llm"` only narrows it
to a model (whose tool waits for a person when it has the network). What does not map is a
422 with E1104 (a permission) or E1101 (not an OwnPilot tool).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request

from toolkiln.errors import CompileError
from toolkiln.registry.applying import Create
from toolkiln.registry.outcome import Outcome
from toolkiln.server.auth import Writer
from toolkiln.server.check_threads import in_check_thread
from toolkiln.server.problems import failed
from toolkiln.server.responses import ExactJSONResponse, record_json
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.services import Reg

router = APIRouter(
    prefix="/custom-tools", tags=["ownpilot-compatible"], responses=PROBLEMS, default_response_class=ExactJSONResponse
)
OwnPilotTool = Annotated[
    dict[str, Any],
    Body(description="an OwnPilot custom tool: name, description, parameters, code, permissions, requiredApiKeys"),
]


@router.post("", status_code=201, summary="Create a javascript script tool from an OwnPilot custom tool")
async def create_custom_tool(request: Request, body: OwnPilotTool, reg: Reg, caller: Writer) -> Any:
    # (on a request: registry.ownpilot reaches the workflow compiler, which building the app never loads)
    from toolkiln.registry.ownpilot import OwnPilotRefused, import_note, ownpilot_tool

    try:
        tool = ownpilot_tool(body, "the request body", caller.acting_as().actor)
    except OwnPilotRefused as refused:
        return failed(Outcome.failed(str(body.get("name"))[:64], CompileError([refused.diagnostic])), request.url.path)
    by = caller.acting_as("llm" if tool.created_by == "llm" else None)
    outcome = await in_check_thread(request, reg.apply, Create(tool.definition, note=import_note(tool)), principal=by)
    if not outcome.ok:
        return failed(outcome, request.url.path)
    return ExactJSONResponse({**record_json(outcome.result), "mapped": list(tool.mapped)}, status_code=201)
