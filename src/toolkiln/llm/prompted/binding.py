"""From a parsed call to a tool and its named arguments, or the diagnostic of why not (E0903,
E0904): positional arguments take the parameters in the signature's order and are checked
against each parameter's JSON Schema before anything runs."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.llm.prompted.signatures import signature
from toolkiln.llm.prompted.tools import PromptedTool, parameters_of
from toolkiln.syntax.tool_calls import ParsedCall


def bind(call: ParsedCall, tools: Mapping[str, PromptedTool]) -> tuple[PromptedTool, dict[str, Any]] | Diagnostic:
    tool = tools.get(call.name)
    if tool is None:
        close = difflib.get_close_matches(call.name, list(tools), n=1)
        return Diagnostic.of(
            codes.UNKNOWN_PROMPTED_TOOL,
            f"there is no tool `{call.name[:64]}`",
            call.span,
            hint=f"did you mean `{close[0]}`?" if close else f"the tools are: {', '.join(tools)}",
        )
    properties, required = parameters_of(tool.parameters)
    names = list(properties)
    if len(call.arguments) > len(names):
        return _wrong(call, tool, f"`{tool.name}` takes {_count(len(names))}, not {len(call.arguments)}")
    arguments: dict[str, Any] = {}
    for position, name in enumerate(names):
        value = call.arguments[position] if position < len(call.arguments) else None
        if value is None:  # left out, or null: the same for an optional parameter
            if name in required:
                return _wrong(call, tool, f"`{tool.name}` needs `{name}`, its {_ordinal(position)} argument")
            continue
        problem = _type_problem(properties[name], value)
        if problem is not None:
            return _wrong(call, tool, f"argument `{name}` ({_ordinal(position)}): {problem}")
        arguments[name] = value
    return tool, arguments


def _type_problem(schema: Any, value: Any) -> str | None:
    """The first way `value` fails `schema`; a schema too broken to check lets the tool decide."""
    if not isinstance(schema, Mapping):
        return None
    try:
        error = next(iter(Draft202012Validator(schema).iter_errors(value)), None)
    except (SchemaError, RecursionError, TypeError):
        return None
    return None if error is None else error.message[:300]


def _wrong(call: ParsedCall, tool: PromptedTool, message: str) -> Diagnostic:
    return Diagnostic.of(codes.PROMPTED_TOOL_ARGUMENTS, message, call.span, hint=f"the signature is {signature(tool)}")


def _count(number: int) -> str:
    return "no arguments" if number == 0 else "1 argument" if number == 1 else f"{number} arguments"


def _ordinal(position: int) -> str:
    number = position + 1
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"
