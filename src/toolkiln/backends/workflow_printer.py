"""Workflow AST -> canonical workflow DSL text (`toolkiln workflow fmt`, `CompiledWorkflow.to_text()`).

Parsing the printed text gives the same AST (spans aside), and printing is idempotent. Compute
expressions and strings print as the compute printer prints them; raw n8n JSON (`node`
parameters, `with {...}`) prints as compact single-line JSON in its own key order.

Given the comments of the text the workflow was parsed from, each is kept with its step: before
it, or at the end of its first line; a comment inside a step's braces moves before the step,
and one inside an `if` or `switch` block stays in the block. Their order never changes.
"""

from __future__ import annotations

import json
import re
from collections import deque
from functools import cache
from itertools import takewhile
from typing import Any, assert_never

from toolkiln.ast import compute as n
from toolkiln.ast import workflow as w
from toolkiln.ast.visitor import walk
from toolkiln.backends.expressions import OR, ExprPrinter
from toolkiln.syntax.strings import quote

INDENT = "  "
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@cache
def _keywords() -> frozenset[str]:
    """The words of the workflow grammar (`set`, `after`, `nothing`, ...) and the compute
    language's reserved words: a name spelt like one must be quoted, or cannot name a step."""
    from toolkiln.syntax.words import RESERVED
    from toolkiln.syntax.workflow_scanner import KEYWORDS

    return KEYWORDS | RESERVED


def is_plain_name(name: str) -> bool:
    """Whether `name` can be written bare: an identifier that is no keyword or reserved word."""
    return bool(IDENTIFIER.fullmatch(name)) and name not in _keywords()


# The words that may follow a respond body and can be names: those that begin a step, and `with`.
FOLLOWING_WORDS = frozenset({"after", "set", "switch", "respond", "http", "merge", "wait", "node", "with"})


def _names_a_keyword(expr: n.Expr) -> bool:
    return any(isinstance(node, n.Name | n.Field_) and node.name in FOLLOWING_WORDS for node in walk(expr))


