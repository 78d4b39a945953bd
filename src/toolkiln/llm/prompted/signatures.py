"""The system prompt of prompted tools: each tool as a TypeScript-like signature with JSDoc and
examples, all generated from its JSON Schema.

    /**
     * Fetch a web page ...
     * @param {string} uri the http or https address
     * @param {number} timeoutMs how long to wait ... (an integer, 1 to 60000)
     * @returns {string}
     * @example return wget("https://example.com", 5000);
     */
    wget(string uri, number timeoutMs): string
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from toolkiln.llm.prompted.tools import PromptedTool, parameters_of
from toolkiln.syntax.tool_calls import format_literal

MIN_EXAMPLES = 3
_SCHEMA_DEPTH = 6  # deeper parts of a schema are shown as `any`: a prompt, not a validator

PROTOCOL = """\
You can call tools. To call them, write a fenced block like this one:

```tool
return functionName(firstArgument, secondArgument);
```

Arguments are JavaScript literals given in the order of the signature: strings in quotes,
numbers, true, false, null, [arrays] and {objects}. A block may hold several calls, one per
line, and run in order; their results come back in the next message. Never write a result
yourself: wait for it. When you have everything you need, call finalResponse(); its result
tells you how to write your final answer.

The tools:
"""


def tool_prompt(tools: Sequence[PromptedTool]) -> str:
    """The protocol and every tool's signature, JSDoc and examples, for a system prompt."""
    return PROTOCOL + "\n" + "\n\n".join(describe_tool(tool) for tool in tools) + "\n"


def describe_tool(tool: PromptedTool) -> str:
    properties, required = parameters_of(tool.parameters)
    lines = [f" * {line}".rstrip() for line in _safe(tool.description).splitlines() or [""]]
    for name, schema in properties.items():
        note = _note(schema)
        text = _safe(" ".join(filter(None, [str(schema.get("description", "")), note])))
        lines.append(f" * @param {{{ts_type(schema)}}} {name}{_optional(name, required)} {text}".rstrip())
    lines.append(f" * @returns {{{tool.returns}}}")
    lines += [f" * @example {call_text(tool.name, arguments)}" for arguments in examples(tool)]
    return "/**\n" + "\n".join(lines) + "\n */\n" + signature(tool)


def signature(tool: PromptedTool) -> str:
    """`wget(string uri, number timeoutMs): string`; an optional parameter shows its default
    (null when it has none: null and leaving it out mean the same)."""
    properties, required = parameters_of(tool.parameters)
    parameters = []
    for name, schema in properties.items():
        text = f"{ts_type(schema)} {name}"
        if name not in required:
            text += f" = {_literal(schema.get('default'))}"
        parameters.append(text)
    return f"{tool.name}({', '.join(parameters)}): {tool.returns}"


def call_text(name: str, arguments: Sequence[Any]) -> str:
    return f"return {name}({', '.join(format_literal(value) for value in arguments)});"


def ts_type(schema: Any, depth: int = 0) -> str:
    """A JSON Schema as a TypeScript-like type: `number`, `string[]`, `"a" | "b"`, `{ x: number }`."""
    if not isinstance(schema, Mapping) or depth > _SCHEMA_DEPTH:
        return "any"
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return " | ".join(_literal(value) for value in schema["enum"])
    for combined in ("anyOf", "oneOf"):
        if isinstance(schema.get(combined), list) and schema[combined]:
            return " | ".join(ts_type(option, depth + 1) for option in schema[combined])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(ts_type({**schema, "type": one}, depth + 1) for one in kind) or "any"
    match kind:
        case "string" | "boolean" | "null":
            return str(kind)
        case "number" | "integer":
            return "number"
        case "array":
            item = ts_type(schema.get("items"), depth + 1)
            return f"({item})[]" if " " in item else f"{item}[]"
        case "object":
            properties, required = parameters_of(schema)
            if not properties:
                return "object"
            fields = (
                f"{name}{'' if name in required else '?'}: {ts_type(sub, depth + 1)}"
                for name, sub in properties.items()
            )
            return "{ " + ", ".join(fields) + " }"
    return "any"


