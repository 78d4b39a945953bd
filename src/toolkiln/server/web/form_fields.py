"""The test panel's form, made from a tool's parameters (JSON Schema), and its values read back.

Each parameter is one field: a number or integer input, a text input (a date picker for a
`format: date` string), a checkbox (a select
of true/false/not given when the boolean is optional), a select for an enum, a small table
for an array of objects (a column per field: declared ones, else those of the tool's
examples), a textarea of one item a line for other arrays, and JSON for the rest. Form names
are `arg.NAME`, and `arg.NAME.ROW.FIELD` in a table. A value that cannot be its type is
R0517, naming the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.server.problems import diagnostic

PREFIX = "arg."
TABLE_ROWS = 4  # empty rows offered; rows left empty are not sent
_INTEGER = re.compile(r"^[+-]?\d{1,300}$", re.ASCII)  # longer is no argument a tool could take
_NUMBER = re.compile(r"^[+-]?(\d{1,300}(\.\d{0,300})?|\.\d{1,300})([eE][+-]?\d{1,4})?$", re.ASCII)
SCALARS = ("number", "integer", "text", "date", "boolean", "enum", "json")


@dataclass(frozen=True)
class Field:
    name: str
    kind: str  # one of SCALARS, "table", "lines"
    required: bool
    description: str = ""
    options: tuple[tuple[str, str], ...] = ()  # enum: (form value: JSON, label)
    columns: tuple[Field, ...] = ()  # table
    item_kind: str = "text"  # lines: the kind of each line
    default: Any = None
    rows: int = TABLE_ROWS

    @property
    def input_name(self) -> str:
        return PREFIX + self.name

    @property
    def help(self) -> str:
        """The line under the field: its description, then how to fill it in."""
        parts = [self.description.rstrip(". ") + "." if self.description else ""]
        parts.append({"lines": f"One {self.item_kind} a line.", "json": "JSON."}.get(self.kind, ""))
        if not self.required:
            parts.append("Optional" + ("." if self.default is None else f", default {json.dumps(self.default)}."))
        return " ".join(p for p in parts if p)

    def cell_name(self, row: int, column: str) -> str:
        return f"{PREFIX}{self.name}.{row}.{column}"


def _type_of(spec: Mapping[str, Any]) -> str:
    declared = spec.get("type", "any")
    if isinstance(declared, list):  # nullable: [T, "null"]
        declared = next((t for t in declared if t != "null"), "any")
    return str(declared)


def _scalar_kind(spec: Mapping[str, Any]) -> str:
    if "enum" in spec:
        return "enum"
    if spec.get("format") == "date":
        return "date"  # the browser's date picker gives ISO 8601, as the tool takes it
    return {"number": "number", "integer": "integer", "string": "text", "boolean": "boolean"}.get(
        _type_of(spec), "json"
    )


def form_fields(schema: Mapping[str, Any], examples: list[dict[str, Any]] | None = None) -> list[Field]:
    """The fields of a tool's parameters; `examples` name the columns of undeclared objects."""
    required = set(schema.get("required", []))
    found = []
    for name, spec in schema.get("properties", {}).items():
        found.append(_field(name, spec, name in required, examples or []))
    return found


def _field(name: str, spec: Mapping[str, Any], required: bool, examples: list[dict[str, Any]]) -> Field:
    base = Field(name, "json", required, str(spec.get("description", "")), default=spec.get("default"))
    if _type_of(spec) != "array":
        options = tuple((json.dumps(v), str(v)) for v in spec.get("enum", []))
        return replace(base, kind=_scalar_kind(spec), options=options)
    items = spec.get("items", {})
    if _type_of(items) != "object":
        kind = _scalar_kind(items)
        return replace(base, kind="lines" if kind in ("number", "integer", "text") else "json", item_kind=kind)
    columns = _columns(name, items, examples)
    if not columns:
        return base
    shown = max((len(e.get("args", {}).get(name) or []) for e in examples), default=0)
    return replace(base, kind="table", columns=columns, rows=max(TABLE_ROWS, shown))