def raw_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class WorkflowPrinter:
    def __init__(self, comments: list[tuple[int, str]] | None = None) -> None:
        self.expr = ExprPrinter(records_in_parentheses=True)
        self.hole = ExprPrinter(in_template=True)
        self.lines: list[str] = []
        self.comments = deque(sorted(comments or ()))  # (line, text) of the source, in order

    def flush_before(self, line: int | None, pad: str) -> None:
        """Print, as lines of their own, the comments of source lines before `line` (all: None)."""
        while self.comments and (line is None or self.comments[0][0] < line):
            self.lines.append(pad + self.comments.popleft()[1])

    def on_line(self, line: int) -> str:
        """The comment at the end of source line `line`, taken ("" if none)."""
        return "  " + self.comments.popleft()[1] if self.comments and self.comments[0][0] == line else ""

    def workflow(self, workflow: w.Workflow) -> str:
        from toolkiln.syntax.workflow_values import WORKFLOW_NAME

        self.flush_before(workflow.span.line, "")
        header_comment = self.on_line(workflow.span.line)

        name = (
            workflow.name
            if WORKFLOW_NAME.fullmatch(workflow.name) and is_plain_name(workflow.name)
            else quote(workflow.name)
        )
        self.lines.append(f"workflow {name}{header_comment}")
        if workflow.description is not None:
            self.lines.append(f"description {quote(workflow.description)}")
        if workflow.extra:
            self.lines.append(f"with {raw_json(workflow.extra)}")
        self.lines.append("")
        self.flush_before(workflow.trigger.span.line, "")
        trigger = self.trigger(workflow.trigger) + self.extra(workflow.trigger.extra)
        self.lines.append(trigger + self.on_line(workflow.trigger.span.line))
        if workflow.steps:
            self.lines.append("")
        self.block(workflow.steps, 0)
        self.flush_before(None, "")
        return "\n".join(self.lines) + "\n"

    def trigger(self, trigger: w.Trigger) -> str:
        match trigger:
            case w.WebhookTrigger():
                respond = " respond with node" if trigger.respond_with_node else ""
                body = "" if trigger.body is None else f" body {self.shape(trigger.body)}"
                return f"on webhook {trigger.method} {quote(trigger.path)}{body}{respond}"
            case w.ManualTrigger():
                return "on manual"
            case w.ScheduleTrigger():
                rule = {
                    "daily": lambda: f"daily at {quote(trigger.at or '')}",
                    "every": lambda: f"every {trigger.interval} {trigger.unit}",
                    "cron": lambda: f"cron {quote(trigger.cron or '')}",
                }[trigger.rule]()
                zone = f" timezone {quote(trigger.timezone)}" if trigger.timezone is not None else ""
                return f"on schedule {rule}{zone}"
            case w.NodeTrigger():
                return f"on {self.node_spec(trigger.node)}"
            case _:
                assert_never(trigger)

    @staticmethod
    def extra(extra: dict[str, Any]) -> str:
        return f" with {raw_json(extra)}" if extra else ""

    def block(self, steps: tuple[w.Step, ...], depth: int) -> None:
        for step in steps:
            self.step(step, depth)

    def step(self, step: w.Step, depth: int) -> None:
        pad = INDENT * depth
        self.flush_before(step.span.line, pad)
        first_line, last_line = step.span.line, step.span.end_line
        within = takewhile(lambda comment: comment[0] <= last_line, self.comments)
        if not isinstance(step, w.IfStep | w.SwitchStep) and any(line > first_line for line, _ in within):
            # Comments inside the step's lines cannot stay there in canonical form: before it,
            # with the one at the end of its first line, in their order.
            self.flush_before(last_line + 1, pad)
        trailing = self.on_line(first_line)
        first = len(self.lines)
        if step.after is not None:
            self.lines.append(f"{pad}after {', '.join(self.wire(wire) for wire in step.after) or 'nothing'}")
        match step:
            case w.SetStep():
                self.braced(f"{pad}set {step.name}", [self.field(f) for f in step.fields], pad)
            case w.IfStep():
                self.lines.append(f"{pad}if {step.name} {self.expr.print(step.condition)} {{")
                self.block(step.then, depth + 1)
                if step.otherwise:
                    self.lines.append(f"{pad}}} else {{")
                    self.block(step.otherwise, depth + 1)
                self.flush_before(step.span.end_line + 1, pad + INDENT)
                self.lines.append(f"{pad}}}")
            case w.SwitchStep():
                self.lines.append(f"{pad}switch {step.name} {{")
                inner = pad + INDENT
                for case in step.cases:
                    self.flush_before(case.span.line, inner)
                    self.lines.append(f"{inner}case {self.expr.print(case.condition)} {{")
                    self.block(case.steps, depth + 2)
                    self.lines.append(f"{inner}}}")
                if step.otherwise is not None:
                    self.lines.append(f"{inner}else {{")
                    self.block(step.otherwise, depth + 2)
                    self.lines.append(f"{inner}}}")
                self.flush_before(step.span.end_line + 1, inner)
                self.lines.append(f"{pad}}}")
            case w.RespondStep():
                # A respond body ends at the next step, so a conditional needs parentheses, and
                # so does a body naming a keyword (grammar/workflow.lark, `rexpr`).
                body = (
                    f"({self.expr.print(step.body)})" if _names_a_keyword(step.body) else self.expr.print(step.body, OR)
                )
                self.lines.append(f"{pad}respond {step.name} {body}")
            case w.HttpStep():
                self.http(step, pad)
            case w.MergeStep():
                self.lines.append(f"{pad}merge {step.name}" + (" by position" if step.mode == "position" else ""))
            case w.WaitStep():
                self.lines.append(f"{pad}wait {step.name} {step.amount} {step.unit}")
            case w.NodeStep():
                self.lines.append(pad + self.node_spec(step.node))
            case _:
                assert_never(step)
        self.lines[-1] += self.extra(step.extra)
        self.lines[first] += trailing

    def braced(self, opening: str, entries: list[str], pad: str) -> None:
        if not entries:
            self.lines.append(f"{opening} {{}}")
            return
        self.lines.append(f"{opening} {{")
        self.lines.extend(f"{pad}{INDENT}{entry}," for entry in entries)
        self.lines.append(f"{pad}}}")

    def http(self, step: w.HttpStep, pad: str) -> None:
        url = self.hole.template(step.url, lambda text: quote(text)[1:-1])
        self.lines.append(f'{pad}http {step.name} {step.method} "{url}"')
        for clause, pairs in (("query", step.query), ("headers", step.headers), ("body", step.body)):
            if pairs or (clause == "body" and pairs is not None):
                self.braced(f"{pad}{INDENT}{clause}", [self.pair(p) for p in pairs], pad + INDENT)
        if step.credentials is not None:
            self.lines.append(f"{pad}{INDENT}{self.credentials(step.credentials)}")
        if step.returns is not None:
            self.lines.append(f"{pad}{INDENT}returns {self.shape(step.returns)}")

    def node_spec(self, spec: w.NodeSpec) -> str:
        text = (
            f"node {self.label(spec.name)} type {quote(spec.type)} version {spec.version} {raw_json(spec.parameters)}"
        )
        if spec.credentials is not None:
            text += " " + self.credentials(spec.credentials)
        if spec.returns is not None:
            text += f" returns {self.shape(spec.returns)}"
        return text

    def shape(self, shape: w.Shape) -> str:
        fields = (f"{self.label(field.name)}: {self.field_type(field.type)}" for field in shape.fields)
        return "{" + ", ".join(fields) + "}"

    def field_type(self, type_: w.FieldType) -> str:
        if type_.shape is not None:
            return self.shape(type_.shape)
        if type_.items is not None:
            return f"[{self.field_type(type_.items)}]"
        return type_.name

    @staticmethod
    def credentials(credentials: w.Credentials) -> str:
        return f"credentials {credentials.type} {quote(credentials.name)}"

    def field(self, field: w.SetField) -> str:
        return f"{field.name} = {self.expr.print(field.value)}"

    def pair(self, field: w.SetField) -> str:
        return f"{self.label(field.name)} = {self.expr.print(field.value)}"

    def wire(self, wire: w.Wire) -> str:
        text = self.label(wire.source)
        if wire.output:
            text += f"[{wire.output}]"
        if wire.input:
            text += f" -> {wire.input}"
        return text

    @staticmethod
    def label(name: str) -> str:
        return name if is_plain_name(name) else quote(name)


def print_workflow(workflow: w.Workflow, comments: list[tuple[int, str]] | None = None) -> str:
    """The canonical text; `comments` (line, text) of the source are kept (`syntax.comments`)."""
    return WorkflowPrinter(comments).workflow(workflow)
