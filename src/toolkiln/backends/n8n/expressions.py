"""Compute expressions -> n8n expressions (`={{ ... }}`, JavaScript inside).

Only what keeps its meaning is translated: arithmetic (`+ - * / % **`), comparisons, `and`,
`or`, `not`, `in`, conditionals, field access, indexing, lists, records, comprehensions, literals and
the built-in functions in `_FUNCTIONS`. Everything else raises `Untranslatable`, which the
emitter reports as E0706 at the expression's span. A value used more than once in the
JavaScript (the container of `in`, the number `round` rounds) is bound once through an arrow
function, so the expression is evaluated once, as toolkiln does.

Not translated, because JavaScript would give another value: `title` and `capitalize`
(Unicode case mapping), `sort` (JavaScript orders strings by UTF-16 unit), `unique` and
`group_by` (JavaScript compares lists and objects by identity, and 1 with "1" as Map keys
differently from object keys), the digests and base64 (no such functions
in an n8n expression), `is_email` and `is_url` (toolkiln's own rules), `text`, `number`, `join`,
`round` to digits; `camel_case`, `snake_case` and `kebab_case` (letters and digits by Python's
Unicode tables), `truncate` (JavaScript counts UTF-16 units), `to_json` (numbers as doubles),
`parse_json`, `parse_csv` and `chunk` (refusals JavaScript would not make); `uuid`, `random`
and `random_int` (n8n's expressions draw from no source a run could seed); datetimes and
some date patterns (see date_expressions.py).

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
from toolkiln.ast.visitor import left_chain
from toolkiln.backends.n8n.date_expressions import DATE_FUNCTIONS, NotSameInJavaScript

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
# Operators that JavaScript, like toolkiln, groups to the left at one precedence level.
_CHAIN_LEVEL = {"+": "sum", "-": "sum", "*": "term", "/": "term", "%": "term", "and": "and", "or": "or"}
# `k in c`: a substring, a list item (SameValueZero, no coercion, like toolkiln's equality) or
# an object key.
_CONTAINS = (
    "((c, k) => typeof c === 'string' || Array.isArray(c) ? c.includes(k) : Object.hasOwn(c, k))({container}, {item})"
)
_EXTREME = "((...v) => Math.{which}(...(v.length === 1 && Array.isArray(v[0]) ? v[0] : v)))({args})"
_SUM = "({values}).reduce((a, b) => a + b, 0)"
# Texts by code point, as toolkiln counts characters (JavaScript's length counts UTF-16 units).
_SLICE = (
    "((v, a, b) => typeof v === 'string' ? Array.from(v).slice(a, b).join('') : v.slice(a, b))({value}, {start}, {end})"
)
_PAD = "((s, w, f) => {left}f.repeat(Math.max(0, w - Array.from(s).length)){right})(String({text}), {width}, {fill})"
# encodeURIComponent keeps !'()*, which RFC 3986 (and url_encode) percent-encode.
_URL_ENCODE = "encodeURIComponent({text}).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())"
_ZIP = "((a, b) => a.slice(0, Math.min(a.length, b.length)).map((x, i) => [x, b[i]]))({first}, {second})"
_RANGE = "((a, b) => Array.from(Array(Math.max(0, b - a)).keys(), (i) => a + i))({start}, {end})"
# The word and data builtins that JavaScript computes alike (semantics/word_builtins.py,
# data_builtins.py: whitespace is JavaScript's there).
_WITHOUT_MARKS = "String({text}).normalize('NFD').replace(/[\\u0300-\\u036f]/g, '')"
_SLUGIFY = (
    _WITHOUT_MARKS.replace("String({text})", "String({text}).toLowerCase()")
    + ".replace(/[^a-z0-9\\s-]/g, '').replace(/\\s+/g, '-').replace(/-+/g, '-').replace(/^-|-$/g, '')"
)
_IS_JSON = "((t) => {{ try {{ JSON.parse(t); return true; }} catch {{ return false; }} }})(String({text}))"
_IS_UUID = "/^[0-9a-f]{{8}}-[0-9a-f]{{4}}-[1-8][0-9a-f]{{3}}-[89ab][0-9a-f]{{3}}-[0-9a-f]{{12}}$/i.test(String({text}))"

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
    "count": (
        range(1, 3),
        lambda values, *value: (
            f"({values}).length" if not value else f"((l, v) => l.filter((x) => x === v).length)({values}, {value[0]})"
        ),
    ),
    "any": (range(1, 2), lambda values: f"({values}).some((b) => b)"),
    "count_if": (range(1, 2), lambda values: f"({values}).filter((b) => b).length"),
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
    "split": (range(2, 3), lambda text, separator: f"String({text}).split({separator})"),
    "slice": (
        range(2, 4),
        lambda value, start, end="undefined": _SLICE.format(value=value, start=start, end=end),
    ),
    "pad_left": (
        range(2, 4),
        lambda text, width, fill='" "': _PAD.format(left="", right=" + s", text=text, width=width, fill=fill),
    ),
    "pad_right": (
        range(2, 4),
        lambda text, width, fill='" "': _PAD.format(left="s + ", right="", text=text, width=width, fill=fill),
    ),
    "repeat": (range(2, 3), lambda text, times: f"String({text}).repeat({times})"),
    "url_encode": (range(1, 2), lambda text: _URL_ENCODE.format(text=text)),
    "first": (range(1, 2), lambda values: f"({values}).at(0)"),
    "last": (range(1, 2), lambda values: f"({values}).at(-1)"),
    "flatten": (range(1, 2), lambda values: f"({values}).flat()"),
    "range": (
        range(1, 3),
        lambda first, *end: _RANGE.format(start=first if end else "0", end=end[0] if end else first),
    ),
    "zip": (range(2, 3), lambda first, second: _ZIP.format(first=first, second=second)),
    "slugify": (range(1, 2), lambda text: _SLUGIFY.format(text=text)),
    "remove_diacritics": (range(1, 2), lambda text: _WITHOUT_MARKS.format(text=text) + ".normalize('NFC')"),
    "count_words": (range(1, 2), lambda text: f"String({text}).split(/\\s+/).filter((w) => w.length > 0).length"),
    "is_json": (range(1, 2), lambda text: _IS_JSON.format(text=text)),
    "is_uuid": (range(1, 2), lambda text: _IS_UUID.format(text=text)),
}
TRANSLATED_FUNCTIONS = tuple(sorted([*_FUNCTIONS, *DATE_FUNCTIONS]))


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
            case n.NumberLit() | n.StringLit() | n.BoolLit() | n.NullLit():
                return _js_literal(expr)
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
            case n.RecordExpr():
                return self.record(expr, bound)
            case n.Comprehension():
                return self.comprehension(expr, bound)
            case n.Try():
                raise Untranslatable("`try ... catch` has no n8n translation: its failures are toolkiln's", expr.span)
            case _:
                assert_never(expr)

    def binary(self, expr: n.Binary, bound: frozenset[str]) -> str:
        """A left-deep chain (see `left_chain`) in a loop. Each run of one left-associative
        level (`a + b - c`) shares one pair of parentheses, which JavaScript reads the same
        way; the text grows at the end and opening parentheses are written once, at the front."""
        leaf, chain = left_chain(expr)
        pieces, opened, level = [self.js(leaf, bound)], 0, None
        for node in chain:
            right = self.js(node.right, bound)
            if node.op in ("in", "not in"):
                item = "(" * opened + "".join(pieces) + (")" if opened else "")
                contains = _CONTAINS.format(container=right, item=item)
                pieces, opened, level = [contains if node.op == "in" else f"(!{contains})"], 0, None
                continue
            node_level = _CHAIN_LEVEL.get(node.op)
            if node_level is None or node_level != level:
                if opened:  # close the run before
                    pieces.append(")")
                opened += 1
            pieces.append(f" {_OPERATORS[node.op]} {right}")
            level = node_level
        if opened:
            pieces.append(")")
        return "(" * opened + "".join(pieces)

    def call(self, expr: n.Call, bound: frozenset[str]) -> str:
        dated = DATE_FUNCTIONS.get(expr.function)
        if dated is not None and len(expr.args) in dated[0]:
            try:
                return dated[1](expr.args, lambda arg: self.js(arg, bound))
            except NotSameInJavaScript as error:
                raise Untranslatable(f"`{expr.function}(...)`: {error}", expr.span) from None
        known = _FUNCTIONS.get(expr.function)
        if known is None or len(expr.args) not in known[0]:
            hint = (
                "round to whole numbers only: JavaScript doubles round 2.675 to 2.67"
                if expr.function == "round"
                else f"functions that translate: {', '.join(TRANSLATED_FUNCTIONS)}"
            )
            raise Untranslatable(f"`{expr.function}(...)` has no n8n translation", expr.span, hint)
        return known[1](*(self.js(arg, bound) for arg in expr.args))

    def record(self, expr: n.RecordExpr, bound: frozenset[str]) -> str:
        """An object literal in parentheses (else `{` could open a block), with a space before
        its `}`, so nested records never write the `}}` that ends an n8n expression. A key
        `__proto__` is computed: written plainly, JavaScript would set the prototype."""
        fields = ", ".join(
            f"{'[' + js_string(e.key) + ']' if e.key == '__proto__' else js_string(e.key)}: {self.js(e.value, bound)}"
            for e in expr.entries
        )
        return f"({{ {fields} }})" if fields else "({})"

    def comprehension(self, expr: n.Comprehension, bound: frozenset[str]) -> str:
        inner = bound | {expr.var}
        var = _local(expr.var)
        text = f"({self.js(expr.iterable, bound)})"
        if expr.condition is not None:
            text += f".filter(({var}) => {self.js(expr.condition, inner)})"
        if not (isinstance(expr.element, n.Name) and expr.element.name == expr.var):
            text += f".map(({var}) => {self.js(expr.element, inner)})"
        return text


def _js_literal(expr: n.NumberLit | n.StringLit | n.BoolLit | n.NullLit) -> str:
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
        case _:
            assert_never(expr)


def _local(name: str) -> str:
    """A comprehension variable in JavaScript: prefixed, so no name is a JavaScript keyword or
    one of n8n's `$` variables."""
    return f"v_{name}"
