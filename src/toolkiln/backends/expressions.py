"""Printing expressions with the fewest parentheses that keep their meaning.

Shared by the text and JSON printers: the JSON DSL carries expressions as text too.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import assert_never

from toolkiln.ast import compute as n
from toolkiln.ast.visitor import left_chain
from toolkiln.syntax.strings import quote

# Binding strength, loosest first (mirrors grammar/compute.lark).
CONDITIONAL, OR, AND, NOT, COMPARE, SUM, TERM, FACTOR, POWER, POSTFIX = range(10)
_BINARY = {"or": OR, "and": AND, "+": SUM, "-": SUM, "*": TERM, "/": TERM, "%": TERM}
_OPERANDS = {OR: (OR, AND), AND: (AND, NOT), SUM: (SUM, TERM), TERM: (TERM, FACTOR)}


def _strengths(op: n.BinaryOp) -> tuple[int, int, int]:
    """The least binding strength of the left and right operands of `op`, and its own."""
    if op == "**":
        return POSTFIX, FACTOR, POWER
    if op in _BINARY:
        strength = _BINARY[op]
        return (*_OPERANDS[strength], strength)
    return SUM, SUM, COMPARE


def number_text(value: Decimal) -> str:
    return str(value)


def single_quote(value: str) -> str:
    """A literal for inside a template hole of the text DSL: single quotes, and `"` escaped
    so the enclosing double-quoted template string stays intact."""
    body = quote(value)[1:-1].replace('\\"', "\\u0022").replace("'", "\\'")
    return f"'{body}'"


class ExprPrinter:
    def __init__(self, *, in_template: bool = False, records_in_parentheses: bool = False) -> None:
        """`records_in_parentheses`: for the workflow text, whose grammar ends a condition at
        its first `{` (a block), so a record literal is written `({"k": v})` there."""
        self.string = single_quote if in_template else quote
        self.records_in_parentheses = records_in_parentheses

    def print(self, expr: n.Expr, minimum: int = CONDITIONAL) -> str:
        text, strength = self._print(expr)
        return f"({text})" if strength < minimum else text

    def _print(self, expr: n.Expr) -> tuple[str, int]:
        p = self.print
        match expr:
            case n.NumberLit() | n.StringLit() | n.BoolLit() | n.NullLit():
                return self.literal(expr)
            case n.Name(name=name):
                return name, POSTFIX
            case n.Unary(op="not", operand=operand):
                return f"not {p(operand, NOT)}", NOT
            case n.Unary(op=op, operand=operand):
                return f"{op}{p(operand, FACTOR)}", FACTOR
            case n.Binary():
                return self.binary(expr)
            case n.Conditional(test=test, then=then, otherwise=otherwise):
                return f"{p(then, OR)} if {p(test, OR)} else {p(otherwise)}", CONDITIONAL
            case n.Call(function=function, args=(n.Comprehension() as only,)):
                return f"{function}({self.comprehension(only)})", POSTFIX
            case n.Call(function=function, args=args):
                return f"{function}({', '.join(p(a) for a in args)})", POSTFIX
            case n.Field_(target=target, name=name):
                return f"{p(target, POSTFIX)}.{name}", POSTFIX
            case n.Index(target=target, index=index):
                return f"{p(target, POSTFIX)}[{p(index)}]", POSTFIX
            case n.ListExpr(items=items):
                return f"[{', '.join(p(item) for item in items)}]", POSTFIX
            case n.RecordExpr(entries=entries):
                record = "{" + ", ".join(f"{self.string(e.key)}: {p(e.value)}" for e in entries) + "}"
                return (f"({record})" if self.records_in_parentheses else record), POSTFIX
            case n.Comprehension():
                return f"[{self.comprehension(expr)}]", POSTFIX
            case n.Try(body=body, var=var, handler=handler):
                tried = f"({p(body)})" if isinstance(body, n.Try) else p(body)
                return f"try {tried} catch {var}: {p(handler)}", CONDITIONAL
            case _:
                assert_never(expr)

    def literal(self, expr: n.NumberLit | n.StringLit | n.BoolLit | n.NullLit) -> tuple[str, int]:
        match expr:
            case n.NumberLit(value=value):
                return number_text(value), FACTOR if value.is_signed() else POSTFIX
            case n.StringLit(value=value):
                return self.string(value), POSTFIX
            case n.BoolLit(value=value):
                return ("true" if value else "false"), POSTFIX
            case n.NullLit():
                return "null", POSTFIX
            case _:
                assert_never(expr)

    def binary(self, expr: n.Binary) -> tuple[str, int]:
        """A left-deep chain (see `left_chain`) in a loop: its text grows at the end, and
        parentheses around all of it are counted and written once, so printing is linear."""
        leaf, chain = left_chain(expr)
        text, strength = self._print(leaf)
        pieces, opened = [text], 0
        for node in chain:
            left_min, right_min, node_strength = _strengths(node.op)
            if strength < left_min:
                opened += 1
                pieces.append(")")
            pieces.append(f" {node.op} {self.print(node.right, right_min)}")
            strength = node_strength
        return "(" * opened + "".join(pieces), strength

    def comprehension(self, expr: n.Comprehension) -> str:
        text = f"{self.print(expr.element)} for {expr.var} in {self.print(expr.iterable, OR)}"
        if expr.condition is not None:
            text += f" if {self.print(expr.condition, OR)}"
        return text

    def template(self, template: n.Template, escape_text: Callable[[str], str]) -> str:
        """A template's source. A literal `{{` in its text is written as the hole `{{"{{"}}`,
        the only way to write it (the front ends read such a hole back as text)."""
        literal_braces = "{{" + self.string("{{") + "}}"
        out = []
        for part in template.parts:
            if isinstance(part, n.TextPart):
                out.append(literal_braces.join(escape_text(piece) for piece in part.text.split("{{")))
            else:
                spec = f":{part.spec}" if part.spec else ""
                # a `try`'s `catch error:` would read as the start of a format spec
                hole = self.print(part.expr, OR if isinstance(part.expr, n.Try) else CONDITIONAL)
                out.append("{{" + hole + spec + "}}")
        return "".join(out)
