"""/api/v1/tools: list, show, create, change, delete, the lifecycle, history and rollback.

Every change goes through `Registry.apply`; a refused one is its Outcome as problem details."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from starlette.responses import Response

from toolkiln.registry import applying
from toolkiln.registry.applying import Create, Delete, Lifecycle, Update
from toolkiln.registry.errors import InvalidRequest
from toolkiln.registry.kinds import KINDS
from toolkiln.registry.models import ToolRecord
from toolkiln.registry.outcome import Outcome
from toolkiln.server.auth import Caller, Reader, Writer, require
from toolkiln.server.check_threads import in_check_thread
from toolkiln.server.problems import failed
from toolkiln.server.responses import ExactJSONResponse, record_json
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.schemas import Actor, CreateTool, Deleted, Rollback, ToolName, ToolOut, ToolPage, UpdateTool
from toolkiln.server.services import Reg

router = APIRouter(prefix="/tools", tags=["tools"], responses=PROBLEMS, default_response_class=ExactJSONResponse)
Status = Literal["active", "disabled", "pending_approval", "rejected"]


def tool_page(records: list[ToolRecord], limit: int, offset: int, untrusted: set[str]) -> dict[str, Any]:
    return {
        "tools": [record_json(r, r.name not in untrusted) for r in records[offset : offset + limit]],
        "total": len(records),
        "limit": limit,
        "offset": offset,
    }


def changed(outcome: Outcome, request: Request, status_code: int = 200) -> Response:
    """A change's Outcome on the wire: the record written, or problem details."""
    if not outcome.ok:
        return failed(outcome, request.url.path)
    fixes = {"fixes_applied": list(outcome.fixes)} if outcome.fixes else {}  # a created definition's certain fixes
    return ExactJSONResponse({**record_json(outcome.result), **fixes}, status_code=status_code)


def search(records: list[ToolRecord], kind: str | None, text: str | None) -> list[ToolRecord]:
    """The registry filters by status and creator; kind and free text are filtered here."""
    needle = text.casefold() if text else None
    return [
        r
        for r in records
        if (kind is None or r.kind == kind)
        and (needle is None or needle in r.name.casefold() or needle in r.description.casefold())
    ]


@router.get("", response_model=ToolPage, summary="List tools")
def list_tools(
    reg: Reg,
    _: Reader,
    status: Status | None = None,
    kind: Annotated[str | None, Query(max_length=64, description="a tool kind: compute, workflow, script, ...")] = None,
    created_by: Actor | None = None,
    search_text: Annotated[str | None, Query(alias="search", max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> Any:
    if kind is not None and kind not in KINDS:  # (the table, not a fixed list: a new kind is listed too)
        raise InvalidRequest(f"unknown tool kind {kind[:40]!r}", hint=f"kinds are: {', '.join(KINDS)}")
    records = search(reg.list(status=status, created_by=created_by), kind, search_text)
    return ExactJSONResponse(tool_page(records, limit, offset, reg.untrusted()))


@router.get("/pending", response_model=ToolPage, summary="Tools waiting for approval")
def pending_tools(
    reg: Reg,
    _: Reader,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> Any:
    return ExactJSONResponse(tool_page(reg.list(status="pending_approval"), limit, offset, reg.untrusted()))


@router.post("", response_model=ToolOut, status_code=201, summary="Create a tool")
async def create_tool(request: Request, body: CreateTool, reg: Reg, caller: Writer) -> Any:
    by = caller.acting_as(body.created_by)
    create = Create(body.definition, fix=True)  # a model's mistake with a certain fix costs no round trip
    return changed(await in_check_thread(request, reg.apply, create, principal=by), request, 201)


@router.get("/{name}", response_model=ToolOut, summary="Show a tool")
def get_tool(name: ToolName, reg: Reg, _: Reader) -> Any:
    return ExactJSONResponse(record_json(reg.get(name), reg.trusted_here(name)))


@router.patch("/{name}", response_model=ToolOut, summary="Change a tool (a new version unless only the description)")
async def update_tool(request: Request, name: ToolName, body: UpdateTool, reg: Reg, caller: Writer) -> Any:
    by = caller.acting_as(body.by)
    return changed(
        await in_check_thread(request, reg.apply, Update(name, body.changes, fix=True), principal=by), request
    )


@router.delete("/{name}", response_model=Deleted, summary="Delete a tool and its past versions")
def delete_tool(
    request: Request,
    name: ToolName,
    reg: Reg,
    caller: Writer,
    force: bool = False,
    by: Actor | None = None,
) -> Any:
    outcome = reg.apply(Delete(name, force), principal=caller.acting_as(by))
    return ExactJSONResponse({"deleted": name}) if outcome.ok else failed(outcome, request.url.path)


def _lifecycle(action: Literal["enable", "disable", "approve", "reject"], scope: Literal["write", "admin"]) -> None:
    """Register POST /tools/{name}/<action>: approvals need admin, the rest write."""

    allowed = Depends(require(scope))  # a default, not an annotation: annotations are strings here

    def act(request: Request, name: ToolName, reg: Reg, by: Actor | None = None, caller: Caller = allowed) -> Any:
        return changed(reg.apply(Lifecycle(name, action), principal=caller.acting_as(by)), request)

    act.__name__ = f"{action}_tool"
    summary = f"{action.capitalize()} a tool" + (
        " (only from pending_approval; 409 otherwise)" if scope == "admin" else ""
    )
    router.post(f"/{{name}}/{action}", response_model=ToolOut, summary=summary)(act)


for _action, _scope in (("enable", "write"), ("disable", "write"), ("approve", "admin"), ("reject", "admin")):
    _lifecycle(_action, _scope)  # type: ignore[arg-type]


@router.get("/{name}/history", response_model=list[ToolOut], summary="Every version, oldest first")
def history(name: ToolName, reg: Reg, _: Reader) -> Any:
    return ExactJSONResponse([record_json(r) for r in reg.history(name)])


@router.post("/{name}/rollback", response_model=ToolOut, summary="Make a past version current (as a new version)")
async def rollback(request: Request, name: ToolName, body: Rollback, reg: Reg, caller: Writer) -> Any:
    change = applying.Rollback(name, body.version)
    return changed(await in_check_thread(request, reg.apply, change, principal=caller.acting_as(body.by)), request)
