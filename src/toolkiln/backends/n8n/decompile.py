"""n8n expressions as toolkiln writes them -> compute expressions (the inverse of
`toolkiln.backends.n8n.expressions.to_js`), for importing n8n workflows.

Only the JavaScript that `to_js` produces is read: fully parenthesized operators, `Math.abs(x)`,
`String(x).toUpperCase()`, `(x).length`, JSON string literals, and the roots `$json` and
`$('Step').item.json`. Anything else raises `NotDecompilable`, and the importer keeps the node
as a generic one. The importer re-emits what it read and compares, so a reading that does not
give back the same text is never used.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.spans import NO_SPAN, Span
from toolkiln.backends.workflow_printer import is_plain_name
from toolkiln.semantics.foreign_names import SAME_AS_BUILTIN

_TOKEN = re.compile(
    r"""\s*(?:
    (?P<root>\$json|\$\('(?:[^'\\]|\\.)*'\)\.item\.json)
  | (?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>===|!==|<=|>=|&&|\|\||\*\*|[-+*/<>()?:.!,{}])
)""",
    re.VERBOSE,
)
_BINARY = {
    "+": "+",
    "-": "-",
    "*": "*",
    "/": "/",
    "**": "**",
    "===": "==",
    "!==": "!=",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
    "&&": "and",
    "||": "or",
}
REQUEST_PARTS = ("body", "query", "headers")  # a webhook's data: keywords of `http`, fine here
_MATH = {"abs", "floor", "ceil", "sqrt"}
# The string methods whose builtin means exactly the same in an n8n expression (not `replace`:
# JavaScript's replaces the first match only).
_STRING_METHODS = {method: SAME_AS_BUILTIN[method] for method in ("toUpperCase", "toLowerCase", "trim")}

# A root, `$json` (None) or `$('name')` (the name), and the field names after it -> the
# compute expression they read (the resolver knows which step `$json` is).
Resolver = Callable[[str | None, list[str]], n.Expr]


class NotDecompilable(Exception):
    pass


def decompile(text: str, resolve: Resolver, span: Span = NO_SPAN) -> n.Expr:
    """`={{ js }}` -> the compute expression."""
    if not (text.startswith("={{ ") and text.endswith(" }}")):
        raise NotDecompilable(text)
    return _Reader(text[4:-3], resolve, span).whole()


def decompile_object(text: str, resolve: Resolver, span: Span = NO_SPAN) -> list[tuple[str, n.Expr]]:
    """`={{ JSON.stringify({ "k": js, ... }) }}` (an HTTP body) -> its members."""
    prefix, suffix = "={{ JSON.stringify({ ", " }) }}"
    if not (text.startswith(prefix) and text.endswith(suffix)):
        raise NotDecompilable(text)
    reader = _Reader(text[len(prefix) : -len(suffix)], resolve, span)
    members = []
    while reader.tokens:
        key = reader.take("string")
        reader.expect(":")
        members.append((_string(key), reader.expr()))
        if reader.tokens:
            reader.expect(",")
    return members


def decompile_template(text: str, resolve: Resolver, span: Span = NO_SPAN) -> n.Template:
    """A URL: plain text, or `=text{{ js }}text...`."""
    if not text.startswith("="):
        return n.Template(parts=(n.TextPart(text=text, span=span),) if text else (), span=span)
    parts: list[n.TextPart | n.Hole] = []
    for index, piece in enumerate(re.split(r"\{\{ (.*?) \}\}", text[1:])):
        if index % 2:
            parts.append(n.Hole(expr=_Reader(piece, resolve, span).whole(), span=span))
        elif piece:
            parts.append(n.TextPart(text=piece, span=span))
    return n.Template(parts=tuple(parts), span=span)


def _field_name(name: str) -> bool:
    """A name the text DSL reads back inside an expression: no keyword but the request's parts."""
    return is_plain_name(name) or name in REQUEST_PARTS


def _string(token: str) -> str:
    try:
        text: str = json.loads(token)  # the token matched the JSON string pattern
    except ValueError:
        raise NotDecompilable(token) from None
    return text


