"""/api/v1/tools: the active tools for an LLM API (all, or one), and the registry's counts.

Declared before the tools router, so that /tools/definitions and /tools/stats are not taken
for tool names.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from fastapi import APIRouter

from toolkiln.registry.errors import InvalidRequest, ToolNotActive
from toolkiln.registry.formats import Format
from toolkiln.registry.registry import Registry
from toolkiln.server.auth import Reader
from toolkiln.server.responses import ExactJSONResponse
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.schemas import Stats, ToolName
from toolkiln.server.services import Reg

router = APIRouter(prefix="/tools", tags=["definitions"], responses=PROBLEMS, default_response_class=ExactJSONResponse)


def tool_definition(reg: Registry, name: str, format: Format) -> dict[str, Any]:  # noqa: A002 - the API's word
    """One active tool's definition in `format`: 409 when it is not active, 400 when the
    format cannot express it (the export says why)."""
    record = reg.get(name)
    if record.status != "active":
        raise ToolNotActive(
            f"`{name}` is {record.status.replace('_', ' ')}; only active tools are given to models",
            hint="enable or approve it first",
        )
    exported = reg.export(format)
    for issue in exported.skipped:
        if issue.tool == name:
            raise InvalidRequest(f"`{name}` cannot be exported to {format}: {issue.message}")
    return next(d for d in exported.definitions if _name_of(d) == name)


def _name_of(definition: dict[str, Any]) -> str:
    return str(definition["function"]["name"] if "function" in definition else definition["name"])


@router.get("/definitions", response_model=list[dict[str, Any]], summary="The active tools in an LLM API's format")
def definitions(reg: Reg, _: Reader, format: Format = "openai") -> Any:  # noqa: A002
    return ExactJSONResponse(reg.definitions(format))


@router.get("/stats", response_model=Stats, summary="Counts per status, kind and creator; runs")
def stats(reg: Reg, _: Reader) -> Any:
    records = reg.list()
    most_used = sorted(records, key=lambda r: (-r.usage_count, r.name))[:10]
    return ExactJSONResponse(
        {
            "total": len(records),
            "by_status": dict(Counter(r.status for r in records)),
            "by_kind": dict(Counter(r.kind for r in records)),
            "by_creator": dict(Counter(r.created_by for r in records)),
            "runs": sum(r.usage_count for r in records),
            "most_used": [{"name": r.name, "runs": r.usage_count} for r in most_used if r.usage_count],
            "problems": len(reg.problems),
        }
    )


@router.get("/{name}/definition", response_model=dict[str, Any], summary="One active tool in an LLM API's format")
def one_definition(
    name: ToolName,
    reg: Reg,
    _: Reader,
    format: Format = "openai",  # noqa: A002
) -> Any:
    return ExactJSONResponse(tool_definition(reg, name, format))
