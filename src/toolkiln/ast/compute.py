"""The typed AST of the compute language.

Both front ends (text and JSON) build these nodes; every pass consumes them. Nodes are frozen,
slotted dataclasses with a `span` (not pydantic models: importing pydantic and making the model
classes was most of a command's start-up, issue 34, and the front ends validate what they build
themselves); each has a `kind`, so passes dispatch with `match` and end with `assert_never`.
Rewrites use `dataclasses.replace`, which keeps what it is not told to change.

Each node writes its own `__init__` (ast/nodes.py says why); tests/unit/ast/test_ast_helpers.py
checks each against the class's fields.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from toolkiln.ast.nodes import Node as Node  # (n.Node: the base of every node)
from toolkiln.ast.nodes import node, set_field
from toolkiln.ast.spans import NO_SPAN, Span
from toolkiln.ast.types import Type

# --- expressions --------------------------------------------------------------------------


@node
class NumberLit(Node):
    kind: Literal["number"] = "number"
    value: Decimal

    def __init__(self, *, span: Span = NO_SPAN, kind: Literal["number"] = "number", value: Decimal) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "value", value)


@node
class StringLit(Node):
    kind: Literal["string"] = "string"
    value: str

    def __init__(self, *, span: Span = NO_SPAN, kind: Literal["string"] = "string", value: str) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "value", value)


@node
class BoolLit(Node):
    kind: Literal["boolean"] = "boolean"
    value: bool

    def __init__(self, *, span: Span = NO_SPAN, kind: Literal["boolean"] = "boolean", value: bool) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "value", value)


@node
class NullLit(Node):
    kind: Literal["null"] = "null"

    def __init__(self, *, span: Span = NO_SPAN, kind: Literal["null"] = "null") -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)


@node
class Name(Node):
    kind: Literal["name"] = "name"
    name: str

    def __init__(self, *, span: Span = NO_SPAN, kind: Literal["name"] = "name", name: str) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "name", name)


UnaryOp = Literal["-", "+", "not"]
BinaryOp = Literal["+", "-", "*", "/", "%", "**", "==", "!=", "<", "<=", ">", ">=", "and", "or", "in", "not in"]
ARITHMETIC_OPS = ("+", "-", "*", "/", "%", "**")
ORDER_OPS = ("<", "<=", ">", ">=")
EQUALITY_OPS = ("==", "!=")
LOGIC_OPS = ("and", "or")
MEMBERSHIP_OPS = ("in", "not in")


@node
class Unary(Node):
    kind: Literal["unary"] = "unary"
    op: UnaryOp
    operand: Expr

    def __init__(self, *, span: Span = NO_SPAN, kind: Literal["unary"] = "unary", op: UnaryOp, operand: Expr) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "op", op)
        set_field(self, "operand", operand)


@node
class Binary(Node):
    kind: Literal["binary"] = "binary"
    op: BinaryOp
    left: Expr
    right: Expr

    def __init__(
        self, *, span: Span = NO_SPAN, kind: Literal["binary"] = "binary", op: BinaryOp, left: Expr, right: Expr
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "op", op)
        set_field(self, "left", left)
        set_field(self, "right", right)


@node
class Conditional(Node):
    """`then if test else otherwise`."""

    kind: Literal["conditional"] = "conditional"
    test: Expr
    then: Expr
    otherwise: Expr

    def __init__(
        self,
        *,
        span: Span = NO_SPAN,
        kind: Literal["conditional"] = "conditional",
        test: Expr,
        then: Expr,
        otherwise: Expr,
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "test", test)
        set_field(self, "then", then)
        set_field(self, "otherwise", otherwise)


@node
class Call(Node):
    kind: Literal["call"] = "call"
    function: str
    args: tuple[Expr, ...]

    def __init__(
        self, *, span: Span = NO_SPAN, kind: Literal["call"] = "call", function: str, args: tuple[Expr, ...]
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "function", function)
        set_field(self, "args", args)


@node
class Field_(Node):
    kind: Literal["field"] = "field"
    target: Expr
    name: str

    def __init__(self, *, span: Span = NO_SPAN, kind: Literal["field"] = "field", target: Expr, name: str) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "target", target)
        set_field(self, "name", name)


@node
class Index(Node):
    kind: Literal["index"] = "index"
    target: Expr
    index: Expr

    def __init__(self, *, span: Span = NO_SPAN, kind: Literal["index"] = "index", target: Expr, index: Expr) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "target", target)
        set_field(self, "index", index)


@node
class ListExpr(Node):
    kind: Literal["list"] = "list"
    items: tuple[Expr, ...]

    def __init__(self, *, span: Span = NO_SPAN, kind: Literal["list"] = "list", items: tuple[Expr, ...]) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "items", items)


@node
class RecordEntry(Node):
    """`"key": value`: one field of a record literal."""

    key: str
    value: Expr

    def __init__(self, *, span: Span = NO_SPAN, key: str, value: Expr) -> None:
        set_field(self, "span", span)
        set_field(self, "key", key)
        set_field(self, "value", value)


@node
class RecordExpr(Node):
    """`{"net": net, "vat": vat}`: a record (a JSON object) with these fields, in this order."""

    kind: Literal["record"] = "record"
    entries: tuple[RecordEntry, ...]

    def __init__(
        self, *, span: Span = NO_SPAN, kind: Literal["record"] = "record", entries: tuple[RecordEntry, ...]
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "entries", entries)


@node
class Comprehension(Node):
    """`[element for var in iterable if condition]`: the only iteration, over a finite list."""

    kind: Literal["comprehension"] = "comprehension"
    element: Expr
    var: str
    iterable: Expr
    condition: Expr | None = None

    def __init__(
        self,
        *,
        span: Span = NO_SPAN,
        kind: Literal["comprehension"] = "comprehension",
        element: Expr,
        var: str,
        iterable: Expr,
        condition: Expr | None = None,
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "element", element)
        set_field(self, "var", var)
        set_field(self, "iterable", iterable)
        set_field(self, "condition", condition)


@node
class Try(Node):
    """`try body catch error: handler`: the body's value, or, when the body stops with a coded
    run-time error, the handler's, with `error` bound to `{"code", "message", "value"}`.
    Budgets, limits and internal failures are never caught (semantics/failures.py)."""

    kind: Literal["try"] = "try"
    body: Expr
    var: str
    handler: Expr

    def __init__(
        self, *, span: Span = NO_SPAN, kind: Literal["try"] = "try", body: Expr, var: str, handler: Expr
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "body", body)
        set_field(self, "var", var)
        set_field(self, "handler", handler)


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


@node
class TextPart(Node):
    kind: Literal["text"] = "text"
    text: str

    def __init__(self, *, span: Span = NO_SPAN, kind: Literal["text"] = "text", text: str) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "text", text)


@node
class Hole(Node):
    """`{{expr}}` or `{{expr:spec}}` inside a template."""

    kind: Literal["hole"] = "hole"
    expr: Expr
    spec: str | None = None

    def __init__(
        self, *, span: Span = NO_SPAN, kind: Literal["hole"] = "hole", expr: Expr, spec: str | None = None
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "expr", expr)
        set_field(self, "spec", spec)


TemplatePart = TextPart | Hole


@node
class Template(Node):
    parts: tuple[TemplatePart, ...]

    def __init__(self, *, span: Span = NO_SPAN, parts: tuple[TemplatePart, ...]) -> None:
        set_field(self, "span", span)
        set_field(self, "parts", parts)


# --- steps --------------------------------------------------------------------------------


@node
class Assign(Node):
    """JSON op `math`: `target = value`."""

    kind: Literal["assign"] = "assign"
    target: str
    value: Expr

    def __init__(self, *, span: Span = NO_SPAN, kind: Literal["assign"] = "assign", target: str, value: Expr) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "target", target)
        set_field(self, "value", value)


@node
class Lookup(Node):
    kind: Literal["lookup"] = "lookup"
    target: str
    table: str
    key: Expr
    default: Expr | None = None

    def __init__(
        self,
        *,
        span: Span = NO_SPAN,
        kind: Literal["lookup"] = "lookup",
        target: str,
        table: str,
        key: Expr,
        default: Expr | None = None,
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "target", target)
        set_field(self, "table", table)
        set_field(self, "key", key)
        set_field(self, "default", default)


@node
class Format(Node):
    kind: Literal["format"] = "format"
    target: str
    template: Template

    def __init__(
        self, *, span: Span = NO_SPAN, kind: Literal["format"] = "format", target: str, template: Template
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "target", target)
        set_field(self, "template", template)


@node
class ToolArg(Node):
    """`name = value`: one argument of a `call` step."""

    name: str
    value: Expr

    def __init__(self, *, span: Span = NO_SPAN, name: str, value: Expr) -> None:
        set_field(self, "span", span)
        set_field(self, "name", name)
        set_field(self, "value", value)


@node
class CallTool(Node):
    """JSON op `call`: `target = call tool(name = value, ...)`, a call of another tool."""

    kind: Literal["call_tool"] = "call_tool"
    target: str
    tool: str
    args: tuple[ToolArg, ...] = ()

    def __init__(
        self,
        *,
        span: Span = NO_SPAN,
        kind: Literal["call_tool"] = "call_tool",
        target: str,
        tool: str,
        args: tuple[ToolArg, ...] = (),
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "target", target)
        set_field(self, "tool", tool)
        set_field(self, "args", args)


@node
class If(Node):
    """JSON op `condition`. An empty `otherwise` means there is no else branch."""

    kind: Literal["if"] = "if"
    condition: Expr
    then: tuple[Step, ...]
    otherwise: tuple[Step, ...] = ()

    def __init__(
        self,
        *,
        span: Span = NO_SPAN,
        kind: Literal["if"] = "if",
        condition: Expr,
        then: tuple[Step, ...],
        otherwise: tuple[Step, ...] = (),
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "condition", condition)
        set_field(self, "then", then)
        set_field(self, "otherwise", otherwise)


@node
class Return(Node):
    kind: Literal["return"] = "return"
    value: Expr

    def __init__(self, *, span: Span = NO_SPAN, kind: Literal["return"] = "return", value: Expr) -> None:
        set_field(self, "span", span)
        set_field(self, "kind", kind)
        set_field(self, "value", value)


Step = Assign | Lookup | Format | CallTool | If | Return
# The steps that assign their `target`.
ASSIGNING_STEPS = (Assign, Lookup, Format, CallTool)


# --- declarations and the program ---------------------------------------------------------

RiskLevel = Literal["low", "medium", "high"]


@node
class Param(Node):
    name: str
    type: Type
    description: str | None = None
    default: Expr | None = None

    def __init__(
        self,
        *,
        span: Span = NO_SPAN,
        name: str,
        type: Type,  # noqa: A002  (the field is named so)
        description: str | None = None,
        default: Expr | None = None,
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "name", name)
        set_field(self, "type", type)
        set_field(self, "description", description)
        set_field(self, "default", default)


@node
class TableDecl(Node):
    name: str
    type: Type
    description: str | None = None

    def __init__(self, *, span: Span = NO_SPAN, name: str, type: Type, description: str | None = None) -> None:  # noqa: A002
        set_field(self, "span", span)
        set_field(self, "name", name)
        set_field(self, "type", type)
        set_field(self, "description", description)


@node
class Program(Node):
    """A whole compute tool. Bare logic has no name and `parameters is None` (inferred)."""

    name: str | None = None
    description: str | None = None
    parameters: tuple[Param, ...] | None = None
    tables: tuple[TableDecl, ...] | None = None
    risk_level: RiskLevel | None = None
    steps: tuple[Step, ...]

    def __init__(
        self,
        *,
        span: Span = NO_SPAN,
        name: str | None = None,
        description: str | None = None,
        parameters: tuple[Param, ...] | None = None,
        tables: tuple[TableDecl, ...] | None = None,
        risk_level: RiskLevel | None = None,
        steps: tuple[Step, ...],
    ) -> None:
        set_field(self, "span", span)
        set_field(self, "name", name)
        set_field(self, "description", description)
        set_field(self, "parameters", parameters)
        set_field(self, "tables", tables)
        set_field(self, "risk_level", risk_level)
        set_field(self, "steps", steps)