def examples(tool: PromptedTool) -> list[tuple[Any, ...]]:
    """The tool's own examples, then generated ones up to MIN_EXAMPLES; a tool without
    parameters has the one way to call it."""
    properties, required = parameters_of(tool.parameters)
    if not properties:
        return [()]
    shown = list(tool.examples)
    variant = 0
    while len(shown) < MIN_EXAMPLES:
        shown.append(_generated(properties, required, variant))
        variant += 1
    return shown


def _generated(properties: Mapping[str, Any], required: set[str], variant: int) -> tuple[Any, ...]:
    """Arguments of the `variant`th example: values the schema suggests, the second example
    leaving out the optional parameters at the end."""
    names = list(properties)
    if variant == 1:
        while names and names[-1] not in required:
            names.pop()
    return tuple(sample(properties[name], name, variant) for name in names)


# ISO 8601 text, as a `date` / `datetime` parameter publishes its format.
_DATE_SAMPLES = {
    "date": ("2026-01-31", "2026-02-28", "2026-12-01"),
    "date-time": ("2026-01-31T09:30:00Z", "2026-02-28T17:00:00+01:00", "2026-12-01T00:00:00Z"),
}


def sample(schema: Any, name: str, variant: int, depth: int = 0) -> Any:
    """A value of `schema` for an example: its examples, enum or default first."""
    if not isinstance(schema, Mapping) or depth > _SCHEMA_DEPTH:
        return None
    for listed in ("examples", "enum"):
        if isinstance(schema.get(listed), list) and schema[listed]:
            return schema[listed][variant % len(schema[listed])]
    if "default" in schema and variant == 0:
        return schema["default"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((one for one in kind if one != "null"), None)
    match kind:
        case "string":
            if schema.get("format") in _DATE_SAMPLES:
                return _DATE_SAMPLES[schema["format"]][variant % 3]
            if schema.get("format") == "uri":
                return ("https://example.com", "https://example.org/page", "https://api.example.net/items?id=7")[
                    variant % 3
                ]
            return (f"{name} text", f"another {name}", f"{name} 3")[variant % 3]
        case "integer" | "number":
            values: tuple[Any, ...] = (1, 12, 250) if kind == "integer" else (1, Decimal("2.5"), 100)
            return _bounded(values[variant % 3], schema)
        case "boolean":
            return variant % 2 == 0
        case "array":
            return [sample(schema.get("items"), name, variant + i, depth + 1) for i in range(variant % 3 + 1)]
        case "object":
            properties, _ = parameters_of(schema)
            return {key: sample(sub, key, variant, depth + 1) for key, sub in properties.items()}
    return (f"{name} text", 2, True)[variant % 3]


def _bounded(value: Any, schema: Mapping[str, Any]) -> Any:
    low, high = schema.get("minimum"), schema.get("maximum")
    if isinstance(low, int | float | Decimal) and value < low:
        return low
    if isinstance(high, int | float | Decimal) and value > high:
        return high
    return value


def _optional(name: str, required: set[str]) -> str:
    return "" if name in required else "?"


def _note(schema: Mapping[str, Any]) -> str:
    """What the type alone does not say: an integer, the bounds, the default."""
    notes = []
    if schema.get("type") == "integer":
        notes.append("an integer")
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        notes.append(f"{low} to {high}")
    elif low is not None:
        notes.append(f"at least {low}")
    elif high is not None:
        notes.append(f"at most {high}")
    if "default" in schema:
        notes.append(f"default {_literal(schema['default'])}")
    return f"({', '.join(notes)})" if notes else ""


def _literal(value: Any) -> str:
    try:
        return format_literal(value)
    except (TypeError, ValueError):
        return "null"


def _safe(text: str) -> str:
    """Text inside a /** */ comment cannot end it."""
    return text.replace("*/", "*\\/")
