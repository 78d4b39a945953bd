"""The typed AST of the compute language.

Both front ends (text and JSON) build these nodes; every pass consumes them. Nodes are frozen
pydantic models with a `span`; unions are discriminated by `kind`, so passes dispatch with
`match` and end with `assert_never`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from toolkiln.ast.spans import NO_SPAN, Span
from toolkiln.ast.types import Type


class Node(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    span: Span = NO_SPAN


# --- expressions --------------------------------------------------------------------------


class NumberLit(Node):
    kind: Literal["number"] = "number"
    value: Decimal


class StringLit(Node):
    kind: Literal["string"] = "string"
    value: str


class BoolLit(Node):
    kind: Literal["boolean"] = "boolean"
    value: bool


class NullLit(Node):
    kind: Literal["null"] = "null"


class Name(Node):
    kind: Literal["name"] = "name"
    name: str


UnaryOp = Literal["-", "+", "not"]
BinaryOp = Literal["+", "-", "*", "/", "%", "**", "==", "!=", "<", "<=", ">", ">=", "and", "or", "in", "not in"]
ARITHMETIC_OPS = ("+", "-", "*", "/", "%", "**")
ORDER_OPS = ("<", "<=", ">", ">=")
EQUALITY_OPS = ("==", "!=")
LOGIC_OPS = ("and", "or")
MEMBERSHIP_OPS = ("in", "not in")


class Unary(Node):
    kind: Literal["unary"] = "unary"
    op: UnaryOp
    operand: Expr


class Binary(Node):
    kind: Literal["binary"] = "binary"
    op: BinaryOp
    left: Expr
    right: Expr


class Conditional(Node):
    """`then if test else otherwise`."""

    kind: Literal["conditional"] = "conditional"
    test: Expr
    then: Expr
    otherwise: Expr


class Call(Node):
    kind: Literal["call"] = "call"
    function: str
    args: tuple[Expr, ...]


class Field_(Node):
    kind: Literal["field"] = "field"
    target: Expr
    name: str


class Index(Node):
    kind: Literal["index"] = "index"
    target: Expr
    index: Expr


class ListExpr(Node):
    kind: Literal["list"] = "list"
    items: tuple[Expr, ...]


class RecordEntry(Node):
    """`"key": value`: one field of a record literal."""

    key: str
    value: Expr


class RecordExpr(Node):
    """`{"net": net, "vat": vat}`: a record (a JSON object) with these fields, in this order."""

    kind: Literal["record"] = "record"
    entries: tuple[RecordEntry, ...]


class Comprehension(Node):
    """`[element for var in iterable if condition]`: the only iteration, over a finite list."""

    kind: Literal["comprehension"] = "comprehension"
    element: Expr
    var: str
    iterable: Expr
    condition: Expr | None = None


class Try(Node):
    """`try body catch error: handler`: the body's value, or, when the body stops with a coded
    run-time error, the handler's, with `error` bound to `{"code", "message", "value"}`.
    Budgets, limits and internal failures are never caught (semantics/failures.py)."""

    kind: Literal["try"] = "try"
    body: Expr
    var: str
    handler: Expr


Expr = Annotated[
    NumberLit
    | StringLit
    | BoolLit
    | NullLit
    | Name
    | Unary
    | Binary
    | Conditional
    | Call
    | Field_
    | Index
    | ListExpr
    | RecordExpr
    | Comprehension
    | Try,
    Field(discriminator="kind"),
]

LITERALS = (NumberLit, StringLit, BoolLit, NullLit)


# --- templates ----------------------------------------------------------------------------


class TextPart(Node):
    kind: Literal["text"] = "text"
    text: str


class Hole(Node):
    """`{{expr}}` or `{{expr:spec}}` inside a template."""

    kind: Literal["hole"] = "hole"
    expr: Expr
    spec: str | None = None


TemplatePart = Annotated[TextPart | Hole, Field(discriminator="kind")]


class Template(Node):
    parts: tuple[TemplatePart, ...]


# --- steps --------------------------------------------------------------------------------


class Assign(Node):
    """JSON op `math`: `target = value`."""

    kind: Literal["assign"] = "assign"
    target: str
    value: Expr


class Lookup(Node):
    kind: Literal["lookup"] = "lookup"
    target: str
    table: str
    key: Expr
    default: Expr | None = None


class Format(Node):
    kind: Literal["format"] = "format"
    target: str
    template: Template


class ToolArg(Node):
    """`name = value`: one argument of a `call` step."""

    name: str
    value: Expr


class CallTool(Node):
    """JSON op `call`: `target = call tool(name = value, ...)`, a call of another tool."""

    kind: Literal["call_tool"] = "call_tool"
    target: str
    tool: str
    args: tuple[ToolArg, ...] = ()


class If(Node):
    """JSON op `condition`. An empty `otherwise` means there is no else branch."""

    kind: Literal["if"] = "if"
    condition: Expr
    then: tuple[Step, ...]
    otherwise: tuple[Step, ...] = ()


class Return(Node):
    kind: Literal["return"] = "return"
    value: Expr


Step = Annotated[Assign | Lookup | Format | CallTool | If | Return, Field(discriminator="kind")]
# The steps that assign their `target`.
ASSIGNING_STEPS = (Assign, Lookup, Format, CallTool)


# --- declarations and the program ---------------------------------------------------------

RiskLevel = Literal["low", "medium", "high"]


class Param(Node):
    name: str
    type: Type
    description: str | None = None
    default: Expr | None = None


class TableDecl(Node):
    name: str
    type: Type
    description: str | None = None


class Program(Node):
    """A whole compute tool. Bare logic has no name and `parameters is None` (inferred)."""

    name: str | None = None
    description: str | None = None
    parameters: tuple[Param, ...] | None = None
    tables: tuple[TableDecl, ...] | None = None
    risk_level: RiskLevel | None = None
    steps: tuple[Step, ...]


# Forward references (Expr, Step) resolve on first use: with defer_build, no schema is built
# at import (building them all cost more than the rest of `import toolkiln`).
