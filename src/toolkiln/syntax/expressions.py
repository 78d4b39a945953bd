"""Expressions and templates inside a larger source, located by a ParseContext.

An expression is parsed by the hand-written `expression_parser` when it can, else by Lark
(which is loaded only then: a JSON tool of plain expressions never needs it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from toolkiln.ast import compute as n
from toolkiln.ast.spans import LineIndex, Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.expression_parser import try_parse_expression
from toolkiln.syntax.strings import EscapeError, unescape
from toolkiln.syntax.templates import HolePiece, TemplateError, split_template

# A template's parts are what was just split and parsed: made without validating again (the
# first validation would build every node type's schema; issue 34).
_template, _hole, _text = n.Template, n.Hole, n.TextPart


class ParseContext:
    """Where parsed text sits: the line index of the whole source, an offset and a JSON path;
    and `fallback`, the Lark parse of an expression the hand-written parser declines (handed in
    by the front end, so that this module needs neither Lark nor the tree builder)."""

    def __init__(
        self,
        index: LineIndex,
        base: int = 0,
        path: str | None = None,
        *,
        fallback: Callable[[str, ParseContext], n.Expr | None],
    ) -> None:
        self.index = index
        self.base = base
        self.path = path
        self.fallback = fallback
        self.diagnostics: list[Diagnostic] = []

    def at(self, base: int, path: str | None = None) -> ParseContext:
        """A context for text at `base` in the same source (diagnostics are its own)."""
        return ParseContext(self.index, base, path, fallback=self.fallback)

    def span(self, start: int, end: int) -> Span:
        return self.index.span(self.base + start, self.base + end, self.path)

    def report(self, code: codes.Code, message: str, span: Span, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic.of(code, message, span, hint))


def parse_expression(text: str, ctx: ParseContext) -> n.Expr | None:
    """Parse one expression; newlines inside it are plain spaces (offsets are kept)."""
    flat = text.replace("\r", " ").replace("\n", " ")
    expr = try_parse_expression(flat, ctx.span)
    if expr is not None:
        return expr
    # Lark decides the rest and explains the errors.
    return ctx.fallback(flat, ctx)


def parse_template(raw: str, ctx: ParseContext, *, escaped: bool) -> n.Template | None:
    """Parse a template whose characters sit at `ctx.base`; `escaped` text still has its
    backslash escapes (text DSL), else it is already decoded (JSON DSL)."""
    try:
        pieces = split_template(raw)
    except TemplateError as error:
        ctx.report(
            codes.INVALID_TEMPLATE,
            str(error),
            ctx.span(error.start, error.end),
            hint="write holes as {{expression}} or {{expression:.2f}}",
        )
        return None
    parts: list[n.TemplatePart] = []
    for piece in pieces:
        span = ctx.span(piece.start, piece.end)
        if isinstance(piece, HolePiece):
            hole_ctx = ctx.at(ctx.base + piece.start, ctx.path)
            expr = parse_expression(raw[piece.start : piece.end], hole_ctx)
            ctx.diagnostics.extend(hole_ctx.diagnostics)
            if isinstance(expr, n.StringLit) and piece.spec is None:
                _add_text(parts, expr.value, span)  # `{{"{{"}}`: a constant is text
            elif expr is not None:
                parts.append(_hole(expr=expr, spec=piece.spec, span=span))
            continue
        text = raw[piece.start : piece.end]
        if escaped:
            try:
                text = unescape(text)
            except EscapeError as error:
                start = piece.start + error.offset
                ctx.report(
                    codes.INVALID_ESCAPE,
                    f"invalid escape `{error.escape}` in a string",
                    ctx.span(start, start + len(error.escape)),
                )
                continue
        _add_text(parts, text, span)
    if len(ctx.diagnostics):
        return None
    return _template(parts=tuple(parts), span=ctx.span(0, len(raw)))


def _add_text(parts: list[n.TemplatePart], text: str, span: Span) -> None:
    """Append literal text, joined to the text before it, so one template has one AST."""
    if parts and isinstance(parts[-1], n.TextPart):
        previous = parts[-1]
        merged = replace(previous.span, end=span.end, end_line=span.end_line, end_column=span.end_column)
        parts[-1] = _text(text=previous.text + text, span=merged)
    elif text:
        parts.append(_text(text=text, span=span))
