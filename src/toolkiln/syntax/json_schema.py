"""The JSON Schema of the JSON DSL (a tool definition, or bare logic `{"steps": [...]}`),
written from the tables the JSON front end checks against (json_front.py): its steps and
their fields, the definition's fields, parameters and tables. Editors validate and complete
tool files with it; `toolkiln schema tool` prints it, and the package ships it as
`schemas/tool.schema.json` (a test keeps the two equal).

The schema says what a file's shape is; the front end says more (expressions that parse,
names that are not reserved words, types that check): a file the schema accepts may still
have diagnostics, and a file the front end accepts always validates.
"""

from __future__ import annotations

import json
from typing import Any

from toolkiln.ast.types import DECLARABLE, STRING_FORMATS
from toolkiln.syntax.json_front import DEFINITION_FIELDS, PARAMETER_FIELDS, STEP_FIELDS, TABLE_FIELDS
from toolkiln.syntax.words import RISK_LEVELS, TOOL_NAME

NAME = {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"}
# An expression: its text, or a JSON number, boolean or null standing for itself, or an
# object (a record of expressions).
EXPRESSION = {"type": ["string", "number", "boolean", "null", "object"]}
STEPS = {"type": "array", "items": {"$ref": "#/$defs/step"}}
# What each field of a step holds.
STEP_VALUES: dict[str, dict[str, Any]] = {
    "expression": EXPRESSION,
    "value": EXPRESSION,
    "if": EXPRESSION,
    "key": EXPRESSION,
    "default": EXPRESSION,
    "output": NAME,
    "table": NAME,
    "tool": {"type": "string", "pattern": f"^{TOOL_NAME.pattern}$"},
    "template": {"type": "string"},
    "args": {"type": "object", "additionalProperties": EXPRESSION},
    "then": STEPS,
    "else": STEPS,
}
TYPE_NAME = {"enum": list(DECLARABLE)}
DECLARED_TYPE = {
    "anyOf": [TYPE_NAME, {"type": "array", "items": {"enum": [*DECLARABLE, "null"]}, "minItems": 2, "maxItems": 2}]
}
DECLARATION_VALUES: dict[str, dict[str, Any]] = {
    "type": DECLARED_TYPE,
    "description": {"type": "string"},
    "default": {"type": ["number", "string", "boolean", "null", "array"]},
    "items": {"$ref": "#/$defs/items"},
    "properties": {"type": "object", "additionalProperties": {"$ref": "#/$defs/items"}},
    "required": {"type": "array", "items": {"type": "string"}},
    "format": {"enum": list(STRING_FORMATS.values())},
}


def schema_text(schema: dict[str, Any]) -> str:
    """A schema as the package ships it (and `toolkiln schema` prints it)."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def tool_schema() -> dict[str, Any]:
    definition_required, definition_optional = DEFINITION_FIELDS
    definition_values = {
        "name": {"type": "string", "pattern": f"^{TOOL_NAME.pattern}$"},
        "description": {"type": "string"},
        "logic": {"$ref": "#/$defs/logic"},
        "parameters": {"type": "object", "additionalProperties": {"$ref": "#/$defs/parameter"}},
        "tables": {"type": "object", "additionalProperties": {"$ref": "#/$defs/table"}},
        "riskLevel": {"enum": list(RISK_LEVELS)},
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "toolkiln tool (JSON DSL)",
        "description": 'A tool definition, or bare logic {"steps": [...]} (docs/language.md#the-json-format).',
        "anyOf": [{"$ref": "#/$defs/definition"}, {"$ref": "#/$defs/logic"}],
        "$defs": {
            "definition": _object(definition_required, definition_optional, definition_values),
            "logic": _object(frozenset({"steps"}), frozenset(), {"steps": STEPS}),
            "step": {"oneOf": [_step(op) for op in STEP_FIELDS]},
            "parameter": _object(*PARAMETER_FIELDS, DECLARATION_VALUES),
            "table": _object(*TABLE_FIELDS, DECLARATION_VALUES),
            "items": {
                "type": "object",
                "properties": {key: DECLARATION_VALUES[key] for key in ("type", "items", "properties", "required")},
            },
        },
    }


def _step(op: str) -> dict[str, Any]:
    required, optional = STEP_FIELDS[op]
    step = _object(required, optional, STEP_VALUES)
    step["properties"] = {"op": {"const": op}, **step["properties"]}
    step["required"] = ["op", *step["required"]]
    return step


def _object(required: frozenset[str], optional: frozenset[str], values: dict[str, Any]) -> dict[str, Any]:
    fields = sorted(required | optional)
    return {
        "type": "object",
        "properties": {field: values[field] for field in fields},
        "required": sorted(required),
        "additionalProperties": False,
    }
