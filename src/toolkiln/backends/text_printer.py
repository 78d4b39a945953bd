"""AST -> canonical text DSL. `toolkiln fmt` is this printer applied to a parsed file."""

from __future__ import annotations

from collections import deque
from typing import assert_never

from toolkiln.ast import compute as n
from toolkiln.ast.types import Type
from toolkiln.backends.expressions import ExprPrinter
from toolkiln.check import check_program
from toolkiln.syntax.strings import quote

INDENT = "  "


class TextPrinter:
    """Prints a program; given the comments of the text it was parsed from (line, text), it
    keeps each one before the step that follows it, or at the end of the line it ended."""

    def __init__(self, comments: list[tuple[int, str]] | None = None) -> None:
        self.expr = ExprPrinter()
        self.hole = ExprPrinter(in_template=True)
        self.lines: list[str] = []
        self.comments = deque(sorted(comments or ()))

    def program(self, program: n.Program) -> str:
        if program.name is None:
            self.block(program.steps, 0)
        else:
            self.flush_before(program.span.line, "")
            self.header(program)
            self.lines.append("{")
            self.block(program.steps, 1)
            self.flush_before(program.span.end_line, INDENT)
            self.lines.append("}")
        self.flush_before(None, "")
        return "\n".join(self.lines) + "\n"

    def flush_before(self, line: int | None, pad: str) -> None:
        while self.comments and (line is None or self.comments[0][0] < line):
            self.lines.append(pad + self.comments.popleft()[1])

    def trailing(self, line: int) -> None:
        if self.comments and self.comments[0][0] == line:
            self.lines[-1] += "  " + self.comments.popleft()[1]

    def header(self, program: n.Program) -> None:
        # A JSON definition may leave its parameters to inference; the text DSL declares them,
        # so they are declared as the checker infers them.
        params = program.parameters if program.parameters is not None else inferred_parameters(program)
        if not params:
            self.lines.append(f"tool {program.name}()")
        else:
            self.lines.append(f"tool {program.name}(")
            self.lines.extend(f"{INDENT}{self.param(param)}," for param in params)
            self.lines.append(")")
        if program.description is not None:
            self.lines.append(f"description {quote(program.description)}")
        if program.risk_level is not None:
            self.lines.append(f"risk {program.risk_level}")
        for table in program.tables or ():
            described = f" {quote(table.description)}" if table.description is not None else ""
            self.lines.append(f"table {table.name}: {type_text(table.type)}{described}")

    def param(self, param: n.Param) -> str:
        text = f"{param.name}: {type_text(param.type)}"
        if param.default is not None:
            text += f" = {self.expr.print(param.default)}"
        if param.description is not None:
            text += f" {quote(param.description)}"
        return text

    def block(self, steps: tuple[n.Step, ...], depth: int) -> None:
        for step in steps:
            self.step(step, depth)

    def step(self, step: n.Step, depth: int, prefix: str = "") -> None:
        pad = INDENT * depth
        if not prefix:
            self.flush_before(step.span.line, pad)
        match step:
            case n.Assign(target=target, value=value):
                self.lines.append(f"{pad}{target} = {self.expr.print(value)}")
            case n.Lookup(target=target, table=table, key=key, default=default):
                text = f"{pad}{target} = lookup {table}[{self.expr.print(key)}]"
                if default is not None:
                    text += f" default {self.expr.print(default)}"
                self.lines.append(text)
            case n.Format(target=target, template=template):
                body = self.hole.template(template, lambda text: quote(text)[1:-1])
                self.lines.append(f'{pad}{target} = format "{body}"')
            case n.CallTool(target=target, tool=tool, args=args):
                listed = ", ".join(f"{a.name} = {self.expr.print(a.value)}" for a in args)
                self.lines.append(f"{pad}{target} = call {tool}({listed})")
            case n.If():
                self.if_chain(step, depth, prefix)
            case n.Return(value=value):
                self.lines.append(f"{pad}return {self.expr.print(value)}")
            case _:
                assert_never(step)
        if not isinstance(step, n.If):
            self.trailing(step.span.line)

    def if_chain(self, step: n.If, depth: int, prefix: str) -> None:
        pad = INDENT * depth
        opening = f"if {self.expr.print(step.condition)} {{"
        if prefix:
            self.lines[-1] += f" {opening}"
        else:
            self.lines.append(f"{pad}{opening}")
        self.trailing(step.span.line)
        self.block(step.then, depth + 1)
        otherwise = step.otherwise
        end_of_then = otherwise[0].span.line if otherwise else step.span.end_line
        self.flush_before(end_of_then, pad + INDENT)
        self.lines.append(f"{pad}}}")
        if len(otherwise) == 1 and isinstance(otherwise[0], n.If):
            self.lines[-1] += " else"
            self.if_chain(otherwise[0], depth, prefix="else")
        elif otherwise:
            self.lines[-1] += " else {"
            self.block(otherwise, depth + 1)
            self.flush_before(step.span.end_line, pad + INDENT)
            self.lines.append(f"{pad}}}")


def print_text(program: n.Program, comments: list[tuple[int, str]] | None = None) -> str:
    return TextPrinter(comments).program(program)


def type_text(type_: Type) -> str:
    """A type as the text DSL declares it: as `str(type_)` reads, with the record keys quoted
    the way the text DSL's strings are (JSON's `\\b` is not one of its escapes)."""
    if type_.fields is None:
        if type_.name == "array" and type_.items is not None and type_.items.name != "any":
            return f"array[{type_text(type_.items)}]" + ("?" if type_.nullable else "")
        return str(type_)
    fields = ", ".join(f"{quote(key)}: {type_text(field)}" for key, field in type_.fields)
    return "{" + fields + "}" + ("?" if type_.nullable else "")


def inferred_parameters(program: n.Program) -> tuple[n.Param, ...]:
    """The parameters the checker infers for `program`, as declarations."""
    return tuple(n.Param(name=p.name, type=p.type) for p in check_program(program).parameters)
