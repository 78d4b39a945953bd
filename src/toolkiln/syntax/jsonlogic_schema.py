"""A JsonLogic rule's data schema (JSON Schema) as the type of the imported tool's `data`."""

from __future__ import annotations

from typing import Any

from toolkiln.ast.spans import json_path, path_span
from toolkiln.ast.types import ANY, DECLARABLE, Type, array_of, or_null, record_of
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic

MAX_SCHEMA_DEPTH = 32


def schema_type(schema: Any) -> tuple[Type, list[Diagnostic]]:
    """The type a JSON Schema describes (`type`, `items`, `properties`, `required`, a
    nullable `["T", "null"]`), or the diagnostics of what it cannot read."""
    problems: list[Diagnostic] = []
    type_ = _type(schema, ("data_schema",), problems, 0)
    return type_, problems


def _problem(problems: list[Diagnostic], message: str, path: tuple[str | int, ...]) -> Type:
    problems.append(Diagnostic.of(codes.JSONLOGIC_NOT_A_RULE, message, path_span(json_path(path))))
    return ANY


def _type(schema: Any, path: tuple[str | int, ...], problems: list[Diagnostic], depth: int) -> Type:
    if depth > MAX_SCHEMA_DEPTH:
        return _problem(problems, f"the data schema nests deeper than {MAX_SCHEMA_DEPTH} levels", path)
    if schema is True or schema == {}:
        return ANY
    if not isinstance(schema, dict):
        return _problem(problems, "a data schema is a JSON Schema object", path)
    name = schema.get("type", "any")
    nullable = isinstance(name, list) and len(name) == 2 and "null" in name
    if nullable:
        name = next(item for item in name if item != "null")
    if name not in DECLARABLE or name in ("date", "datetime"):
        return _problem(problems, f"the data schema's type {name!r} is not one of {', '.join(DECLARABLE[:7])}", path)
    type_ = Type(name=name)
    if name == "array":
        type_ = array_of(_type(schema.get("items", {}), (*path, "items"), problems, depth + 1))
    elif name == "object" and isinstance(schema.get("properties"), dict):
        required = schema.get("required", [])
        fields = []
        for key, spec in schema["properties"].items():
            field_type = _type(spec, (*path, "properties", key), problems, depth + 1)
            fields.append((key, field_type if key in required else or_null(field_type)))
        type_ = record_of(tuple(fields))
    return or_null(type_) if nullable else type_
