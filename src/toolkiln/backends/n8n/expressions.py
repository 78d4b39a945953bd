"""Compute expressions -> n8n expressions (`={{ ... }}`, JavaScript inside).

Only what keeps its meaning is translated: arithmetic (`+ - * / % **`), comparisons, `and`,
`or`, `not`, `in`, conditionals, field access, indexing, lists, comprehensions, literals and
the built-in functions in `_FUNCTIONS`. Everything else raises `Untranslatable`, which the
emitter reports as E0706 at the expression's span. A value used more than once in the
JavaScript (the container of `in`, the number `round` rounds) is bound once through an arrow
function, so the expression is evaluated once, as toolkiln does.

Where JavaScript differs (docs/workflows.md): numbers are binary doubles, not exact decimals
(`0.1 + 0.2` is 0.30000000000000004 in n8n); division or `%` by zero, an index outside a list
and `min` of an empty list give Infinity, NaN or undefined instead of an error; `+` on two
values of unknown type concatenates when they are strings.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import assert_never

from toolkiln.ast import compute as n
from toolkiln.ast.spans import Span

_OPERATORS = {
    "+": "+",
    "-": "-",
    "*": "*",
    "/": "/",
    "%": "%",
    "**": "**",
    "==": "===",
    "!=": "!==",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
    "and": "&&",
    "or": "||",
}
# `k in c`: a substring, a list item (SameValueZero, no coercion, like toolkiln's equality) or
# an object key.
_CONTAINS = (
    "((c, k) => typeof c === 'string' || Array.isArray(c) ? c.includes(k) : Object.hasOwn(c, k))({container}, {item})"
)
_EXTREME = "((...v) => Math.{which}(...(v.length === 1 && Array.isArray(v[0]) ? v[0] : v)))({args})"
_SUM = "({values}).reduce((a, b) => a + b, 0)"

# name -> (numbers of arguments accepted, JavaScript template over the translated arguments)
_FUNCTIONS: dict[str, tuple[range, Callable[..., str]]] = {
    "abs": (range(1, 2), lambda x: f"Math.abs({x})"),
    "floor": (range(1, 2), lambda x: f"Math.floor({x})"),
    "ceil": (range(1, 2), lambda x: f"Math.ceil({x})"),
    "sqrt": (range(1, 2), lambda x: f"Math.sqrt({x})"),
    # Half away from zero, as toolkiln rounds (JavaScript's Math.round rounds -2.5 to -2).
    "round": (range(1, 2), lambda x: f"((v) => Math.sign(v) * Math.round(Math.abs(v)))({x})"),
    "clamp": (range(3, 4), lambda x, low, high: f"Math.min(Math.max({x}, {low}), {high})"),
    "min": (range(1, 64), lambda *args: _EXTREME.format(which="min", args=", ".join(args))),
    "max": (range(1, 64), lambda *args: _EXTREME.format(which="max", args=", ".join(args))),
    "sum": (range(1, 2), lambda values: _SUM.format(values=values)),
    "avg": (range(1, 2), lambda values: f"((l) => {_SUM.format(values='l')} / l.length)({values})"),
    "count": (range(1, 2), lambda values: f"({values}).length"),
    "any": (range(1, 2), lambda values: f"({values}).some((b) => b)"),
    "all": (range(1, 2), lambda values: f"({values}).every((b) => b)"),
    "contains": (range(2, 3), lambda container, item: _CONTAINS.format(container=container, item=item)),
    "get": (
        range(2, 4),
        lambda obj, key, default="null": f"((o, k, d) => Object.hasOwn(o, k) ? o[k] : d)({obj}, {key}, {default})",
    ),
    "coalesce": (
        range(1, 64),
        lambda *args: f"([{', '.join(args)}].find((v) => v !== null && v !== undefined) ?? null)",
    ),
    "upper": (range(1, 2), lambda x: f"String({x}).toUpperCase()"),
    "lower": (range(1, 2), lambda x: f"String({x}).toLowerCase()"),
    "trim": (range(1, 2), lambda x: f"String({x}).trim()"),
    "starts_with": (range(2, 3), lambda text, prefix: f"String({text}).startsWith({prefix})"),
    "ends_with": (range(2, 3), lambda text, suffix: f"String({text}).endsWith({suffix})"),
    "replace": (range(3, 4), lambda text, old, new: f"String({text}).replaceAll({old}, {new})"),
    "len": (
        range(1, 2),
        lambda x: f"((v) => typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).length : v.length)({x})",
    ),
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
    """The JavaScript for `expr`; `root(name)` gives the JavaScript for a name it reads from
    outside (a step, the trigger's data)."""
    return _Translator(root).js(expr, frozenset())


class _Translator:
    def __init__(self, root: Callable[[n.Name], str]) -> None:
        self.root = root

    def js(self, expr: n.Expr, bound: frozenset[str]) -> str:
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
                return _local(expr.name) if expr.name in bound else self.root(expr)
            case n.Field_():
                return f"{self.js(expr.target, bound)}.{expr.name}"
            case n.Unary():
                operand = self.js(expr.operand, bound)
                return {"-": f"(-{operand})", "+": operand, "not": f"(!{operand})"}[expr.op]
            case n.Binary():
                return self.binary(expr, bound)
            case n.Conditional():
                return f"({self.js(expr.test, bound)} ? {self.js(expr.then, bound)} : {self.js(expr.otherwise, bound)})"
            case n.Call():
                return self.call(expr, bound)
            case n.Index():
                return (
                    f"((c, i) => Array.isArray(c) || typeof c === 'string' ? c.at(i) : c[i])"
                    f"({self.js(expr.target, bound)}, {self.js(expr.index, bound)})"
                )
            case n.ListExpr():
                return "[" + ", ".join(self.js(item, bound) for item in expr.items) + "]"
            case n.Comprehension():
                return self.comprehension(expr, bound)
            case _:
                assert_never(expr)

    def binary(self, expr: n.Binary, bound: frozenset[str]) -> str:
        left, right = self.js(expr.left, bound), self.js(expr.right, bound)
        if expr.op in ("in", "not in"):
            contains = _CONTAINS.format(container=right, item=left)
            return contains if expr.op == "in" else f"(!{contains})"
        return f"({left} {_OPERATORS[expr.op]} {right})"

    def call(self, expr: n.Call, bound: frozenset[str]) -> str:
        known = _FUNCTIONS.get(expr.function)
        if known is None or len(expr.args) not in known[0]:
            hint = (
                "round to whole numbers only: JavaScript doubles round 2.675 to 2.67"
                if expr.function == "round"
                else f"functions that translate: {', '.join(TRANSLATED_FUNCTIONS)}"
            )
            raise Untranslatable(f"`{expr.function}(...)` has no n8n translation", expr.span, hint)
        return known[1](*(self.js(arg, bound) for arg in expr.args))

    def comprehension(self, expr: n.Comprehension, bound: frozenset[str]) -> str:
        inner = bound | {expr.var}
        var = _local(expr.var)
        text = f"({self.js(expr.iterable, bound)})"
        if expr.condition is not None:
            text += f".filter(({var}) => {self.js(expr.condition, inner)})"
        if not (isinstance(expr.element, n.Name) and expr.element.name == expr.var):
            text += f".map(({var}) => {self.js(expr.element, inner)})"
        return text


def _local(name: str) -> str:
    """A comprehension variable in JavaScript: prefixed, so no name is a JavaScript keyword or
    one of n8n's `$` variables."""
    return f"v_{name}"
