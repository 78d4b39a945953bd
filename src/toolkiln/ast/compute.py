"""The typed AST of the compute language.

Both front ends (text and JSON) build these nodes; every pass consumes them. Nodes are frozen,
slotted dataclasses with a `span` (not pydantic models: importing pydantic and making the model
classes was most of a command's start-up, issue 34, and the front ends validate what they build
themselves); each has a `kind`, so passes dispatch with `match` and end with `assert_never`.
Rewrites use `dataclasses.replace`, which keeps what it is not told to change.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from toolkiln.ast.spans import NO_SPAN, Span
from toolkiln.ast.types import Type


# Keyword-only: a node is made by naming its fields, as a pydantic model was (and `span`, with
# its default, comes first in every node).
@dataclass(frozen=True, slots=True, kw_only=True)
class Node:
    span: Span = NO_SPAN


# --- expressions --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class NumberLit(Node):
    kind: Literal["number"] = "number"
    value: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class StringLit(Node):
    kind: Literal["string"] = "string"
    value: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BoolLit(Node):
    kind: Literal["boolean"] = "boolean"
    value: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class NullLit(Node):
    kind: Literal["null"] = "null"


@dataclass(frozen=True, slots=True, kw_only=True)
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Unary(Node):
    kind: Literal["unary"] = "unary"
    op: UnaryOp
    operand: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class Binary(Node):
    kind: Literal["binary"] = "binary"
    op: BinaryOp
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class Conditional(Node):
    """`then if test else otherwise`."""

    kind: Literal["conditional"] = "conditional"
    test: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class Call(Node):
    kind: Literal["call"] = "call"
    function: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Field_(Node):
    kind: Literal["field"] = "field"
    target: Expr
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Index(Node):
    kind: Literal["index"] = "index"
    target: Expr
    index: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class ListExpr(Node):
    kind: Literal["list"] = "list"
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordEntry(Node):
    """`"key": value`: one field of a record literal."""

    key: str
    value: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordExpr(Node):
    """`{"net": net, "vat": vat}`: a record (a JSON object) with these fields, in this order."""

    kind: Literal["record"] = "record"
    entries: tuple[RecordEntry, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Comprehension(Node):
    """`[element for var in iterable if condition]`: the only iteration, over a finite list."""

    kind: Literal["comprehension"] = "comprehension"
    element: Expr
    var: str
    iterable: Expr
    condition: Expr | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Try(Node):
    """`try body catch error: handler`: the body's value, or, when the body stops with a coded
    run-time error, the handler's, with `error` bound to `{"code", "message", "value"}`.
    Budgets, limits and internal failures are never caught (semantics/failures.py)."""

    kind: Literal["try"] = "try"
    body: Expr
    var: str
    handler: Expr


Expr = (
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
    | Try
)

LITERALS = (NumberLit, StringLit, BoolLit, NullLit)


# --- templates ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TextPart(Node):
    kind: Literal["text"] = "text"
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Hole(Node):
    """`{{expr}}` or `{{expr:spec}}` inside a template."""

    kind: Literal["hole"] = "hole"
    expr: Expr
    spec: str | None = None


TemplatePart = TextPart | Hole


@dataclass(frozen=True, slots=True, kw_only=True)
class Template(Node):
    parts: tuple[TemplatePart, ...]


# --- steps --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Assign(Node):
    """JSON op `math`: `target = value`."""

    kind: Literal["assign"] = "assign"
    target: str
    value: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class Lookup(Node):
    kind: Literal["lookup"] = "lookup"
    target: str
    table: str
    key: Expr
    default: Expr | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Format(Node):
    kind: Literal["format"] = "format"
    target: str
    template: Template


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolArg(Node):
    """`name = value`: one argument of a `call` step."""

    name: str
    value: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class CallTool(Node):
    """JSON op `call`: `target = call tool(name = value, ...)`, a call of another tool."""

    kind: Literal["call_tool"] = "call_tool"
    target: str
    tool: str
    args: tuple[ToolArg, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class If(Node):
    """JSON op `condition`. An empty `otherwise` means there is no else branch."""

    kind: Literal["if"] = "if"
    condition: Expr
    then: tuple[Step, ...]
    otherwise: tuple[Step, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Return(Node):
    kind: Literal["return"] = "return"
    value: Expr


Step = Assign | Lookup | Format | CallTool | If | Return
# The steps that assign their `target`.
ASSIGNING_STEPS = (Assign, Lookup, Format, CallTool)


# --- declarations and the program ---------------------------------------------------------

RiskLevel = Literal["low", "medium", "high"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Param(Node):
    name: str
    type: Type
    description: str | None = None
    default: Expr | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TableDecl(Node):
    name: str
    type: Type
    description: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Program(Node):
    """A whole compute tool. Bare logic has no name and `parameters is None` (inferred)."""

    name: str | None = None
    description: str | None = None
    parameters: tuple[Param, ...] | None = None
    tables: tuple[TableDecl, ...] | None = None
    risk_level: RiskLevel | None = None
    steps: tuple[Step, ...]
