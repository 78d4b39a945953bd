"""The JSON Schema of a script or executable tool definition (`toolkiln schema program`),
written from what `parse_program` checks (program_tools.py): the fields each kind needs and
may have, the runtimes, policies, sandboxes, the timeout's range, secret names. Like the JSON
DSL's schema (syntax/json_schema.py) it gives a definition's shape; `parse_program` says
more (a body that is not blank, an executable's file and its SHA-256)."""

from __future__ import annotations

from typing import Any

from toolkiln.executables.policy import MAX_TIMEOUT_SECONDS, SANDBOX_KINDS
from toolkiln.executables.program_tools import (
    CHANGEABLE,
    MAX_SECRETS,
    PERMISSIONS,
    PROGRAM_KINDS,
    REQUIRED,
    RUNTIMES,
    SECRET_NAME,
    ProgramKind,
)
from toolkiln.syntax.words import RISK_LEVELS, TOOL_NAME

FIELD_VALUES: dict[str, dict[str, Any]] = {
    "name": {"type": "string", "pattern": f"^{TOOL_NAME.pattern}$"},
    "description": {"type": "string", "minLength": 1},
    "runtime": {"enum": list(RUNTIMES)},
    "body": {"type": "string", "minLength": 1},
    "path": {"type": "string", "pattern": "^/"},
    "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
    "parameters": {
        "type": "object",
        "properties": {"type": {"const": "object"}},
        "required": ["type"],
        "description": "a JSON Schema of the arguments",
    },
    "policy": {"enum": list(PERMISSIONS)},
    "network": {"type": "boolean"},
    "timeout_secs": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TIMEOUT_SECONDS},
    "sandbox": {"enum": list(SANDBOX_KINDS)},
    "riskLevel": {"enum": list(RISK_LEVELS)},
    "secrets": {
        "type": "array",
        "maxItems": MAX_SECRETS,
        "items": {"type": "string", "pattern": f"^{SECRET_NAME.pattern}$", "not": {"pattern": "^TK_ARG_"}},
    },
}


def program_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "toolkiln script or executable tool definition",
        "description": "What the registry takes to create a script or executable tool (docs/executables.md).",
        "oneOf": [_kind(kind) for kind in PROGRAM_KINDS],
    }


def _kind(kind: ProgramKind) -> dict[str, Any]:
    fields = list(dict.fromkeys((*REQUIRED[kind], *CHANGEABLE[kind])))
    properties = {field: FIELD_VALUES[field] for field in fields if field != "kind"}
    return {
        "type": "object",
        "properties": {"kind": {"const": kind}, **properties},
        "required": list(REQUIRED[kind]),
        "additionalProperties": False,
    }
