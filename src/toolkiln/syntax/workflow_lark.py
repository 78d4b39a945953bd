"""The workflow front end on Lark: the grammar (grammar/workflow.lark), its parse tree -> the
AST (`_Builder`), and the diagnostics of every error. `workflow_text.parse_workflow` comes here
only when the hand-written parser (workflow_parser.py) declines, so a valid workflow is checked
without loading Lark. Like `toolkiln/syntax/`, this is the only workflow module that sees
Lark's trees.

The grammar captures each expression's extent; the compute expression parser
(`toolkiln.syntax.builder.parse_expression`) parses it with a ParseContext whose base is the
expression's offset in the file, so every span points into the file.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from json import JSONDecodeError
from typing import Any

from lark import Lark, Token, v_args
from lark.exceptions import UnexpectedInput, UnexpectedToken
from lark.tree import Meta

from toolkiln.ast import compute as n
from toolkiln.ast import workflow as w
from toolkiln.ast.spans import LineIndex
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.expressions import ParseContext, parse_expression, parse_template
from toolkiln.syntax.grammar import TooDeep, grammar_text
from toolkiln.syntax.grammar_source import WORKFLOW_OPTIONS
from toolkiln.syntax.lark_front import failure_of, literal_terminals
from toolkiln.syntax.limits import MAX_DEPTH, MAX_LITERAL_DIGITS, MAX_SOURCE_TOKENS, too_many_tokens
from toolkiln.syntax.newlines import BracketDepthLimit
from toolkiln.syntax.parser_cache import cached_parser, keep_error_tables
from toolkiln.syntax.workflow_errors import workflow_syntax_diagnostic
from toolkiln.syntax.workflow_shapes import ShapeRules, in_shape
from toolkiln.syntax.workflow_values import CLOCK_TIME, CRON, WEBHOOK_PATH, WORKFLOW_NAME, decode_json, is_timezone


@cache
def workflow_parser() -> Lark:
    """The workflow grammar's parser; its tables are also kept for the error finder that runs
    without Lark (syntax/workflow_errors.py), from this very parser."""
    grammar = grammar_text("workflow.lark")
    parser = cached_parser("workflow", grammar, {"postlex": BracketDepthLimit()}, **WORKFLOW_OPTIONS)
    keep_error_tables("workflow", grammar, WORKFLOW_OPTIONS, parser)
    return parser


def parse_with_lark(text: str, ctx: ParseContext) -> tuple[w.Workflow | None, list[Diagnostic]]:
    """The workflow in `text` and the diagnostics of everything wrong with it (`ctx` is the
    whole text's, at offset 0)."""
    index = ctx.index
    try:
        tree = workflow_parser().parse(text)
    except UnexpectedInput as error:
        return None, [_syntax_error(error, text, index)]
    except TooDeep as error:
        return None, [
            Diagnostic.of(
                codes.TOO_DEEP,
                f"brackets or blocks nested deeper than {MAX_DEPTH} levels",
                index.span(error.offset, error.offset + 1),
                hint="flatten it: name the parts in set steps",
            )
        ]
    try:
        workflow = _Builder(ctx, text).transform(tree)
    except RecursionError:
        return None, [
            Diagnostic.of(codes.TOO_DEEP, "steps nested too deeply", index.span(0, 0), hint="flatten nested if steps")
        ]
    return (None if ctx.diagnostics else workflow), ctx.diagnostics


def _syntax_error(error: UnexpectedInput, text: str, index: LineIndex) -> Diagnostic:
    """Lark's exception, worded by workflow_errors.py (as the error finder's failures are)."""
    parser = workflow_parser()
    shape = isinstance(error, UnexpectedToken) and in_shape(error)
    return workflow_syntax_diagnostic(failure_of(error, parser), text, index, literal_terminals(parser), in_shape=shape)


@v_args(meta=True)
class _Builder(ShapeRules):
    def __init__(self, ctx: ParseContext, text: str) -> None:
        super().__init__(ctx)
        self.text = text

    # --- the workflow and its trigger -------------------------------------------------------

    def start(self, meta: Meta, children: list[Any]) -> w.Workflow | None:
        (name, description, extra), trigger, trigger_extra, *steps = children
        if trigger is None:  # reported already
            return None
        if trigger_extra is not None:
            trigger = replace(trigger, extra=trigger_extra)
        return w.Workflow(
            name=name,
            description=description,
            trigger=trigger,
            steps=tuple(step for step in steps if step is not None),
            extra=extra or {},
            span=self._span(meta),
        )

    def header(self, meta: Meta, children: list[Any]) -> tuple[str, str | None, dict[str, Any] | None]:
        (name, token), description, extra = children
        if token.type == "NAME" and not WORKFLOW_NAME.fullmatch(name):
            self.ctx.report(
                codes.INVALID_NAME,
                f"`{name}` is not a valid workflow name",
                self._token_span(token),
                hint='use ^[a-z][a-z0-9_]{0,63}$, or quote any name: "Order sync"',
            )
        if token.type == "STRING" and not name.strip():
            self.ctx.report(codes.INVALID_NAME, "the workflow name is empty", self._token_span(token))
        if description is None and extra is None:
            self.ctx.report(
                codes.MISSING_FIELD,
                f"workflow `{name}` has no description",
                self._token_span(token),
                hint='add `description "what it does"` after the name',
            )
        return name, None if description is None else self._string(description), extra

    def label(self, meta: Meta, children: list[Any]) -> tuple[str, Token]:
        (token,) = children
        return (self._string(token) if token.type == "STRING" else token.value), token

    def webhook(self, meta: Meta, children: list[Any]) -> w.WebhookTrigger | None:
        method, path, body, respond = children
        path_text = self._string(path)
        if not self._one_of(codes.INVALID_TRIGGER, "HTTP method", method, w.HTTP_METHODS):
            return None
        if not WEBHOOK_PATH.fullmatch(path_text):
            self.ctx.report(
                codes.INVALID_TRIGGER,
                f"invalid webhook path {path.value}",
                self._token_span(path),
                hint='letters, digits, `-`, `_`, `/` and `:param` segments, e.g. "/orders"',
            )
        if body is not None:
            self._bounded(body)
        return w.WebhookTrigger(
            method=method.value,
            path=path_text,
            respond_with_node=respond is not None,
            body=body,
            span=self._span(meta),
        )

    def manual(self, meta: Meta, children: list[Any]) -> w.ManualTrigger:
        return w.ManualTrigger(span=self._span(meta))

    def schedule(self, meta: Meta, children: list[Any]) -> w.ScheduleTrigger | None:
        rule, timezone = children
        if rule is None:
            return None
        zone = None
        if timezone is not None:
            zone = self._string(timezone)
            if not is_timezone(zone):
                self.ctx.report(
                    codes.INVALID_TRIGGER,
                    f"unknown timezone {timezone.value}",
                    self._token_span(timezone),
                    hint='use an IANA name such as "Europe/Berlin" or "UTC"',
                )
        return w.ScheduleTrigger(**rule, timezone=zone, span=self._span(meta))

    def daily(self, meta: Meta, children: list[Any]) -> dict[str, Any] | None:
        (at,) = children
        text = self._string(at)
        if not CLOCK_TIME.fullmatch(text):
            self.ctx.report(
                codes.INVALID_TRIGGER,
                f"{at.value} is not a time of day",
                self._token_span(at),
                hint='write it as "HH:MM" on a 24-hour clock, e.g. "09:00" or "17:30"',
            )
            return None
        return {"rule": "daily", "at": text}

    def every(self, meta: Meta, children: list[Any]) -> dict[str, Any] | None:
        count, unit = children
        interval = self._count(count)
        if not self._one_of(codes.INVALID_TRIGGER, "schedule unit", unit, w.SCHEDULE_UNITS):
            return None
        return None if interval is None else {"rule": "every", "interval": interval, "unit": unit.value}

    def cron(self, meta: Meta, children: list[Any]) -> dict[str, Any] | None:
        (expression,) = children
        text = self._string(expression)
        if not CRON.fullmatch(text.strip()):
            self.ctx.report(
                codes.INVALID_TRIGGER,
                f"{expression.value} is not a cron expression",
                self._token_span(expression),
                hint='five fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5"',
            )
            return None
        return {"rule": "cron", "cron": text.strip()}

    def node_trigger(self, meta: Meta, children: list[Any]) -> w.NodeTrigger | None:
        (node,) = children
        return None if node is None else w.NodeTrigger(node=node, span=self._span(meta))

    # --- steps: common parts ----------------------------------------------------------------

    def step(self, meta: Meta, children: list[Any]) -> w.Step | None:
        step: w.Step | None  # None when it was reported
        after, step, extra = children
        if step is None or (after is None and extra is None):
            return step
        return replace(step, after=after, extra=extra or {}, span=self._span(meta))

    def wiring(self, meta: Meta, children: list[Any]) -> tuple[w.Wire, ...]:
        return tuple(wire for wire in children if isinstance(wire, w.Wire))  # () for `after nothing`

    def wire(self, meta: Meta, children: list[Any]) -> w.Wire:
        (source, _), output, input_ = children
        return w.Wire(
            source=source,
            output=0 if output is None else self._index(output),
            input=0 if input_ is None else self._index(input_),
            span=self._span(meta),
        )

    def extra(self, meta: Meta, children: list[Any]) -> dict[str, Any]:
        value: dict[str, Any]
        (value,) = children
        return value

    def json(self, meta: Meta, children: list[Any]) -> dict[str, Any]:
        text = self.text[meta.start_pos : meta.end_pos]
        try:
            data: dict[str, Any] = decode_json(text)
            return data
        except ValueError as error:
            offset = meta.start_pos + getattr(error, "pos", 0)
            syntax = isinstance(error, JSONDecodeError)  # else a value JSON cannot hold
            self.ctx.report(
                codes.INVALID_JSON,
                f"invalid JSON: {getattr(error, 'msg', error)}",
                self.ctx.span(offset, offset + 1),
                hint='JSON needs double quotes: {"key": "value"}' if syntax else None,
            )
            return {}

    def node_spec(self, meta: Meta, children: list[Any]) -> w.NodeSpec | None:
        (name, token), type_, version, parameters, credentials, returns = children
        if not name.strip():
            self.ctx.report(codes.INVALID_NAME, "the node name is empty", self._token_span(token))
        number = float(version.value)
        return w.NodeSpec(
            name=name,
            type=self._string(type_),
            version=int(number) if number.is_integer() else number,
            parameters=parameters,
            credentials=credentials,
            returns=returns,
            span=self._span(meta),
        )

    def credentials(self, meta: Meta, children: list[Any]) -> w.Credentials:
        type_, name = children
        return w.Credentials(type=type_.value, name=self._string(name), span=self._span(meta))

    # --- steps ----------------------------------------------------------------------------

    def set_step(self, meta: Meta, children: list[Any]) -> w.SetStep:
        name, *fields = children
        return w.SetStep(name=self._name(name), fields=self._fields(name.value, fields), span=self._span(meta))

    def field(self, meta: Meta, children: list[Any]) -> w.SetField:
        name, value = children
        return w.SetField(name=self._name(name), value=value, span=self._span(meta))

    def pair(self, meta: Meta, children: list[Any]) -> w.SetField:
        name, value = children
        text = self._string(name) if name.type == "STRING" else name.value
        return w.SetField(name=text, value=value, span=self._span(meta))

    def if_step(self, meta: Meta, children: list[Any]) -> w.IfStep:
        name, condition, then, otherwise = children
        return w.IfStep(
            name=self._name(name), condition=condition, then=then, otherwise=otherwise or (), span=self._span(meta)
        )

    def switch_step(self, meta: Meta, children: list[Any]) -> w.SwitchStep:
        name, *cases, otherwise = children
        return w.SwitchStep(name=self._name(name), cases=tuple(cases), otherwise=otherwise, span=self._span(meta))

    def case(self, meta: Meta, children: list[Any]) -> w.SwitchCase:
        condition, steps = children
        return w.SwitchCase(condition=condition, steps=steps, span=self._span(meta))

    def default(self, meta: Meta, children: list[Any]) -> tuple[w.Step, ...]:
        steps: tuple[w.Step, ...]
        (steps,) = children
        return steps

    def respond_step(self, meta: Meta, children: list[Any]) -> w.RespondStep:
        name, body = children
        return w.RespondStep(name=self._name(name), body=body, span=self._span(meta))

    def http_step(self, meta: Meta, children: list[Any]) -> w.HttpStep | None:
        name, method, url, *clauses = children
        known = self._one_of(codes.INVALID_STEP, "HTTP method", method, w.HTTP_METHODS)
        parts: dict[str, Any] = {}
        for clause, value, span in clauses:
            if clause in parts:
                self.ctx.report(
                    codes.INVALID_STEP,
                    f"`{clause}` is given twice in `{name.value}`",
                    span,
                    hint="merge the two clauses into one",
                )
            parts[clause] = self._fields(name.value, value) if clause in ("query", "headers", "body") else value
        if url is None or not known:
            return None
        return w.HttpStep(name=self._name(name), method=method.value, url=url, span=self._span(meta), **parts)

    def http_query(self, meta: Meta, children: list[Any]) -> tuple[str, list[Any], Any]:
        return "query", children, self._span(meta)

    def http_headers(self, meta: Meta, children: list[Any]) -> tuple[str, list[Any], Any]:
        return "headers", children, self._span(meta)

    def http_body(self, meta: Meta, children: list[Any]) -> tuple[str, list[Any], Any]:
        return "body", children, self._span(meta)

    def http_clause(self, meta: Meta, children: list[Any]) -> tuple[str, w.Credentials, Any]:
        (credentials,) = children
        return "credentials", credentials, credentials.span

    def http_returns(self, meta: Meta, children: list[Any]) -> tuple[str, w.Shape, Any]:
        (shape,) = children
        return "returns", shape, shape.span

    def template(self, meta: Meta, children: list[Any]) -> n.Template | None:
        (token,) = children
        ctx = self.ctx.at(token.start_pos + 1)
        template = parse_template(token.value[1:-1], ctx, escaped=True)
        self.ctx.diagnostics.extend(ctx.diagnostics)
        return template

    def merge_step(self, meta: Meta, children: list[Any]) -> w.MergeStep:
        name, mode = children
        return w.MergeStep(name=self._name(name), mode="append" if mode is None else "position", span=self._span(meta))

    def wait_step(self, meta: Meta, children: list[Any]) -> w.WaitStep | None:
        name, amount, unit = children
        count = self._count(amount)
        if not self._one_of(codes.INVALID_STEP, "wait unit", unit, w.WAIT_UNITS):
            return None
        if count is None:
            return None
        return w.WaitStep(name=self._name(name), amount=count, unit=unit.value, span=self._span(meta))

    def node_step(self, meta: Meta, children: list[Any]) -> w.NodeStep | None:
        (node,) = children
        return None if node is None else w.NodeStep(name=node.name, node=node, span=self._span(meta))

    def block(self, meta: Meta, children: list[Any]) -> tuple[w.Step, ...]:
        return tuple(step for step in children if step is not None)

    # --- small pieces -----------------------------------------------------------------------

    def _fields(self, owner: str, fields: list[w.SetField | None]) -> tuple[w.SetField, ...]:
        seen: set[str] = set()
        kept = []
        for field in fields:
            if field is None:
                continue
            if field.name in seen:
                self.ctx.report(codes.DUPLICATE_NAME, f"field `{field.name}` is set twice in `{owner}`", field.span)
            seen.add(field.name)
            kept.append(field)
        return tuple(kept)

    def _count(self, token: Token) -> int | None:
        """A positive whole number (an interval, a wait)."""
        if self._too_long(token):
            return None
        if not token.value.isdigit() or int(token.value) == 0:
            self.ctx.report(
                codes.INVALID_STEP,
                f"`{token.value}` is not a positive whole number",
                self._token_span(token),
                hint="write a count such as 5",
            )
            return None
        return int(token.value)

    def _index(self, token: Token) -> int:
        if self._too_long(token):
            return 0
        if not token.value.isdigit():
            self.ctx.report(
                codes.INVALID_WIRING,
                f"`{token.value}` is not an output or input index",
                self._token_span(token),
                hint="outputs and inputs are numbered 0, 1, 2, ...",
            )
            return 0
        return int(token.value)

    def _too_long(self, token: Token) -> bool:
        """Reported when a count or index has more digits than any literal may (int() of a
        number of more than 4,300 digits raises)."""
        if len(token.value) <= MAX_LITERAL_DIGITS:
            return False
        self.ctx.report(
            codes.LITERAL_TOO_LARGE, f"number has more than {MAX_LITERAL_DIGITS} digits", self._token_span(token)
        )
        return True

    # --- expressions: the compute parser, at their offset in the file ---------------------

    def _expression(self, meta: Meta) -> n.Expr:
        text = self.text[meta.start_pos : meta.end_pos]
        if len(text) > MAX_SOURCE_TOKENS and too_many_tokens(text):  # (fewer characters: fewer tokens)
            # As one expression of a tool may be: a flat chain is not deep, only long.
            message = f"an expression has more than {MAX_SOURCE_TOKENS:,} tokens"
            hint = "split it into set steps of intermediate results"
            self.ctx.report(codes.TOO_MANY_TOKENS, message, self._span(meta), hint=hint)
            return n.NullLit(span=self._span(meta))
        ctx = self.ctx.at(meta.start_pos)
        expr = parse_expression(text, ctx)
        self.ctx.diagnostics.extend(ctx.diagnostics)
        return expr if expr is not None else n.NullLit(span=self._span(meta))

    def expr(self, meta: Meta, children: list[Any]) -> n.Expr:
        return self._expression(meta)

    def rexpr(self, meta: Meta, children: list[Any]) -> n.Expr:
        return self._expression(meta)
