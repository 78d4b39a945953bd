"""A hand-written parser for `.wf` workflows, used before Lark.

Importing Lark and reading the workflow parser back from its cache is most of the cost of
checking a valid workflow (issue 34). This parser follows the rules of grammar/workflow.lark
one for one, reads tokens as Lark's contextual lexer does (workflow_scanner.py), parses
expressions and templates with the compute parsers as the Lark front end does, and builds the
same nodes with the same spans as `workflow_lark._Builder` does from Lark's tree.

It only ever accepts, or reports expressions: at the first thing that is not plainly valid (a
syntax error, anything the builder would report: an invalid name, an unknown method, unit or
timezone, bad JSON, a field given twice, a number too long; deep nesting) it declines and the
caller parses with Lark, which reports every diagnostic. An expression the compute parser
reports is the one exception: its extent is the grammar's, so the parse goes on, and a text
read whole whose only errors are its expressions' gets their diagnostics, as from Lark's path. A construct
this parser does not know is a decline, never a different tree; a property test checks that
both agree wherever this one accepts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal, cast

from toolkiln.ast import compute as n
from toolkiln.ast import workflow as w
from toolkiln.syntax.expression_parser import Declined
from toolkiln.syntax.expressions import ParseContext, parse_expression, parse_template
from toolkiln.syntax.limits import MAX_LITERAL_DIGITS, MAX_SOURCE_TOKENS
from toolkiln.syntax.strings import EscapeError, unescape
from toolkiln.syntax.words import RESERVED
from toolkiln.syntax.workflow_scanner import (
    KEYWORDS,
    MERGE_MODE,
    NAME,
    NUMBER,
    RESPOND_WITH_NODE,
    STRING,
    Scanner,
)
from toolkiln.syntax.workflow_values import (
    CLOCK_TIME,
    CRON,
    WEBHOOK_PATH,
    WORKFLOW_NAME,
    decode_json,
    is_timezone,
    shape_out_of_bounds,
)

# Blocks (of if and switch steps) and declared shapes nest at most this deep here; deeper
# workflows are Lark's (its lexer refuses 200 levels of brackets and braces together).
MAX_BLOCK_NESTING = 16
MAX_SHAPE_NESTING = 16
_HTTP_CLAUSES = ("query", "headers", "body", "credentials", "returns")
# The grammar's words that, right after a closing bracket, decline an expression with an
# error (see `broken_expression`); `if` and `else` are tokens of an `expr` wherever they stand.
# (A bracket inside a string is taken too: a decline is always safe.)
_NAME_AFTER_A_CLOSER = re.compile(r"[)\]}](?:[ \t\f\r\n]+|#[^\n]*)*([A-Za-z_][A-Za-z0-9_]*)")
_KEYWORDS_IN_EXPR = KEYWORDS - {"if", "else"}
_KEYWORDS_IN_RESPOND = KEYWORDS
Label = tuple[str, str, int, int]  # the text (unescaped), the token's kind, start and end


def try_parse_workflow(text: str, ctx: ParseContext) -> w.Workflow | None:
    """The workflow in `text`, or None: with `ctx.diagnostics` when the text was read whole and
    only its expressions are wrong (they are then every diagnostic Lark's path reports, in its
    order), else with none when Lark must decide (see the module docstring)."""
    try:
        workflow = WorkflowParser(text, ctx).workflow()
    except (Declined, RecursionError):
        ctx.diagnostics.clear()
        return None
    return None if ctx.diagnostics else workflow


class WorkflowParser:
    """Recursive descent, one method per rule of workflow.lark."""

    def __init__(self, text: str, ctx: ParseContext) -> None:
        self.text = text
        self.ctx = ctx
        self.scan = Scanner(text)
        self.blocks = 0

    def span_from(self, start: int) -> Any:
        """The span from `start` to the end of the last token taken (a rule's extent)."""
        return self.ctx.span(start, self.scan.last_end)

    # --- the workflow and its trigger -------------------------------------------------------

    def workflow(self) -> w.Workflow:
        scan = self.scan
        start = scan.expect_keyword("workflow")
        name, kind, _, _ = self.label()
        if not (WORKFLOW_NAME.fullmatch(name) if kind == "name" else name.strip()):
            raise Declined
        description = self.string() if scan.keyword("description") else None
        extra = self.json() if scan.keyword("with") else None
        if description is None and extra is None:
            raise Declined
        trigger = self.trigger()
        if scan.keyword("with"):
            trigger = replace(trigger, extra=self.json())
        steps = []
        while not scan.at_end():
            steps.append(self.step())
        return w.Workflow(
            name=name,
            description=description,
            trigger=trigger,
            steps=tuple(steps),
            extra=extra or {},
            span=self.span_from(start),
        )

    def trigger(self) -> w.Trigger:
        scan = self.scan
        start = scan.expect_keyword("on")
        if scan.keyword("webhook"):
            return self.webhook(start)
        if scan.keyword("manual"):
            return w.ManualTrigger(span=self.span_from(start))
        if scan.keyword("schedule"):
            rule = self.schedule_rule()
            zone = self.string() if scan.keyword("timezone") else None
            if zone is not None and not is_timezone(zone):
                raise Declined
            return w.ScheduleTrigger(**rule, timezone=zone, span=self.span_from(start))
        return w.NodeTrigger(node=self.node_spec(), span=self.span_from(start))

    def webhook(self, start: int) -> w.WebhookTrigger:
        scan = self.scan
        method = cast(w.HttpMethod, self.one_of(w.HTTP_METHODS))
        path = self.string()
        if not WEBHOOK_PATH.fullmatch(path):
            raise Declined
        body = self.bounded(self.shape(0)) if scan.keyword("body") else None
        respond = scan.optional(RESPOND_WITH_NODE) is not None
        return w.WebhookTrigger(
            method=method, path=path, respond_with_node=respond, body=body, span=self.span_from(start)
        )

    def schedule_rule(self) -> dict[str, Any]:
        scan = self.scan
        if scan.keyword("daily"):
            scan.expect_keyword("at")
            at = self.string()
            if not CLOCK_TIME.fullmatch(at):
                raise Declined
            return {"rule": "daily", "at": at}
        if scan.keyword("every"):
            interval = self.count()
            return {"rule": "every", "interval": interval, "unit": self.one_of(w.SCHEDULE_UNITS)}
        scan.expect_keyword("cron")
        cron = self.string().strip()
        if not CRON.fullmatch(cron):
            raise Declined
        return {"rule": "cron", "cron": cron}

    def node_spec(self) -> w.NodeSpec:
        scan = self.scan
        start = scan.expect_keyword("node")
        name = self.label()[0]
        if not name.strip():
            raise Declined
        scan.expect_keyword("type")
        type_ = self.string()
        scan.expect_keyword("version")
        number = float(scan.token(NUMBER)[0])
        parameters = self.json()
        credentials = self.credentials() if scan.word() == "credentials" else None
        returns = self.returns() if scan.word() == "returns" else None
        return w.NodeSpec(
            name=name,
            type=type_,
            version=int(number) if number.is_integer() else number,
            parameters=parameters,
            credentials=credentials,
            returns=returns,
            span=self.span_from(start),
        )

    def credentials(self) -> w.Credentials:
        start = self.scan.expect_keyword("credentials")
        type_ = self.scan.token(NAME)[0]
        return w.Credentials(type=type_, name=self.string(), span=self.span_from(start))

    # --- steps ----------------------------------------------------------------------------

    def step(self) -> w.Step:
        scan = self.scan
        start = scan.pos
        after = self.wiring() if scan.keyword("after") else None
        step = self.step_body()
        extra = self.json() if scan.keyword("with") else None
        if after is None and extra is None:
            return step
        return replace(step, after=after, extra=extra or {}, span=self.span_from(start))

    def step_body(self) -> w.Step:
        word = self.scan.word()
        if word == "node":
            start = self.scan.pos
            spec = self.node_spec()
            return w.NodeStep(name=spec.name, node=spec, span=self.span_from(start))
        rule = _NAMED_STEPS.get(word or "")
        if word is None or rule is None:
            raise Declined
        start = self.scan.expect_keyword(word)
        return rule(self, self.step_name(), start)

    def wiring(self) -> tuple[w.Wire, ...]:
        scan = self.scan
        if scan.keyword("nothing"):
            return ()
        wires = [self.wire()]
        while scan.punct(","):
            wires.append(self.wire())
        return tuple(wires)

    def wire(self) -> w.Wire:
        scan = self.scan
        source, _, start, _ = self.label()
        output = input_ = 0
        if scan.punct("["):
            output = self.index()
            scan.expect("]")
        if scan.punct("->"):
            input_ = self.index()
        return w.Wire(source=source, output=output, input=input_, span=self.span_from(start))

    def set_step(self, name: str, start: int) -> w.SetStep:
        fields = self.fields(self.field)
        return w.SetStep(name=name, fields=fields, span=self.span_from(start))

    def field(self) -> w.SetField:
        name, start, _ = self.scan.token(NAME)
        if name in RESERVED:
            raise Declined
        self.scan.expect("=")
        return w.SetField(name=name, value=self.expression(respond_body=False), span=self.span_from(start))

    def if_step(self, name: str, start: int) -> w.IfStep:
        condition = self.expression(respond_body=False)
        then = self.block()
        otherwise = self.block() if self.scan.keyword("else") else ()
        return w.IfStep(name=name, condition=condition, then=then, otherwise=otherwise, span=self.span_from(start))

    def switch_step(self, name: str, start: int) -> w.SwitchStep:
        scan = self.scan
        scan.expect("{")
        cases = []
        while scan.word() == "case":
            case_start = scan.expect_keyword("case")
            condition = self.expression(respond_body=False)
            steps = self.block()
            cases.append(w.SwitchCase(condition=condition, steps=steps, span=self.span_from(case_start)))
        if not cases:
            raise Declined
        otherwise = self.block() if scan.keyword("else") else None
        scan.expect("}")
        return w.SwitchStep(name=name, cases=tuple(cases), otherwise=otherwise, span=self.span_from(start))

    def respond_step(self, name: str, start: int) -> w.RespondStep:
        body = self.expression(respond_body=True)
        return w.RespondStep(name=name, body=body, span=self.span_from(start))

    def http_step(self, name: str, start: int) -> w.HttpStep:
        scan = self.scan
        method = cast(w.HttpMethod, self.one_of(w.HTTP_METHODS))
        url = self.template()
        parts: dict[str, Any] = {}
        while (clause := scan.word()) is not None and clause in _HTTP_CLAUSES:
            if clause in parts:
                raise Declined
            if clause == "credentials":
                parts[clause] = self.credentials()
            elif clause == "returns":
                parts[clause] = self.returns()
            else:
                scan.expect_keyword(clause)
                parts[clause] = self.fields(self.pair)
        return w.HttpStep(name=name, method=method, url=url, span=self.span_from(start), **parts)

    def pair(self) -> w.SetField:
        name, _, start, _ = self.label()
        self.scan.expect("=")
        return w.SetField(name=name, value=self.expression(respond_body=False), span=self.span_from(start))

    def merge_step(self, name: str, start: int) -> w.MergeStep:
        mode: Literal["append", "position"] = "append" if self.scan.optional(MERGE_MODE) is None else "position"
        return w.MergeStep(name=name, mode=mode, span=self.span_from(start))

    def wait_step(self, name: str, start: int) -> w.WaitStep:
        amount = self.count()
        unit = cast(w.WaitUnit, self.one_of(w.WAIT_UNITS))
        return w.WaitStep(name=name, amount=amount, unit=unit, span=self.span_from(start))

    def block(self) -> tuple[w.Step, ...]:
        scan = self.scan
        scan.expect("{")
        self.blocks += 1
        if self.blocks > MAX_BLOCK_NESTING:
            raise Declined
        steps = []
        while not scan.punct("}"):
            if scan.at_end():
                raise Declined
            steps.append(self.step())
        self.blocks -= 1
        return tuple(steps)

    # --- declared shapes --------------------------------------------------------------------

    def returns(self) -> w.Shape:
        self.scan.expect_keyword("returns")
        return self.bounded(self.shape(0))

    @staticmethod
    def bounded(shape: w.Shape) -> w.Shape:
        if shape_out_of_bounds(shape) is not None:
            raise Declined
        return shape

    def shape(self, nesting: int) -> w.Shape:
        if nesting > MAX_SHAPE_NESTING:
            raise Declined
        start = self.scan.pos
        fields = self.separated(lambda: self.shape_field(nesting))
        if len({field.name for field in fields}) != len(fields):
            raise Declined
        return w.Shape(fields=fields, span=self.span_from(start))

    def shape_field(self, nesting: int) -> w.ShapeField:
        name, _, start, _ = self.label()
        self.scan.expect(":")
        return w.ShapeField(name=name, type=self.field_type(nesting), span=self.span_from(start))

    def field_type(self, nesting: int) -> w.FieldType:
        scan = self.scan
        start = scan.pos
        if scan.text.startswith("{", start):
            shape = self.shape(nesting + 1)
            return w.FieldType(name="object", shape=shape, span=shape.span)
        if scan.punct("["):
            items = self.field_type(nesting + 1)
            scan.expect("]")
            return w.FieldType(name="array", items=items, span=self.span_from(start))
        name = self.one_of(w.FIELD_TYPES)
        return w.FieldType(name=name, span=self.span_from(start))

    # --- small pieces -----------------------------------------------------------------------

    def separated(self, item: Any) -> tuple[Any, ...]:
        """`"{" [item ("," item)* [","]] "}"`: the items."""
        scan = self.scan
        scan.expect("{")
        items = []
        while not scan.punct("}"):
            items.append(item())
            if not scan.punct(","):
                scan.expect("}")
                break
        return tuple(items)

    def fields(self, item: Any) -> tuple[w.SetField, ...]:
        """The fields of a set step (or a query, headers or body clause): each name once."""
        fields: tuple[w.SetField, ...] = self.separated(item)
        if len({field.name for field in fields}) != len(fields):
            raise Declined
        return fields

    def label(self) -> Label:
        """A NAME or a STRING (unescaped)."""
        scan = self.scan
        if scan.word() is not None:
            text, start, end = scan.token(NAME)
            return text, "name", start, end
        text, start, end = scan.token(STRING)
        return _unescape(text), "string", start, end

    def step_name(self) -> str:
        name = self.scan.token(NAME)[0]
        if name in RESERVED:
            raise Declined
        return name

    def one_of(self, allowed: tuple[str, ...]) -> str:
        word = self.scan.token(NAME)[0]
        if word not in allowed:
            raise Declined
        return word

    def string(self) -> str:
        return _unescape(self.scan.token(STRING)[0])

    def count(self) -> int:
        """A positive whole number (an interval, a wait)."""
        digits = self.scan.token(NUMBER)[0]
        if len(digits) > MAX_LITERAL_DIGITS or not digits.isdigit() or int(digits) == 0:
            raise Declined
        return int(digits)

    def index(self) -> int:
        digits = self.scan.token(NUMBER)[0]
        if len(digits) > MAX_LITERAL_DIGITS or not digits.isdigit():
            raise Declined
        return int(digits)

    def json(self) -> dict[str, Any]:
        start, end = self.scan.json_extent()
        try:
            data: dict[str, Any] = decode_json(self.text[start:end])
        except ValueError:
            raise Declined from None
        return data

    def expression(self, respond_body: bool) -> n.Expr:
        start, end = self.scan.extent(respond_body)
        if end - start > MAX_SOURCE_TOKENS:  # (Lark's front end counts its tokens)
            raise Declined
        ctx = self.ctx.at(start)
        expr = parse_expression(self.text[start:end], ctx)
        if ctx.diagnostics:
            return self.broken_expression(start, end, ctx.diagnostics, respond_body)
        if expr is None:
            raise Declined
        return expr

    def broken_expression(self, start: int, end: int, diagnostics: list[Any], respond_body: bool) -> n.Expr:
        """An expression the compute parser reported: its diagnostics are kept (the caller
        returns them, and no workflow) and the parse goes on, as Lark's builder does with the
        same extent. A grammar word after a closing bracket is declined: after a `)` or `]`
        Lark's lexer reads a step's word (or `with`) as a keyword, so its extent may end there
        (no valid expression has a name there, so only a broken one meets it)."""
        words = _KEYWORDS_IN_RESPOND if respond_body else _KEYWORDS_IN_EXPR
        if any(name in words for name in _NAME_AFTER_A_CLOSER.findall(self.text, start, end)):
            raise Declined
        self.ctx.diagnostics.extend(diagnostics)
        return n.NullLit(span=self.ctx.span(start, end))

    def template(self) -> n.Template:
        text, start, end = self.scan.token(STRING)
        ctx = self.ctx.at(start + 1)
        template = parse_template(text[1:-1], ctx, escaped=True)
        if ctx.diagnostics:  # kept, as an expression's (its extent is the STRING token)
            self.ctx.diagnostics.extend(ctx.diagnostics)
            return n.Template(parts=(), span=self.ctx.span(start, end))
        if template is None:
            raise Declined
        return template


# The steps that begin with their keyword and a step name: the rule that reads the rest.
_NAMED_STEPS: dict[str, Callable[[WorkflowParser, str, int], w.Step]] = {
    "set": WorkflowParser.set_step,
    "if": WorkflowParser.if_step,
    "switch": WorkflowParser.switch_step,
    "respond": WorkflowParser.respond_step,
    "http": WorkflowParser.http_step,
    "merge": WorkflowParser.merge_step,
    "wait": WorkflowParser.wait_step,
}


def _unescape(quoted: str) -> str:
    try:
        return unescape(quoted[1:-1])
    except EscapeError:
        raise Declined from None
