"""The workflow front end: `.wf` text -> `toolkiln.ast.workflow.Workflow`, or diagnostics.

The workflow grammar (grammar/workflow.lark) captures each expression's extent; the compute
expression parser (`toolkiln.syntax.builder.parse_expression`) parses it with a ParseContext
whose base is the expression's offset in the file, so every span points into the file.
Like `toolkiln/syntax/`, this is the only workflow module that sees Lark's trees.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from lark import Lark, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)
from lark.tree import Meta

from toolkiln.ast import compute as n
from toolkiln.ast import workflow as w
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.builder import (
    ParseContext,
    SourceBuilder,
    parse_expression,
)
from toolkiln.syntax.grammar import grammar_text
from toolkiln.syntax.lark_front import MAX_SOURCE_CHARS, describe_token, expected_tokens
from toolkiln.syntax.spans import LineIndex

WORKFLOW_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
WEBHOOK_PATH = re.compile(r"/?(?::?[A-Za-z0-9_-]+)(?:/:?[A-Za-z0-9_-]+)*/?")
_TERMINAL_WORDS = {"OP": "an operator", "RESPOND_WITH_NODE": "`respond with node`"}


@cache
def workflow_parser() -> Lark:
    return Lark(grammar_text("workflow.lark"), parser="lalr", propagate_positions=True,
                maybe_placeholders=True)


def parse_workflow(text: str) -> tuple[w.Workflow | None, list[Diagnostic]]:
    """Parse workflow DSL text. Returns the AST (None if anything is wrong) and diagnostics."""
    index = LineIndex(text)
    if len(text) > MAX_SOURCE_CHARS:
        return None, [Diagnostic.of(codes.SOURCE_TOO_LARGE,
                                    f"source has {len(text):,} characters; the limit is {MAX_SOURCE_CHARS:,}",
                                    index.span(0, 0))]
    try:
        tree = workflow_parser().parse(text)
    except UnexpectedInput as error:
        return None, [_syntax_error(error, text, index)]
    ctx = ParseContext(index)
    try:
        workflow = _Builder(ctx, text).transform(tree)
    except RecursionError:
        return None, [Diagnostic.of(codes.TOO_DEEP, "steps nested too deeply", index.span(0, 0),
                                    hint="flatten nested if steps")]
    return (None if ctx.diagnostics else workflow), ctx.diagnostics


def _syntax_error(error: UnexpectedInput, text: str, index: LineIndex) -> Diagnostic:
    if isinstance(error, UnexpectedCharacters):
        offset = error.pos_in_stream
        ch = text[offset]
        span = index.span(offset, offset + 1)
        if ch in "\"'":
            return Diagnostic.of(codes.UNTERMINATED_STRING, "string is not closed on this line", span,
                                 hint=f"end the string with {ch}")
        shown = ch if ch.isprintable() else f"U+{ord(ch):04X}"
        return Diagnostic.of(codes.SYNTAX_ERROR, f"unexpected character `{shown}`", span,
                             hint=_expected(error.allowed))
    if isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END" or token.start_pos is None:
            span, found = index.span(len(text), len(text)), "end of input"
        else:
            span = index.span(token.start_pos, token.start_pos + max(len(token.value), 1))
            found = describe_token(token.type, token.value)
        return Diagnostic.of(codes.SYNTAX_ERROR, f"unexpected {found}", span, hint=_expected(error.expected))
    assert isinstance(error, UnexpectedEOF)
    return Diagnostic.of(codes.SYNTAX_ERROR, "unexpected end of input", index.span(len(text), len(text)),
                         hint=_expected(set(error.expected)))


def _expected(terminals: set[str] | None) -> str | None:
    if not terminals:
        return None
    return "expected " + expected_tokens(terminals, workflow_parser(), _TERMINAL_WORDS)


@v_args(meta=True)
class _Builder(SourceBuilder):
    def __init__(self, ctx: ParseContext, text: str) -> None:
        super().__init__(ctx)
        self.text = text

    # --- the workflow and its trigger -------------------------------------------------------

    def start(self, meta: Meta, children: list[Any]) -> w.Workflow | None:
        (name, description), trigger, *steps = children
        if trigger is None:         # reported already
            return None
        return w.Workflow(name=name, description=description, trigger=trigger, steps=tuple(steps),
                          span=self._span(meta))

    def header(self, meta: Meta, children: list[Any]) -> tuple[str, str | None]:
        name, description = children
        if not WORKFLOW_NAME.fullmatch(name.value):
            self.ctx.report(codes.INVALID_NAME, f"`{name.value}` is not a valid workflow name",
                            self._token_span(name), hint="use ^[a-z][a-z0-9_]{0,63}$")
        if description is None:
            self.ctx.report(codes.MISSING_FIELD, f"workflow `{name.value}` has no description",
                            self._token_span(name), hint='add `description "what it does"` after the name')
        return name.value, None if description is None else self._string(description)

    def webhook(self, meta: Meta, children: list[Any]) -> w.WebhookTrigger | None:
        method, path, respond = children
        path_text = self._string(path)
        if method.value not in w.HTTP_METHODS:
            self.ctx.report(codes.INVALID_TRIGGER, f"unknown HTTP method `{method.value}`",
                            self._token_span(method), hint=f"use one of {', '.join(w.HTTP_METHODS)}")
            return None
        if not WEBHOOK_PATH.fullmatch(path_text):
            self.ctx.report(codes.INVALID_TRIGGER, f"invalid webhook path {path.value}", self._token_span(path),
                            hint='letters, digits, `-`, `_`, `/` and `:param` segments, e.g. "/orders"')
        return w.WebhookTrigger(method=method.value, path=path_text, respond_with_node=respond is not None,
                                span=self._span(meta))

    def manual(self, meta: Meta, children: list[Any]) -> w.ManualTrigger:
        return w.ManualTrigger(span=self._span(meta))

    # --- steps ----------------------------------------------------------------------------

    def set_step(self, meta: Meta, children: list[Any]) -> w.SetStep:
        name, *fields = children
        seen: set[str] = set()
        kept = []
        for field in fields:
            if field is None:
                continue
            if field.name in seen:
                self.ctx.report(codes.DUPLICATE_NAME, f"field `{field.name}` is set twice in `{name.value}`",
                                field.span)
            seen.add(field.name)
            kept.append(field)
        return w.SetStep(name=self._name(name), fields=tuple(kept), span=self._span(meta))

    def field(self, meta: Meta, children: list[Any]) -> w.SetField:
        name, value = children
        return w.SetField(name=self._name(name), value=value, span=self._span(meta))

    def if_step(self, meta: Meta, children: list[Any]) -> w.IfStep:
        name, condition, then, otherwise = children
        return w.IfStep(name=self._name(name), condition=condition, then=then, otherwise=otherwise or (),
                        span=self._span(meta))

    def respond_step(self, meta: Meta, children: list[Any]) -> w.RespondStep:
        name, body = children
        return w.RespondStep(name=self._name(name), body=body, span=self._span(meta))

    def block(self, meta: Meta, children: list[Any]) -> tuple[w.Step, ...]:
        return tuple(children)

    # --- expressions: the compute parser, at their offset in the file ---------------------

    def _expression(self, meta: Meta) -> n.Expr:
        ctx = ParseContext(self.ctx.index, meta.start_pos)
        expr = parse_expression(self.text[meta.start_pos:meta.end_pos], ctx)
        self.ctx.diagnostics.extend(ctx.diagnostics)
        return expr if expr is not None else n.NullLit(span=self._span(meta))

    def expr(self, meta: Meta, children: list[Any]) -> n.Expr:
        return self._expression(meta)

    def rexpr(self, meta: Meta, children: list[Any]) -> n.Expr:
        return self._expression(meta)
