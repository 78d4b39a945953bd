"""The test panel's run: the form's values as arguments, and the result or the run error.

An active tool runs as it would for a client (the run is counted); a tool that is not active
yet (pending approval, say) is checked and run once without being counted, as
POST /api/v1/tools/test does, so a reviewer can try it before approving it. Other kinds run
only when active (a workflow's run acts in n8n, a script's in a sandbox)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.datastructures import FormData
from starlette.responses import Response

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.details import ErrorDetails
from toolkiln.errors import Error
from toolkiln.registry.models import ToolRecord
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.principals import Principal
from toolkiln.registry.registry import Registry
from toolkiln.semantics.values import to_json
from toolkiln.server.services import Reg, in_run_slot
from toolkiln.server.web.access import Posted, Viewer, Visitor
from toolkiln.server.web.form_fields import FormValues, form_fields, read_arguments
from toolkiln.server.web.pages import tool_page
from toolkiln.server.web.rendering import render

router = APIRouter(include_in_schema=False)


def run_once(reg: Registry, record: ToolRecord, args: dict[str, Any], principal: Principal) -> dict[str, Any]:
    """{"result": JSON text} or {"errors": [the Outcome's error dicts]}: an active tool runs
    through `Registry.invoke` for the visitor, one that is not active is tried once."""
    outcome = (
        reg.invoke(record.name, args, principal=principal) if record.status == "active" else _tried(reg, record, args)
    )
    if not outcome.ok:
        return {"errors": outcome.error_dicts}
    return {"result": to_json(outcome.result, indent=2, exact=True)}


def _tried(reg: Registry, record: ToolRecord, args: dict[str, Any]) -> Outcome:
    """A tool that is not active, checked and run once as POST /api/v1/tools/test runs one."""
    try:
        compiled = reg.check_definition(record.definition, seconds=reg.check_seconds)
        if compiled.kind.not_tried is not None:
            refusal = f"a {record.kind} tool runs only when active (its run acts outside toolkiln)"
            return Outcome.refused(record.name, [ErrorDetails.coded(codes.TOOL_NOT_ACTIVE, refusal)])
        value = compiled.kind.try_run(compiled, args, reg.tables, None)
    except Error as error:
        return Outcome.failed(record.name, error)
    return Outcome(True, value, (), record.version, record.name)


@router.post("/ui/tools/{name}/run")
async def run_tool(request: Request, reg: Reg, visitor: Viewer, form: Posted, name: str) -> Response:
    # (the whole answer in a run slot: it may check the definition and run it)
    return await in_run_slot(request, lambda: _run_tool(request, reg, visitor, form, name))


def _run_tool(request: Request, reg: Registry, visitor: Visitor, form: FormData, name: str) -> Response:
    visitor.need(request, "run")
    record = reg.get(name)
    fields = form_fields(record.parameters, record.definition.get("examples"))
    try:
        outcome = run_once(reg, record, read_arguments(fields, form), visitor.principal)
    except FormValues as refused:
        outcome = {"errors": refused.problems}
    outcome["counted"] = record.status == "active"
    if request.headers.get("HX-Request"):
        return render(request, "_run_result.html", visitor, outcome=outcome)
    values = {k: v for k, v in form.items() if isinstance(v, str)}
    return tool_page(request, reg, visitor, name, "test", outcome=outcome, values=values)
