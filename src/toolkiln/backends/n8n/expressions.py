"""Compute expressions -> n8n expressions (`={{ ... }}`, JavaScript inside).

Only what keeps its meaning is translated: arithmetic (`+ - * / **`), comparisons, `and`,
`or`, `not`, conditionals, field access, literals and a few functions. Everything else raises
`Untranslatable`, which the emitter reports as E0706 at the expression's span.

Where JavaScript differs (docs/workflows.md): numbers are binary doubles, not exact decimals
(`0.1 + 0.2` is 0.30000000000000004 in n8n), division by zero gives Infinity instead of an
error, and `+` on two values of unknown type concatenates when they are strings.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import assert_never

from toolkiln.ast import compute as n
from toolkiln.syntax.spans import Span

_OPERATORS = {"+": "+", "-": "-", "*": "*", "/": "/", "**": "**", "==": "===", "!=": "!==",
              "<": "<", "<=": "<=", ">": ">", ">=": ">=", "and": "&&", "or": "||"}
# name -> (number of arguments, JavaScript template over the translated arguments)
_FUNCTIONS: dict[str, tuple[int, Callable[..., str]]] = {
    "abs": (1, lambda x: f"Math.abs({x})"),
    "floor": (1, lambda x: f"Math.floor({x})"),
    "ceil": (1, lambda x: f"Math.ceil({x})"),
    "sqrt": (1, lambda x: f"Math.sqrt({x})"),
    "upper": (1, lambda x: f"String({x}).toUpperCase()"),
    "lower": (1, lambda x: f"String({x}).toLowerCase()"),
    "trim": (1, lambda x: f"String({x}).trim()"),
    "len": (1, lambda x: f"({x}).length"),
}
TRANSLATED_FUNCTIONS = tuple(sorted(_FUNCTIONS))


class Untranslatable(Exception):
    def __init__(self, message: str, span: Span, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint


def js_string(text: str) -> str:
    """A JavaScript string literal; braces are escaped so no `}}` ends the n8n expression."""
    return json.dumps(text, ensure_ascii=False).replace("{", "\\u007b").replace("}", "\\u007d")


def to_js(expr: n.Expr, root: Callable[[n.Name], str]) -> str:
    match expr:
        case n.NumberLit():
            text = str(expr.value)
            return f"({text})" if text.startswith("-") else text
        case n.StringLit():
            return js_string(expr.value)
        case n.BoolLit():
            return "true" if expr.value else "false"
        case n.NullLit():
            return "null"
        case n.Name():
            return root(expr)
        case n.Field_():
            return f"{to_js(expr.target, root)}.{expr.name}"
        case n.Unary():
            operand = to_js(expr.operand, root)
            return {"-": f"(-{operand})", "+": operand, "not": f"(!{operand})"}[expr.op]
        case n.Binary():
            op = _OPERATORS.get(expr.op)
            if op is None:
                hints = {"%": "JavaScript's % keeps the sign of the left operand; compute it in a compute tool"}
                raise Untranslatable(f"`{expr.op}` has no n8n translation", expr.span,
                                     hints.get(expr.op, "compare with == / != instead, or use a compute tool"))
            return f"({to_js(expr.left, root)} {op} {to_js(expr.right, root)})"
        case n.Conditional():
            return f"({to_js(expr.test, root)} ? {to_js(expr.then, root)} : {to_js(expr.otherwise, root)})"
        case n.Call():
            known = _FUNCTIONS.get(expr.function)
            if known is None or known[0] != len(expr.args):
                raise Untranslatable(f"`{expr.function}(...)` has no n8n translation", expr.span,
                                     f"functions that translate: {', '.join(TRANSLATED_FUNCTIONS)}")
            return known[1](*(to_js(arg, root) for arg in expr.args))
        case n.Index() | n.ListExpr() | n.Comprehension():
            raise Untranslatable(f"{_KIND_WORDS[expr.kind]} has no n8n translation yet", expr.span,
                                 "read named fields (`step.field`) instead")
        case _:
            assert_never(expr)


_KIND_WORDS = {"index": "indexing", "list": "a list", "comprehension": "a comprehension"}