def _columns(name: str, items: Mapping[str, Any], examples: list[dict[str, Any]]) -> tuple[Field, ...]:
    declared = items.get("properties")
    if declared:
        needed = set(items.get("required", []))
        return tuple(Field(key, _scalar_kind(spec), key in needed) for key, spec in declared.items())
    seen: dict[str, None] = {}
    for example in examples:
        rows = example.get("args", {}).get(name)
        for row in rows if isinstance(rows, list) else []:
            for key in row if isinstance(row, dict) else []:
                seen.setdefault(str(key), None)
    return tuple(Field(key, "cell", False) for key in seen)  # types unknown: each cell is JSON, else text


class FormValues(Exception):
    """Values that are not their fields' types: R0517 diagnostics, one per field."""

    def __init__(self, problems: list[dict[str, Any]]) -> None:
        super().__init__(f"{len(problems)} value(s) not valid")
        self.problems = problems


def read_arguments(fields: list[Field], form: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments typed into the form; an empty optional field is left out (its default)."""
    args: dict[str, Any] = {}
    problems: list[dict[str, Any]] = []
    for spec in fields:
        try:
            value = _read_field(spec, form)
        except NotItsType as error:
            problems.append(diagnostic(codes.FORM_VALUE_INVALID, f"{error.path}: {error}", path=error.path))
            continue
        if value is not _MISSING:
            args[spec.name] = value
    if problems:
        raise FormValues(problems)
    return args


_MISSING = object()


class NotItsType(Exception):
    """One value that is not its field's type; `path` names the field."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


def _read_field(spec: Field, form: Mapping[str, Any]) -> Any:
    if spec.kind == "table":
        return _read_table(spec, form)
    raw = str(form.get(spec.input_name, ""))
    if spec.kind == "boolean":
        if spec.required:
            return raw == "on"
        return _MISSING if raw == "" else raw == "true"
    if spec.kind == "lines":
        lines = [line.strip() for line in raw.splitlines() if line.strip()]
        if not lines and not spec.required:
            return _MISSING
        return [_scalar(spec.item_kind, line, f"{spec.name}[{i}]") for i, line in enumerate(lines)]
    if raw.strip() == "" and (spec.kind != "text" or not spec.required):
        return _MISSING
    return _scalar(spec.kind, raw, spec.name)


def _read_table(spec: Field, form: Mapping[str, Any]) -> Any:
    rows: list[dict[str, Any]] = []
    for row in range(spec.rows):
        cells = {c.name: str(form.get(spec.cell_name(row, c.name), "")) for c in spec.columns}
        if not any(v.strip() for v in cells.values()):
            continue
        rows.append(
            {
                c.name: _scalar(c.kind, cells[c.name], f"{spec.name}[{len(rows)}].{c.name}")
                for c in spec.columns
                if cells[c.name].strip() or c.kind == "text"
            }
        )
    return _MISSING if not rows and not spec.required else rows


def _scalar(kind: str, raw: str, path: str) -> Any:
    text = raw.strip()
    if kind == "text":
        return raw
    if kind == "date":
        return text
    if kind == "integer":
        if not _INTEGER.match(text):
            raise NotItsType(f"{text[:40]!r} is not a whole number", path)
        return int(text)
    if kind == "number":
        if not _NUMBER.match(text):
            raise NotItsType(f"{text[:40]!r} is not a number", path)
        return int(text) if _INTEGER.match(text) else float(text)
    if kind == "boolean":
        return text in ("true", "on")
    try:
        return json.loads(text)  # enum values are JSON; so are cells and fields of unknown type
    except (ValueError, RecursionError):  # RecursionError: brackets nested past Python's stack
        if kind == "cell":
            return raw  # a table cell of unknown type that is not JSON: text
        if kind == "enum":
            raise NotItsType(f"{text[:40]!r} is not one of the choices", path) from None
        raise NotItsType(f"{text[:40]!r} is not JSON", path) from None
