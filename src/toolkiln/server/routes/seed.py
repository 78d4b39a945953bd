"""/api/tools: the seed's (RustyClaw's) tool API, mapped onto the same registry.

Answers keep the seed's envelope, `{"status": "success", "data": ...}`, and its shapes:
create takes the definition itself as the body, PUT a whole new definition, `test` runs a
stored tool with `{"parameters": {...}}`, definitions are in OpenAI's format. Errors are
problem details, as on /api/v1.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from toolkiln.registry.applying import Create, Delete, Update
from toolkiln.registry.models import ToolRecord
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.registry import Registry
from toolkiln.server.auth import Reader, Runner, Writer
from toolkiln.server.check_threads import in_check_thread
from toolkiln.server.problems import failed
from toolkiln.server.responses import ExactJSONResponse, record_json
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.routes.exports import tool_definition
from toolkiln.server.routes.runs import validate_with
from toolkiln.server.schemas import ToolName
from toolkiln.server.services import Reg, in_run_slot

router = APIRouter(
    prefix="/api/tools", tags=["seed-compatible"], responses=PROBLEMS, default_response_class=ExactJSONResponse
)
DefinitionBody = Annotated[dict[str, Any], Body(description="a tool definition in the JSON format")]


class Envelope(BaseModel):
    status: str = Field(description='always "success"; errors are problem details')
    data: Any


class TestRun(BaseModel):
    model_config = ConfigDict(extra="forbid")
    parameters: dict[str, Any] = Field(default_factory=dict, description="the tool's arguments")


class ValidateOptions(BaseModel):
    """RustyClaw's /validate body: which diagnostics to report (both by default)."""

    model_config = ConfigDict(extra="forbid")
    check_syntax: bool = Field(default=True, description="the tool's logic: syntax, types, names, examples")
    check_parameters: bool = Field(default=True, description="its declared parameters (a JSON definition's)")


def about_parameters(diagnostic: dict[str, Any]) -> bool:
    """Whether a diagnostic is about the declared parameters (located under `parameters`)."""
    path = diagnostic.get("path") or ""
    return path == "parameters" or path.startswith(("parameters.", "parameters["))


def success(data: Any, status_code: int = 200) -> ExactJSONResponse:
    return ExactJSONResponse({"status": "success", "data": data}, status_code=status_code)


def summary(record: ToolRecord) -> dict[str, Any]:
    return {
        "id": record.name,
        "name": record.name,
        "description": record.description,
        "runtime": runtime(record),
        "source": "skills",
        "status": record.status,
        "version": record.version,
        "created_at": record_json(record)["created_at"],
        "ready": record.status == "active",
    }


def runtime(record: ToolRecord) -> str:
    """RustyClaw's `runtime`: a script's language (bash, python), else the tool's kind."""
    language = record.definition.get("runtime")  # only a script's definition has one
    return language if isinstance(language, str) else record.kind


# RustyClaw's sources: every registry tool is one a person or a model made, a "skill";
# toolkiln's registry holds no built-in or plugin tools.
Source = Literal["built-in", "skills", "plugins", "all"]


@router.post("", response_model=Envelope, status_code=201, summary="Create a tool (seed shape)")
async def create(request: Request, definition: DefinitionBody, reg: Reg, caller: Writer) -> Any:
    outcome = await in_check_thread(request, reg.apply, Create(definition), principal=caller.acting_as())
    return success(summary(outcome.result), 201) if outcome.ok else failed(outcome, request.url.path)


@router.get("", response_model=Envelope, summary="List tools (seed shape)")
def list_all(
    reg: Reg,
    _: Reader,
    filter: Annotated[Source, Query(description="the tools' source, as RustyClaw's")] = "all",  # noqa: A002
    runtime_: Annotated[str | None, Query(alias="runtime", max_length=64, description="bash, python, ...")] = None,
) -> Any:
    records = [r for r in reg.list() if filter in ("skills", "all") and (runtime_ is None or runtime(r) == runtime_)]
    ready = sum(r.status == "active" for r in records)
    failed = len(reg.problems)
    return success({"tools": [summary(r) for r in records], "total": len(records), "ready": ready, "failed": failed})


@router.get("/definitions/all", response_model=Envelope, summary="Every active tool in OpenAI's format")
def all_definitions(reg: Reg, _: Reader) -> Any:
    return success(reg.definitions("openai"))


@router.get("/{name}", response_model=Envelope, summary="Show a tool (seed shape)")
def show(name: ToolName, reg: Reg, _: Reader) -> Any:
    return success(record_json(reg.get(name)))


@router.put("/{name}", response_model=Envelope, summary="Replace a tool's definition (a new version)")
async def replace(request: Request, name: ToolName, definition: DefinitionBody, reg: Reg, caller: Writer) -> Any:
    change = Update(name, {"definition": definition})
    outcome = await in_check_thread(request, reg.apply, change, principal=caller.acting_as())
    return success(record_json(outcome.result)) if outcome.ok else failed(outcome, request.url.path)


@router.delete("/{name}", response_model=Envelope, summary="Delete a tool (seed shape)")
def delete(
    request: Request,
    name: ToolName,
    reg: Reg,
    caller: Writer,
    keep_backup: Annotated[
        bool, Query(description="RustyClaw's switch; a deleted tool's files are always kept, under .deleted/")
    ] = True,
) -> Any:
    outcome = reg.apply(Delete(name), principal=caller.acting_as())
    if not outcome.ok:
        return failed(outcome, request.url.path)
    return success({"message": f"Tool '{name}' deleted", "backup_path": _kept_in(reg, name)})


def _kept_in(reg: Registry, name: str) -> str | None:
    """Where the delete put the tool's files, relative to the registry folder: its audit line
    says `kept in .deleted/<name>.<time>`."""
    deletes = [entry for entry in reg.audit_log(name) if entry.action == "delete"]
    note = deletes[-1].note if deletes else None
    return note.removeprefix("kept in ") if note and note.startswith("kept in ") else None


@router.post("/{name}/test", response_model=Envelope, summary="Run a stored tool with test arguments")
async def test(request: Request, name: ToolName, body: TestRun, reg: Reg, caller: Runner) -> Any:
    principal = caller.acting_as()

    def timed() -> tuple[Outcome, float]:
        started = time.perf_counter()
        outcome = reg.invoke(name, body.parameters, principal=principal)
        return outcome, round((time.perf_counter() - started) * 1000, 3)

    outcome, elapsed_ms = await in_run_slot(request, timed)
    if not outcome.ok:
        return failed(outcome, request.url.path)
    return success({"output": outcome.result, "execution_time_ms": elapsed_ms, "status": "success"})


@router.post("/{name}/validate", response_model=Envelope, summary="Check a stored tool: errors and warnings")
async def validate(
    request: Request, name: ToolName, reg: Reg, _: Reader, options: Annotated[ValidateOptions | None, Body()] = None
) -> Any:
    wanted = options or ValidateOptions()
    record = reg.get(name)
    found = await in_check_thread(request, lambda: validate_with(reg, record.definition))
    reported = [
        d for d in found["diagnostics"] if (wanted.check_parameters if about_parameters(d) else wanted.check_syntax)
    ]
    errors = [d for d in reported if d["severity"] == "error"]
    warnings = [d for d in reported if d["severity"] != "error"]
    return success({"valid": not errors, "name": name, "runtime": record.kind, "errors": errors, "warnings": warnings})


@router.get("/{name}/definition", response_model=Envelope, summary="One active tool in OpenAI's format")
def definition(name: ToolName, reg: Reg, _: Reader) -> Any:
    return success(tool_definition(reg, name, "openai"))