class _Reader:
    def __init__(self, text: str, resolve: Resolver, span: Span) -> None:
        self.resolve = resolve
        self.span = span
        self.tokens: list[tuple[str, str]] = []
        position = 0
        text = text.rstrip()
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None:
                raise NotDecompilable(text[position:])
            kind = match.lastgroup or ""
            self.tokens.append((kind, match.group(kind)))
            position = match.end()
        self.tokens.reverse()  # popped from the end

    def whole(self) -> n.Expr:
        try:
            expr = self.expr()
        except RecursionError:
            raise NotDecompilable("nested too deeply") from None
        if self.tokens:
            raise NotDecompilable(self.tokens[-1][1])
        return expr

    def peek(self) -> str | None:
        return self.tokens[-1][1] if self.tokens else None

    def take(self, kind: str | None = None) -> str:
        if not self.tokens or (kind is not None and self.tokens[-1][0] != kind):
            raise NotDecompilable(self.peek() or "end")
        return self.tokens.pop()[1]

    def expect(self, value: str) -> None:
        if self.take() != value:
            raise NotDecompilable(value)

    def node(self, cls: Callable[..., n.Expr], **fields: Any) -> n.Expr:
        return cls(span=self.span, **fields)

    def expr(self) -> n.Expr:
        kind, value = self.tokens[-1] if self.tokens else ("", "")
        if kind == "number":
            self.take()
            try:
                return self.node(n.NumberLit, value=Decimal(value))
            except InvalidOperation:
                raise NotDecompilable(value) from None
        if kind == "string":
            return self.node(n.StringLit, value=_string(self.take()))
        if kind == "root":
            return self.root(self.take())
        if value in ("true", "false", "null"):
            self.take()
            return self.node(n.NullLit) if value == "null" else self.node(n.BoolLit, value=value == "true")
        if value == "Math":
            self.take()
            self.expect(".")
            function = self.take("word")
            if function not in _MATH:
                raise NotDecompilable(function)
            return self.fields(self.call(function, self.argument()))
        if value == "String":
            self.take()
            argument = self.argument()
            self.expect(".")
            method = _STRING_METHODS.get(self.take("word"))
            self.expect("(")
            self.expect(")")
            if method is None:
                raise NotDecompilable("String method")
            return self.fields(self.call(method, argument))
        if value == "(":
            return self.fields(self.parenthesized())
        raise NotDecompilable(value or "end")

    def argument(self) -> n.Expr:
        self.expect("(")
        inner = self.expr()
        self.expect(")")
        return inner

    def call(self, function: str, argument: n.Expr) -> n.Expr:
        return self.node(n.Call, function=function, args=(argument,))

    def parenthesized(self) -> n.Expr:
        self.expect("(")
        if self.peek() in ("-", "!"):
            sign = self.take()
            operand = self.expr()
            self.expect(")")
            return self.node(n.Unary, op="-" if sign == "-" else "not", operand=operand)
        left = self.expr()
        following = self.take()
        if following == ")":  # `(x).length`: the only plain wrapper to_js writes
            if self.peek() == "." and len(self.tokens) > 1 and self.tokens[-2][1] == "length":
                self.take()
                self.take()
                return self.call("len", left)
            raise NotDecompilable("(...)")
        if following == "?":
            then = self.expr()
            self.expect(":")
            otherwise = self.expr()
            self.expect(")")
            return self.node(n.Conditional, test=left, then=then, otherwise=otherwise)
        op = _BINARY.get(following)
        if op is None:
            raise NotDecompilable(following)
        right = self.expr()
        self.expect(")")
        return self.node(n.Binary, op=op, left=left, right=right)

    def root(self, token: str) -> n.Expr:
        names = []
        while self.peek() == "." and len(self.tokens) > 1 and self.tokens[-2][0] == "word":
            self.take()
            names.append(self.take())
        if any(not _field_name(name) for name in names):
            raise NotDecompilable("field name")
        source = None if token == "$json" else _string('"' + token[3 : -len("').item.json")] + '"')
        return self.resolve(source, names)

    def fields(self, expr: n.Expr) -> n.Expr:
        """`.name` after an expression (`.length` after a parenthesis is `len`)."""
        while (
            self.peek() == "."
            and len(self.tokens) > 1
            and self.tokens[-2][0] == "word"
            and self.tokens[-2][1] != "length"
        ):
            self.take()
            name = self.take()
            if not _field_name(name):
                raise NotDecompilable(name)
            expr = self.node(n.Field_, target=expr, name=name)
        return expr
