"""Creating and editing a tool: the editor, its live diagnostics (htmx posts the text to
/ui/check as you type, debounced) and saving. Save stays disabled while errors remain."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.diagnostics.render import render_text
from toolkiln.errors import CompileError
from toolkiln.registry.applying import Create, Update
from toolkiln.registry.errors import CheckTooSlow
from toolkiln.registry.kinds import kind_of
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.registry import Registry
from toolkiln.server.check_threads import in_check_thread
from toolkiln.server.services import Reg
from toolkiln.server.web.access import Posted, Viewer
from toolkiln.server.web.highlight import keywords
from toolkiln.server.web.rendering import render
from toolkiln.server.web.tool_view import definition_json

router = APIRouter(include_in_schema=False)
STARTER = """tool {name}(weight_kg: number "Parcel weight in kilograms")
description "Shipping cost of a parcel"
{{
  return weight_kg * 2.50 + 5.00
}}
"""
STARTER_NAME = "shipping_cost"


def starter(reg: Registry) -> str:
    """The New tool page's example, named so that saving it as it is works: `shipping_cost`,
    else the first of `shipping_cost_2`, `shipping_cost_3`, ... that no tool has."""
    name, number = STARTER_NAME, 1
    while name in reg:
        number += 1
        name = f"{STARTER_NAME}_{number}"
    return STARTER.format(name=name)


def diagnose(reg: Registry, source: str, *, new: bool = False) -> list[Diagnostic]:
    """Every diagnostic of a definition (text DSL or JSON text) against the registry's tools,
    within the budget of a check that saves nothing (past it, R0305 is the one shown). For a
    `new` tool, a name that a tool has already is an error here, as saving it would be."""
    try:
        compiled = reg.check_definition(source, seconds=reg.check_seconds)
    except CompileError as error:
        return list(error.diagnostics)
    except CheckTooSlow as error:
        return _refusal(Outcome.failed("definition", error))
    found = list(compiled.warnings)
    name = compiled.definition.get("name")
    if new and isinstance(name, str) and name in reg:
        taken = f"a tool named `{name}` exists already: saving this would be refused"
        found.insert(0, Diagnostic.of(codes.DUPLICATE_TOOL, taken, None, "choose another name, or edit that tool"))
    return found


def _refusal(outcome: Outcome) -> list[Diagnostic]:
    """Why a save was refused, shown under the editor as diagnostics: the definition's, or the
    registry's reason (a duplicate name, the policy), each where the Outcome says it is."""
    return [Diagnostic.from_details(error) for error in outcome.errors]


def _shown(diagnostics: list[Diagnostic]) -> list[dict[str, Any]]:
    """Each diagnostic as the page shows it: the text `toolkiln check` prints, and where it is
    in the definition (1-based line and column, end included) when it is in the text, which
    the editor marks and jumps to."""
    return [{"error": d.is_error, "code": d.code, "text": render_text(d), "at": _span(d)} for d in diagnostics]


def _span(diagnostic: Diagnostic) -> dict[str, int] | None:
    span = diagnostic.span
    if span is None or not span.line or (span.path is not None and not span.in_file):
        return None  # no position, or one inside a JSON string's own text
    return {"line": span.line, "column": span.column, "end_line": span.end_line, "end_column": span.end_column}


def _editor(
    request: Request,
    visitor: Viewer,
    *,
    name: str | None,
    source: str,
    diagnostics: list[Diagnostic],
    refused: bool = False,
) -> Response:
    """The editor; `refused`: a save was refused for `diagnostics`, which the page shows in a
    box of their own that the live check does not replace (it checks the text, not the save)."""
    return render(
        request,
        "editor.html",
        visitor,
        status_code=422 if refused else 200,
        name=name,
        source=source,
        diagnostics=_shown(diagnostics),
        errors=sum(d.is_error for d in diagnostics),
        refused=_shown(diagnostics) if refused else [],
        keywords=sorted(keywords()),
    )


@router.get("/ui/new")
def new_tool(request: Request, reg: Reg, visitor: Viewer) -> Response:
    visitor.need(request, "write")
    return _editor(request, visitor, name=None, source=starter(reg), diagnostics=[])


@router.get("/ui/tools/{name}/edit")
def edit_tool(request: Request, reg: Reg, visitor: Viewer, name: str) -> Response:
    visitor.need(request, "write")
    record = reg.get(name)
    # Examples and workflow tools have no text form: they are edited as JSON.
    text = kind_of(record.kind).editable_text(record.definition)
    source = definition_json(record.definition) if text is None else text
    return _editor(request, visitor, name=name, source=source, diagnostics=[])


@router.post("/ui/check")
async def check(request: Request, reg: Reg, visitor: Viewer, form: Posted) -> Response:
    source, new = str(form.get("definition", "")), form.get("new") == "1"
    diagnostics = await in_check_thread(request, diagnose, reg, source, new=new)
    return render(
        request,
        "_diagnostics.html",
        visitor,
        diagnostics=_shown(diagnostics),
        errors=sum(d.is_error for d in diagnostics),
        oob=True,
    )


@router.post("/ui/new")
async def save_new(request: Request, reg: Reg, visitor: Viewer, form: Posted) -> Response:
    visitor.need(request, "write")
    source = str(form.get("definition", ""))
    outcome = await in_check_thread(request, reg.apply, Create(source, note="web page"), principal=visitor.principal)
    if not outcome.ok:
        return _editor(request, visitor, name=None, source=source, diagnostics=_refusal(outcome), refused=True)
    return RedirectResponse(f"/ui/tools/{outcome.tool}?done=create", status_code=303)


@router.post("/ui/tools/{name}/edit")
async def save_edit(request: Request, reg: Reg, visitor: Viewer, form: Posted, name: str) -> Response:
    visitor.need(request, "write")
    source = str(form.get("definition", ""))
    change = Update(name, {"definition": source})
    outcome = await in_check_thread(request, reg.apply, change, principal=visitor.principal)
    if not outcome.ok:
        return _editor(request, visitor, name=name, source=source, diagnostics=_refusal(outcome), refused=True)
    return RedirectResponse(f"/ui/tools/{name}?tab=versions&done=update", status_code=303)
