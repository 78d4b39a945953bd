"""What each tab of a tool's page shows, gathered from the registry (no HTML here)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from toolkiln.errors import CompileError, RunError
from toolkiln.registry.errors import RegistryError
from toolkiln.registry.kinds import DEFAULT, kind_of
from toolkiln.registry.models import ToolRecord
from toolkiln.registry.registry import Registry
from toolkiln.registry.review import Review, review
from toolkiln.semantics.values import to_json
from toolkiln.server.web.highlight import Token, dsl_tokens, json_tokens
from toolkiln.server.web.side_by_side import Row, side_by_side
from toolkiln.server.web.workflow_svg import workflow_svg

TABS = ("definition", "parameters", "examples", "test", "versions", "usage", "audit")
WORKFLOW_TABS = ("graph",)


def tabs_of(record: ToolRecord) -> tuple[str, ...]:
    tabs = TABS[:1] + WORKFLOW_TABS + TABS[1:] if kind_of(record.kind).deploys else TABS
    return tabs[:1] + ("review",) + tabs[1:] if record.status == "pending_approval" else tabs


def tabs_for(reg: Registry, record: ToolRecord) -> tuple[str, ...]:
    """The tabs of a tool's page: with the review also while callers are pinned to an older
    version of an active tool (the review's "move callers to this version" is there)."""
    tabs = tabs_of(record)
    if "review" in tabs or record.status != "active":
        return tabs
    if any(version != record.version for version in reg.pinned_callers(record.name).values()):
        return tabs[:1] + ("review",) + tabs[1:]
    return tabs


def review_view(reg: Registry, name: str) -> tuple[Review | None, str | None]:
    """What a person approving the tool is shown (registry/review.py), within the time a check
    that saves nothing may take; else why not."""
    try:
        return review(reg, name, seconds=reg.check_seconds), None
    except RegistryError as error:
        return None, error.message


def definition_text(definition: dict[str, Any]) -> str:
    """A stored definition as its kind writes it in text (a compute tool's canonical text DSL,
    a workflow tool's workflow text), else its JSON."""
    text = kind_of(str(definition.get("kind", DEFAULT.name))).source_text(definition)
    return definition_json(definition) if text is None else text


def definition_json(definition: dict[str, Any]) -> str:
    return json.dumps(definition, indent=2, ensure_ascii=False)


def type_words(spec: Any) -> str:
    """A parameter's JSON Schema type as the Parameters tab says it: `number`, `date`,
    `number or null`, `array of string`, `record of p (number), q (string)`; never JSON text."""
    if not isinstance(spec, dict):
        return "any"
    if "enum" in spec:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in spec["enum"])
    names = spec.get("type", "any")
    names = names if isinstance(names, list) else [names]
    return " or ".join(_one_type(spec, str(name)) for name in names)


def _one_type(spec: dict[str, Any], name: str) -> str:
    if name == "string" and spec.get("format") in ("date", "date-time"):
        return "datetime" if spec["format"] == "date-time" else "date"
    if name == "array" and isinstance(spec.get("items"), dict):
        return "array of " + type_words(spec["items"])
    fields = spec.get("properties")
    if name == "object" and isinstance(fields, dict) and fields:
        return "record of " + ", ".join(f"{key} ({type_words(field)})" for key, field in fields.items())
    return name


@dataclass(frozen=True)
class Definition:
    text: list[Token]
    json: list[Token]


def definition_view(record: ToolRecord) -> Definition:
    return Definition(dsl_tokens(definition_text(record.definition)), json_tokens(definition_json(record.definition)))


@dataclass(frozen=True)
class ExampleRun:
    args: str
    expect: str
    result: str | None
    error: dict[str, Any] | None


def example_runs(reg: Registry, record: ToolRecord) -> tuple[list[ExampleRun], list[dict[str, Any]]]:
    """Each example run now against today's registry (nothing is counted as a use): all of
    them passed when the definition checks (the check runs them); else the diagnostics say
    which fail and why."""
    examples = record.definition.get("examples") or []
    if not examples or not kind_of(record.kind).has_examples:
        return [], []
    try:
        tool = reg.check_definition(record.definition, seconds=reg.check_seconds).tool
        if tool is None:  # examples are for compute tools only
            return [], []
    except CompileError as error:
        return [], [d.to_dict() for d in error.diagnostics]
    except RegistryError as error:
        return [], [error.to_dict()]
    runs = []
    for example in examples:
        shown, expect = to_json(example.get("args")), to_json(example.get("expect"))
        try:
            result = tool.run(example.get("args"), tables=reg.tables)
            runs.append(ExampleRun(shown, expect, to_json(result, exact=True), None))
        except RunError as error:
            runs.append(ExampleRun(shown, expect, None, error.to_dict()))
    return runs, []


@dataclass(frozen=True)
class Versions:
    history: list[ToolRecord]
    left: int
    right: int
    rows: list[Row]


def versions_view(reg: Registry, name: str, left: int | None, right: int | None) -> Versions:
    """Every version, and two of them side by side (by default the one before the current one
    against the current one)."""
    history = reg.history(name)
    by_number = {r.version: r for r in history}
    current = history[-1].version
    right = right if right in by_number else current
    fallback = history[-2].version if len(history) > 1 else current
    left = left if left in by_number else fallback
    rows = side_by_side(definition_text(by_number[left].definition), definition_text(by_number[right].definition))
    return Versions(history, left, right, rows)


def graph_view(record: ToolRecord) -> tuple[Markup, list[dict[str, Any]]]:
    """The SVG of a workflow tool's compiled graph, or the diagnostics of why it has none."""
    from toolkiln.workflow import compile_workflow

    try:
        compiled = compile_workflow(str(record.definition.get("workflow", "")))
    except CompileError as error:
        return Markup(""), [d.to_dict() for d in error.diagnostics]
    return workflow_svg(compiled.n8n, f"Workflow graph of {record.name}"), []
