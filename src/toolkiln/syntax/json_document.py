"""What a JSON document is made of, for the JSON front end: reading the text with every number
exact, the shape a walk may take, a value's JSON type and how it is quoted in a message, and
the words models write for ops and program fields. (Split from json_front.py, which walks a
document into a Program.)"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.spans import LineIndex, Span, json_path, path_span
from toolkiln.ast.types import DECLARABLE
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic, Fix
from toolkiln.syntax.expressions import ParseContext
from toolkiln.syntax.json_data import path_of, walk_json
from toolkiln.syntax.json_positions import KEY_SUFFIX
from toolkiln.syntax.limits import MAX_DEPTH, MAX_LITERAL_DIGITS, MAX_LITERAL_ITEMS, MAX_SOURCE_CHARS

Path = tuple[str | int, ...]


def load_json(text: str) -> tuple[Any, list[Diagnostic]]:
    """Parse JSON text, keeping every number exact."""
    if len(text) > MAX_SOURCE_CHARS:
        return None, [
            Diagnostic.of(
                codes.SOURCE_TOO_LARGE, f"source has {len(text):,} characters; the limit is {MAX_SOURCE_CHARS:,}", None
            )
        ]
    try:
        return json.loads(text, parse_float=Decimal), []
    except json.JSONDecodeError as error:
        span = LineIndex(text).span(error.pos, min(error.pos + 1, len(text)))
        return None, [
            Diagnostic.of(
                codes.INVALID_JSON,
                f"invalid JSON: {error.msg}",
                span,
                hint="JSON allows no comments, trailing commas or single quotes",
            )
        ]
    except RecursionError:
        return None, [Diagnostic.of(codes.TOO_DEEP, "JSON nested too deeply", None)]
    except ValueError:  # Python refuses to convert an integer of more than 4,300 digits
        return None, [
            Diagnostic.of(codes.LITERAL_TOO_LARGE, f"a JSON number has more than {MAX_LITERAL_DIGITS} digits", None)
        ]


# How deep a document may nest: a condition nested MAX_DEPTH levels takes two JSON levels
# (the step and its `then` list) each, and a literal below it MAX_DEPTH more.
MAX_DOCUMENT_DEPTH = 3 * MAX_DEPTH + 16


def shape_problem(obj: Any) -> tuple[codes.Code, str, Path] | None:
    """What makes `obj` no JSON document the front end can walk: a key that is not a string,
    or nesting deeper than MAX_DOCUMENT_DEPTH. Found without recursion (a dict source is
    Python data, and may hold anything)."""
    for value, trail, depth in walk_json(obj):
        if depth > MAX_DOCUMENT_DEPTH and isinstance(value, (dict, list)):
            return codes.TOO_DEEP, f"the document nests deeper than {MAX_DOCUMENT_DEPTH} levels", path_of(trail)[:8]
        if isinstance(value, dict):
            for key in value:
                if not isinstance(key, str):
                    return (
                        codes.WRONG_JSON_TYPE,
                        f"an object key must be a string, not {type(key).__name__}",
                        path_of(trail),
                    )
    return None


def structural_span(path: Path) -> Span:
    """A span for a JSON value that is not itself parsed text: only its path is known."""
    return path_span(json_path(path))


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float, Decimal)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


# Ops models write that difflib would match to the wrong op (`calculate` is not `call`).
OP_ALIASES = {
    "calc": "math",
    "calculate": "math",
    "compute": "math",
    "assign": "math",
    "set": "math",
    "if": "condition",
    "invoke": "call",
    "call_tool": "call",
}


# Fields of a script or an executable tool, which a definition without `kind` is taken not to be.
PROGRAM_FIELDS = {"runtime": "script", "body": "script", "language": "script", "script": "script", "path": "executable"}


def program_kind_hint(obj: dict[str, Any]) -> str | None:
    """When a definition without `kind` and `logic` has a program's fields: which kind it
    looks like, and what that kind is written with."""
    kinds = [PROGRAM_FIELDS[key] for key in obj if key in PROGRAM_FIELDS]
    if not kinds or "logic" in obj or "kind" in obj:
        return None
    if kinds[0] == "script":
        return 'this looks like a script tool: add "kind": "script", with `runtime` ("bash" or "python") and `body`'
    return 'this looks like an executable tool: add "kind": "executable", with `path` (the program\'s absolute path)'


def unknown_op(
    step: dict[str, Any], span: Span, step_fields: dict[str, tuple[frozenset[str], frozenset[str]]]
) -> Diagnostic:
    """E0107 for a step's op at `span`; its fix is the op of the same meaning (`calc` ->
    `math`) when the step's fields are exactly that op's, so no other op could be meant."""
    op = step["op"]
    guess = op_alias(op) or (suggest(op, list(step_fields)) if isinstance(op, str) else None)
    ops = f"op is one of: {', '.join(step_fields)}"
    alias = OP_ALIASES.get(op) if isinstance(op, str) else None
    required, optional = step_fields[alias] if alias is not None else (frozenset(), frozenset())
    fits = alias is not None and required <= step.keys() - {"op"} <= required | optional
    return Diagnostic.of(
        codes.UNKNOWN_OP,
        f"unknown op {shorten(shown_value(op))}",
        span,
        f"{guess} ({ops})" if guess else ops,
        fix=Fix.replace(span, json.dumps(alias)) if fits else None,
    )


# The fields models name otherwise in a step, by op: each rename keeps the value's kind (an
# expression stays an expression, a name a name), so when the step lacks the field and has
# only such names besides its own, the rename is certain.
FIELD_ALIASES: dict[str, dict[str, str]] = {
    "math": {"value": "expression", "formula": "expression", "result": "output", "target": "output"},
    "lookup": {"result": "output", "target": "output"},
    "format": {"text": "template", "result": "output", "target": "output"},
    "call": {"name": "tool", "arguments": "args", "result": "output", "target": "output"},
    "condition": {"condition": "if", "when": "if", "otherwise": "else"},
    "return": {"expression": "value", "result": "value"},
}
Aliases = dict[str, str] | None


def unknown_field(
    obj: dict[str, Any], key: str, path: Path, spec: tuple[frozenset[str], frozenset[str]], what: str, aliases: Aliases
) -> Diagnostic:
    """E0109 for `key` of `obj`; its fix renames the key when `aliases` name it and the rename
    is certain: the field it stands for is absent, no other key stands for it, and every
    other unknown key is an alias too (so the step is that op's, renamed)."""
    required, optional = spec
    allowed = sorted(required | optional)
    target = (aliases or {}).get(key)
    unknown = obj.keys() - required - optional - {"op"}
    certain = (
        target is not None
        and aliases is not None
        and target not in obj
        and all(other in aliases for other in unknown)
        and sum(aliases[other] == target for other in unknown) == 1
    )
    return Diagnostic.of(
        codes.UNKNOWN_FIELD,
        f"{what} has an unknown field `{key}`",
        structural_span(path + (key,)),
        hint=f"did you mean `{target}`?"
        if target
        else suggest(key, allowed) or f"allowed fields: {', '.join(allowed)}",
        fix=Fix.replace(path_span(json_path(path + (key,)) + KEY_SUFFIX), json.dumps(target)) if certain else None,
    )


def op_alias(op: Any) -> str | None:
    alias = OP_ALIASES.get(op) if isinstance(op, str) else None
    return f"did you mean `{alias}`?" if alias else None


def suggest(word: str, options: list[str]) -> str | None:
    import difflib  # (only for a misspelt word: not loaded by every command)

    close = difflib.get_close_matches(word, options, n=1)
    return f"did you mean `{close[0]}`?" if close else None


def shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def with_lark(text: str, ctx: ParseContext) -> n.Expr | None:
    """The Lark parse of an expression the hand-written parser declines. Lark and the tree
    builder load on the first such expression: most JSON tools never need them, and a syntax
    error is explained without them once their tables are kept (syntax/lr_driver.py)."""
    from toolkiln.syntax.lr_driver import explain_syntax_error

    found = explain_syntax_error(text, ctx.index, start="expr_start", base=ctx.base, path=ctx.path)
    if found is not None:
        ctx.diagnostics.append(found)
        return None
    from toolkiln.syntax.builder import parse_expression_with_lark

    return parse_expression_with_lark(text, ctx)


def literal_shape(value: list[Any] | dict[str, Any]) -> tuple[int, int]:
    """How deep lists and records nest in `value` and how many items and fields it holds in
    all, found without recursion; the walk stops once either is past its limit."""
    depth, items = 1, 0
    stack: list[tuple[list[Any] | dict[str, Any], int]] = [(value, 1)]
    while stack:
        current, level = stack.pop()
        items += len(current)
        depth = max(depth, level)
        if depth > MAX_DEPTH or items > MAX_LITERAL_ITEMS:
            break
        members = current.values() if isinstance(current, dict) else current
        stack.extend((item, level + 1) for item in members if isinstance(item, (list, dict)))
    return depth, items


def shown_value(value: Any) -> str:
    """A short JSON-like rendering of an unexpected value for a message: strings and scalars
    as JSON, anything else by its JSON type (never a recursive dump of user data)."""
    if isinstance(value, str):
        return shorten(json.dumps(value))
    if value is None or isinstance(value, (bool, int, float, Decimal)):
        return shorten(json.dumps(value, default=str))
    return f"({json_type(value)})"


def is_nullable(value: Any) -> bool:
    """`["T", "null"]` or `["null", "T"]`: a declarable type T, or null."""
    return (
        isinstance(value, list)
        and len(value) == 2
        and value.count("null") == 1
        and all(isinstance(v, str) and (v == "null" or v in DECLARABLE) for v in value)
    )
