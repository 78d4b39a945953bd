"""Tool definitions in the shape each tool-calling API expects.

| format      | one tool                                                                      |
|-------------|-------------------------------------------------------------------------------|
| `openai`    | `{"type": "function", "function": {"name", "description", "parameters"}}`     |
| `anthropic` | `{"name", "description", "input_schema"}`                                     |
| `mcp`       | `{"name", "description", "inputSchema", "annotations"}` (a tools/list entry)  |
| `gemini`    | `{"name", "description", "parameters"}` (a function declaration, OpenAPI subset)|

What a format would reject is adapted when the meaning survives (a description cut to
OpenAI's 1,024 characters; for Gemini: upper-case types, no `additionalProperties`,
defaults moved into descriptions, no `parameters` for a tool without any), and otherwise
the tool is left out and reported in `Export.skipped` (a name or parameter name the format
does not allow; for Gemini, a parameter whose type it cannot express: `any`, an object
without properties, an array without an item type). Nothing is ever sent broken.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from toolkiln.registry.errors import InvalidRequest
from toolkiln.registry.formats import COMPUTE_ANNOTATIONS, FORMATS
from toolkiln.registry.json_values import plain_json

NAME_RULES = {
    "openai": (re.compile(r"[a-zA-Z0-9_-]{1,64}"), "^[a-zA-Z0-9_-]{1,64}$"),
    "anthropic": (re.compile(r"[a-zA-Z0-9_-]{1,64}"), "^[a-zA-Z0-9_-]{1,64}$"),
    "mcp": (re.compile(r"[A-Za-z0-9_.-]{1,128}"), "^[A-Za-z0-9_.-]{1,128}$"),
    "gemini": (re.compile(r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}"), "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$"),
}
PROPERTY_RULES = {
    "anthropic": (re.compile(r"[a-zA-Z0-9_.-]{1,64}"), "^[a-zA-Z0-9_.-]{1,64}$"),
    "gemini": (re.compile(r"[a-zA-Z_][a-zA-Z0-9_]{0,63}"), "^[a-zA-Z_][a-zA-Z0-9_]{0,63}$"),
}
OPENAI_DESCRIPTION_LIMIT = 1024
GEMINI_TYPES = {
    "string": "STRING",
    "number": "NUMBER",
    "integer": "INTEGER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
}
# (Each tool kind says its own annotations: registry/kinds/; a compute tool's are in formats.py.)


@dataclass(frozen=True)
class ToolSpec:
    """What every format is made from."""

    name: str
    description: str
    parameters: dict[str, Any]
    annotations: dict[str, Any] = field(default_factory=lambda: dict(COMPUTE_ANNOTATIONS))


@dataclass(frozen=True)
class ExportIssue:
    tool: str
    message: str


@dataclass(frozen=True)
class Export:
    """The definitions of one format, the tools left out and the adaptations made."""

    format: str
    definitions: list[dict[str, Any]]
    skipped: list[ExportIssue]
    adapted: list[ExportIssue]


class _Unrepresentable(Exception):
    pass


def check_format(format: str) -> str:  # noqa: A002 - the public parameter name
    if format not in FORMATS:
        raise InvalidRequest(f"unknown export format {format!r}", hint=f"formats are: {', '.join(FORMATS)}")
    return format


def export(specs: Iterable[ToolSpec], format: str) -> Export:  # noqa: A002
    check_format(format)
    definitions: list[dict[str, Any]] = []
    skipped: list[ExportIssue] = []
    adapted: list[ExportIssue] = []
    for spec in specs:
        notes: list[str] = []
        try:
            definitions.append(_one(spec, format, notes))
        except _Unrepresentable as problem:
            skipped.append(ExportIssue(spec.name, str(problem)))
            continue
        adapted.extend(ExportIssue(spec.name, note) for note in notes)
    return Export(format, definitions, skipped, adapted)


def _one(spec: ToolSpec, format: str, notes: list[str]) -> dict[str, Any]:  # noqa: A002
    pattern, rule = NAME_RULES[format]
    if not pattern.fullmatch(spec.name):
        raise _Unrepresentable(f"{format} tool names must match {rule}")
    parameters = plain_json(spec.parameters)
    if format in PROPERTY_RULES:
        pattern, rule = PROPERTY_RULES[format]
        for prop in parameters.get("properties", {}):
            if not pattern.fullmatch(prop):
                raise _Unrepresentable(f"parameter `{prop[:40]}`: {format} parameter names must match {rule}")
    description = spec.description
    match format:
        case "openai":
            if len(description) > OPENAI_DESCRIPTION_LIMIT:
                description = description[: OPENAI_DESCRIPTION_LIMIT - 3] + "..."
                notes.append(f"description cut to OpenAI's {OPENAI_DESCRIPTION_LIMIT} characters")
            return {
                "type": "function",
                "function": {"name": spec.name, "description": description, "parameters": parameters},
            }
        case "anthropic":
            return {"name": spec.name, "description": description, "input_schema": parameters}
        case "mcp":
            return {
                "name": spec.name,
                "description": description,
                "inputSchema": parameters,
                "annotations": dict(spec.annotations),
            }
        case "gemini":
            declaration: dict[str, Any] = {"name": spec.name, "description": description}
            if parameters.get("properties"):
                declaration["parameters"] = gemini_schema(parameters, "parameters", notes)
            return declaration
    raise AssertionError(format)


_DATE_FORMS = {
    "date": "an ISO 8601 date: YYYY-MM-DD",
    "date-time": "an ISO 8601 date and time with its offset: 2026-01-31T09:30:00Z",
}


def gemini_schema(schema: dict[str, Any], where: str, notes: list[str]) -> dict[str, Any]:
    """A JSON Schema (as toolkiln writes them) in Gemini's OpenAPI 3.0 subset: a nullable type
    (`["number", "null"]`) is its one type with `nullable: true`."""
    kind = schema.get("type")
    nullable = isinstance(kind, list) and len(kind) == 2 and "null" in kind
    if isinstance(kind, list) and nullable:
        kind = next(name for name in kind if name != "null")
    if not isinstance(kind, str) or kind not in GEMINI_TYPES:
        raise _Unrepresentable(
            f"{where} has no type Gemini can express (declare it: string, number, integer, "
            "boolean, or an array of one of them)"
        )
    out: dict[str, Any] = {"type": GEMINI_TYPES[kind]}
    if nullable:
        out["nullable"] = True
    description = schema.get("description")
    if "default" in schema:
        shown = _shown(schema["default"])
        description = f"{description} (default: {shown})" if description else f"Default: {shown}."
        notes.append(f"{where}: default moved into the description (Gemini's schema has no `default`)")
    if kind == "string" and schema.get("format") in _DATE_FORMS:
        # Gemini's subset has the format `date-time` only: the form a date takes is said in words.
        form = _DATE_FORMS[schema["format"]]
        description = f"{description} ({form})" if description else f"{form[0].upper()}{form[1:]}."
        if schema["format"] == "date-time":
            out["format"] = "date-time"
        else:
            notes.append(f"{where}: format date said in the description (Gemini's schema has only date-time)")
    if description:
        out["description"] = description
    if "enum" in schema and kind == "string":
        out["format"] = "enum"
        out["enum"] = list(schema["enum"])
    if kind == "object":
        properties = schema.get("properties")
        if not properties:
            raise _Unrepresentable(f"{where} is an object without declared properties, which Gemini refuses")
        out["properties"] = {name: gemini_schema(sub, f"{where}.{name}", notes) for name, sub in properties.items()}
        required = [name for name in schema.get("required", []) if name in properties]
        if required:
            out["required"] = required
        if "additionalProperties" in schema and where != "parameters":
            notes.append(f"{where}: additionalProperties dropped (not in Gemini's schema)")
    elif kind == "array":
        if "items" not in schema:
            raise _Unrepresentable(
                f"{where} is an array without an item type, which Gemini refuses (declare it as array[T])"
            )
        out["items"] = gemini_schema(schema["items"], f"{where}[]", notes)
    return out


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
