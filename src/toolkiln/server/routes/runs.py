"""/api/v1/tools: execute a tool, test a definition without saving it, validate either.

Declared before the tools router, so that /tools/test and /tools/validate are not taken
for tool names.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request

from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.registry import Registry
from toolkiln.semantics.chance import as_source, drawing_from
from toolkiln.semantics.dates import Clock, clock_at
from toolkiln.server.auth import Reader, Runner
from toolkiln.server.check_threads import in_check_thread
from toolkiln.server.problems import failed
from toolkiln.server.responses import ExactJSONResponse
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.routes.calls import pending_answer
from toolkiln.server.schemas import Execute, Executed, TestDefinition, Tested, ToolName, ValidateDefinition, Validation
from toolkiln.server.services import Reg, in_run_slot, services_of

# `?decimals=string`: each number of the answer as its exact text ("31.500"), not a number.
Decimals = Annotated[
    Literal["number", "string"],
    Query(description='how numbers are written: JSON numbers with the digits computed (31.500), or "string"'),
]

router = APIRouter(prefix="/tools", tags=["runs"], responses=PROBLEMS, default_response_class=ExactJSONResponse)


def _clock(now: str | None) -> Clock | None:
    return None if now is None else clock_at(now)


def validation(diagnostics: list[Diagnostic]) -> dict[str, Any]:
    errors = sum(d.is_error for d in diagnostics)
    return {
        "valid": errors == 0,
        "errors": errors,
        "warnings": len(diagnostics) - errors,
        "diagnostics": [d.to_dict() for d in diagnostics],
    }


def validate_with(reg: Registry, definition: Any) -> dict[str, Any]:
    """The definition's diagnostics against the registry's tools (a 200 either way: the
    question was answered), within the budget of a check that saves nothing (R0305, 422)."""
    try:
        return validation(reg.check_definition(definition, seconds=reg.check_seconds).warnings)
    except CompileError as error:
        return validation(error.diagnostics)


def tested(reg: Registry, body: TestDefinition) -> dict[str, Any]:
    compiled = reg.check_definition(body.definition, seconds=reg.check_seconds)
    ran = body.args is not None and compiled.kind.not_tried is None  # (a workflow run would act in n8n)
    return {
        "name": compiled.name,
        "kind": compiled.kind.name,
        "parameters": compiled.parameters,
        "warnings": [d.to_dict() for d in compiled.warnings],
        "ran": ran,
        "result": compiled.kind.try_run(compiled, body.args or {}, reg.tables, _clock(body.now)) if ran else None,
    }


@router.post("/test", response_model=Tested, summary="Check a definition and run it once; nothing is saved")
async def test_definition(
    request: Request, body: TestDefinition, reg: Reg, _: Runner, decimals: Decimals = "number"
) -> Any:
    return ExactJSONResponse(await in_check_thread(request, tested, reg, body), decimals=decimals)


@router.post("/validate", response_model=Validation, summary="Check a definition: its diagnostics")
async def validate_definition(request: Request, body: ValidateDefinition, reg: Reg, _: Reader) -> Any:
    return ExactJSONResponse(await in_check_thread(request, validate_with, reg, body.definition))


@router.get("/{name}/validate", response_model=Validation, summary="Check a stored tool against today's registry")
async def validate_tool(request: Request, name: ToolName, reg: Reg, _: Reader) -> Any:
    return ExactJSONResponse(await in_check_thread(request, lambda: validate_with(reg, reg.get(name).definition)))


@router.post("/{name}/execute", response_model=Executed, summary="Run an active tool")
async def execute(
    request: Request, name: ToolName, body: Execute, caller: Runner, decimals: Decimals = "number"
) -> Any:
    reg = services_of(request).registries.get(caller.token.tenant)  # (not a dependency: each costs FastAPI more)
    principal, clock = caller.acting_as(), _clock(body.now)
    conversation, source = body.conversation, as_source(body.seed)

    def run() -> Outcome:
        with drawing_from(source):  # (the run's thread: this one)
            return reg.invoke(name, body.args, principal=principal, clock=clock, conversation=conversation)

    outcome = await in_run_slot(request, run)
    if outcome.pending:
        return pending_answer(outcome)  # 202: it waits for a person's approval
    if not outcome.ok:
        return failed(outcome, request.url.path)
    return ExactJSONResponse({"tool": name, "version": outcome.version, "result": outcome.result}, decimals=decimals)
