"""Lark tree -> typed AST. Nothing outside `syntax/` ever sees a Lark tree."""

from __future__ import annotations

import builtins
from decimal import Decimal
from typing import Any, cast

from lark import Token, Transformer_NonRecursive, v_args
from lark.tree import Meta

from toolkiln.ast import compute as n
from toolkiln.ast.spans import Span
from toolkiln.ast.types import ANY, DECLARABLE, Type, or_null, record_of
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic, Fix
from toolkiln.syntax.expressions import ParseContext, parse_template
from toolkiln.syntax.foreign import TYPE_ALIASES
from toolkiln.syntax.lark_front import parse_tree
from toolkiln.syntax.limits import MAX_LITERAL_DIGITS, literal_too_large
from toolkiln.syntax.strings import EscapeError, unescape
from toolkiln.syntax.words import RESERVED, RISK_LEVELS, TOOL_NAME


def parse_expression_with_lark(flat: str, ctx: ParseContext) -> n.Expr | None:
    """The grammar's own parse (and diagnostics) of a one-line expression."""
    tree = parse_tree(flat, "expr_start", ctx.index, ctx.base, ctx.path)
    if isinstance(tree, Diagnostic):
        ctx.diagnostics.append(tree)
        return None
    expr: n.Expr = AstBuilder(ctx).transform(tree)  # what the expr_start rule builds
    return expr


class SourceBuilder(Transformer_NonRecursive[Token, Any]):
    """What every tree -> AST builder needs: spans in its ParseContext, and names and string
    literals checked the same way (used by this module and by the workflow front end).
    Non-recursive, because a flat chain `a + b + ...` of 10,000 terms is a tree that deep."""

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__()
        self.ctx = ctx

    def _span(self, meta: Meta) -> Span:
        if getattr(meta, "empty", True):
            return self.ctx.span(0, 0)
        return self.ctx.span(meta.start_pos, meta.end_pos)

    def _token_span(self, token: Token) -> Span:
        # Lark types the positions Optional (for tokens made by hand); lexed ones have them.
        return self.ctx.span(cast(int, token.start_pos), cast(int, token.end_pos))

    def _name(self, token: Token) -> str:
        """A variable, parameter or table name: any NAME but a reserved word."""
        if token.value in RESERVED:
            self.ctx.report(
                codes.INVALID_NAME,
                f"`{token.value}` is a reserved word",
                self._token_span(token),
                hint="choose another name",
            )
        name: str = token.value
        return name

    def _string(self, token: Token) -> str:
        quoted: str = token.value
        try:
            return unescape(quoted[1:-1])
        except EscapeError as error:
            start = cast(int, token.start_pos) + 1 + error.offset  # (see _token_span)
            self.ctx.report(
                codes.INVALID_ESCAPE,
                f"invalid escape `{error.escape}` in a string",
                self.ctx.span(start, start + len(error.escape)),
                hint="allowed escapes: \\\\ \\\" \\' \\n \\r \\t \\uXXXX",
            )
            return quoted[1:-1]


@v_args(meta=True)
class AstBuilder(SourceBuilder):
    # --- program and header ---------------------------------------------------------------

    def start(self, meta: Meta, children: list[Any]) -> n.Program:
        if len(children) == 1 and isinstance(children[0], n.Program):
            return children[0]
        return n.Program(steps=tuple(children), span=self._span(meta))

    def tool(self, meta: Meta, children: list[Any]) -> n.Program:
        name, params, *clauses, body = children
        if not TOOL_NAME.fullmatch(name.value) or name.value in RESERVED:
            self.ctx.report(
                codes.INVALID_NAME,
                f"`{name.value}` is not a valid tool name",
                self._token_span(name),
                hint="use ^[a-z][a-z0-9_]{0,63}$",
            )
        fields: dict[str, Any] = {"parameters": tuple(params or ()), "steps": body}
        tables: list[n.TableDecl] = []
        for key, value in clauses:
            if key == "table":
                tables.append(value)
            else:
                fields[key] = value
        if tables:
            fields["tables"] = tuple(tables)
        if "description" not in fields:
            self.ctx.report(
                codes.MISSING_FIELD,
                f"tool `{name.value}` has no description",
                self._token_span(name),
                hint='add a line `description "what the tool does"` before `{`',
            )
        return n.Program(name=name.value, span=self._span(meta), **fields)

    def params(self, meta: Meta, children: list[Any]) -> list[n.Param]:
        return [c for c in children if c is not None]

    def param(self, meta: Meta, children: list[Any]) -> n.Param:
        name, type_, default, description = children
        return n.Param(
            name=self._name(name),
            type=type_,
            default=default,
            description=None if description is None else self._string(description),
            span=self._span(meta),
        )

    def type_ref(self, meta: Meta, children: list[Any]) -> Type:
        name, items, nullable = children
        if name.value not in DECLARABLE:
            alias = TYPE_ALIASES.get(name.value)
            span = self._token_span(name)
            self.ctx.diagnostics.append(
                Diagnostic.of(
                    codes.INVALID_DECLARATION,
                    f"unknown type `{name.value}`",
                    span,
                    hint=f"write `{alias}`" if alias else f"types are: {', '.join(DECLARABLE)}",
                    input=name.value,
                    expected=tuple(DECLARABLE),
                    fix=None if alias is None else Fix.replace(span, alias),
                )
            )
            return ANY
        if items is not None and name.value != "array":
            self.ctx.report(
                codes.INVALID_DECLARATION,
                f"type `{name.value}` takes no item type",
                self._span(meta),
                hint="only `array[T]` has an item type",
            )
        type_ = Type(name="array", items=items or ANY) if name.value == "array" else Type(name=name.value)
        return type_ if nullable is None else or_null(type_)

    def record_type(self, meta: Meta, children: list[Any]) -> Type:
        """`{"net": number, "note": string?}`: a record type (a key given twice is E0112)."""
        fields, nullable = children
        seen: set[str] = set()
        for key, _, token in fields or ():
            if key in seen:
                self.ctx.report(
                    codes.DUPLICATE_KEY,
                    f"field `{key}` is declared twice in a record type",
                    self._token_span(token),
                    hint="give each field once",
                )
            seen.add(key)
        type_ = record_of(tuple((key, field_type) for key, field_type, _ in fields or ()))
        return type_ if nullable is None else or_null(type_)

    def type_fields(self, meta: Meta, children: list[Any]) -> list[tuple[str, Type, Token]]:
        return [c for c in children if c is not None]

    def type_field(self, meta: Meta, children: list[Any]) -> tuple[str, Type, Token]:
        key, type_ = children
        return self._string(key), type_, key

    def description(self, meta: Meta, children: list[Any]) -> tuple[str, str]:
        return "description", self._string(children[0])

    def risk(self, meta: Meta, children: list[Any]) -> tuple[str, str | None]:
        level = children[0].value
        if level not in RISK_LEVELS:
            self.ctx.report(
                codes.INVALID_DECLARATION,
                f"unknown risk level `{level}`",
                self._token_span(children[0]),
                hint="use low, medium or high",
            )
            return "risk_level", None
        return "risk_level", level

    def table(self, meta: Meta, children: list[Any]) -> tuple[str, n.TableDecl]:
        name, type_, description = children
        return "table", n.TableDecl(
            name=self._name(name),
            type=type_,
            span=self._span(meta),
            description=None if description is None else self._string(description),
        )

    # --- steps ----------------------------------------------------------------------------

    def assign(self, meta: Meta, children: list[Any]) -> n.Assign:
        return n.Assign(target=self._name(children[0]), value=children[1], span=self._span(meta))

    def lookup(self, meta: Meta, children: list[Any]) -> n.Lookup:
        target, table, key, default = children
        return n.Lookup(
            target=self._name(target), table=self._name(table), key=key, default=default, span=self._span(meta)
        )

    def format(self, meta: Meta, children: list[Any]) -> n.Format | None:
        target, string = children
        ctx = self.ctx.at(self.ctx.base + string.start_pos + 1, self.ctx.path)
        template = parse_template(string.value[1:-1], ctx, escaped=True)
        self.ctx.diagnostics.extend(ctx.diagnostics)
        if template is None:
            template = n.Template(parts=(), span=self._token_span(string))
        return n.Format(target=self._name(target), template=template, span=self._span(meta))

    def call_tool(self, meta: Meta, children: list[Any]) -> n.CallTool:
        target, tool, args = children
        if not TOOL_NAME.fullmatch(tool.value) or tool.value in RESERVED:
            self.ctx.report(
                codes.INVALID_NAME,
                f"`{tool.value}` is not a valid tool name",
                self._token_span(tool),
                hint="use ^[a-z][a-z0-9_]{0,63}$",
            )
        return n.CallTool(target=self._name(target), tool=tool.value, args=tuple(args or ()), span=self._span(meta))

    def tool_args(self, meta: Meta, children: list[Any]) -> list[n.ToolArg]:
        return [c for c in children if c is not None]

    def tool_arg(self, meta: Meta, children: list[Any]) -> n.ToolArg:
        name, value = children
        return n.ToolArg(name=self._name(name), value=value, span=self._span(meta))

    def return_(self, meta: Meta, children: list[Any]) -> n.Return:
        return n.Return(value=children[0], span=self._span(meta))

    def if_step(self, meta: Meta, children: list[Any]) -> n.If:
        condition, then, otherwise = children
        return n.If(condition=condition, then=then, otherwise=otherwise or (), span=self._span(meta))

    def else_if(self, meta: Meta, children: list[Any]) -> tuple[n.Step, ...]:
        return (children[0],)

    def block(self, meta: Meta, children: list[Any]) -> tuple[n.Step, ...]:
        return tuple(children)

    # --- expressions ----------------------------------------------------------------------

    def expr_start(self, meta: Meta, children: list[Any]) -> n.Expr:
        expr: n.Expr = children[0]
        return expr

    def conditional(self, meta: Meta, children: list[Any]) -> n.Conditional:
        then, test, otherwise = children
        return n.Conditional(test=test, then=then, otherwise=otherwise, span=self._span(meta))

    def attempt(self, meta: Meta, children: list[Any]) -> n.Try:
        body, var, handler = children
        return n.Try(body=body, var=self._name(var), handler=handler, span=self._span(meta))

    def _binary(self, op: n.BinaryOp, meta: Meta, children: list[Any]) -> n.Binary:
        left, right = children[0], children[-1]
        return n.Binary(op=op, left=left, right=right, span=self._span(meta))

    def or_(self, meta: Meta, children: list[Any]) -> n.Binary:
        return self._binary("or", meta, children)

    def and_(self, meta: Meta, children: list[Any]) -> n.Binary:
        return self._binary("and", meta, children)

    def in_(self, meta: Meta, children: list[Any]) -> n.Binary:
        return self._binary("in", meta, children)

    def not_in(self, meta: Meta, children: list[Any]) -> n.Binary:
        return self._binary("not in", meta, children)

    def add(self, meta: Meta, children: list[Any]) -> n.Binary:
        return self._binary("+", meta, children)

    def sub(self, meta: Meta, children: list[Any]) -> n.Binary:
        return self._binary("-", meta, children)

    def mul(self, meta: Meta, children: list[Any]) -> n.Binary:
        return self._binary("*", meta, children)

    def div(self, meta: Meta, children: list[Any]) -> n.Binary:
        return self._binary("/", meta, children)

    def mod(self, meta: Meta, children: list[Any]) -> n.Binary:
        return self._binary("%", meta, children)

    def pow(self, meta: Meta, children: list[Any]) -> n.Binary:
        return self._binary("**", meta, children)

    def compare(self, meta: Meta, children: list[Any]) -> n.Binary:
        return self._binary(children[1].value, meta, children)

    def not_(self, meta: Meta, children: list[Any]) -> n.Unary:
        return n.Unary(op="not", operand=children[0], span=self._span(meta))

    def neg(self, meta: Meta, children: list[Any]) -> n.Unary | n.NumberLit:
        operand = children[0]
        if isinstance(operand, n.NumberLit) and not operand.value.is_signed():
            # `-3` is the literal -3, as it is in the JSON DSL, so both front ends agree.
            return n.NumberLit(value=operand.value.copy_negate(), span=self._span(meta))
        return n.Unary(op="-", operand=operand, span=self._span(meta))

    def pos(self, meta: Meta, children: list[Any]) -> n.Unary:
        return n.Unary(op="+", operand=children[0], span=self._span(meta))

    def field(self, meta: Meta, children: list[Any]) -> n.Field_:
        return n.Field_(target=children[0], name=children[1].value, span=self._span(meta))

    def index(self, meta: Meta, children: list[Any]) -> n.Index:
        return n.Index(target=children[0], index=children[1], span=self._span(meta))

    def number(self, meta: Meta, children: list[Any]) -> n.NumberLit:
        token = children[0]
        value = Decimal(token.value)
        if literal_too_large(value):
            self.ctx.report(
                codes.LITERAL_TOO_LARGE,
                f"number literal has more than {MAX_LITERAL_DIGITS} digits",
                self._token_span(token),
            )
            value = Decimal(0)
        return n.NumberLit(value=value, span=self._span(meta))

    def string(self, meta: Meta, children: list[Any]) -> n.StringLit:
        return n.StringLit(value=self._string(children[0]), span=self._span(meta))

    def true(self, meta: Meta, children: list[Any]) -> n.BoolLit:
        return n.BoolLit(value=True, span=self._span(meta))

    def false(self, meta: Meta, children: list[Any]) -> n.BoolLit:
        return n.BoolLit(value=False, span=self._span(meta))

    def null(self, meta: Meta, children: list[Any]) -> n.NullLit:
        return n.NullLit(span=self._span(meta))

    def name(self, meta: Meta, children: list[Any]) -> n.Name:
        return n.Name(name=self._name(children[0]), span=self._span(meta))

    def call(self, meta: Meta, children: list[Any]) -> n.Call:
        name, args = children
        return n.Call(function=name.value, args=tuple(args or ()), span=self._span(meta))

    def items(self, meta: Meta, children: list[Any]) -> list[n.Expr]:
        return [c for c in children if c is not None]

    # (From here on `list` in this class names this method: annotations use builtins.list.)
    def list(self, meta: Meta, children: list[Any]) -> n.ListExpr:
        return n.ListExpr(items=tuple(children[0] or ()), span=self._span(meta))

    def record(self, meta: Meta, children: builtins.list[Any]) -> n.RecordExpr:
        entries: tuple[n.RecordEntry, ...] = tuple(children[0] or ())
        seen: set[str] = set()
        for entry in entries:
            if entry.key in seen:
                self.ctx.report(
                    codes.DUPLICATE_KEY,
                    f"key `{entry.key}` is given twice in a record",
                    entry.span,
                    hint="give each key once",
                )
            seen.add(entry.key)
        return n.RecordExpr(entries=entries, span=self._span(meta))

    def entries(self, meta: Meta, children: builtins.list[Any]) -> builtins.list[n.RecordEntry]:
        return [c for c in children if c is not None]

    def entry(self, meta: Meta, children: builtins.list[Any]) -> n.RecordEntry:
        key, value = children
        return n.RecordEntry(key=self._string(key), value=value, span=self._span(meta))

    def comp_for(self, meta: Meta, children: builtins.list[Any]) -> tuple[str, n.Expr, n.Expr | None]:
        var, iterable, condition = children
        return self._name(var), iterable, condition

    def comprehension(self, meta: Meta, children: builtins.list[Any]) -> n.Comprehension:
        element, (var, iterable, condition) = children
        return n.Comprehension(element=element, var=var, iterable=iterable, condition=condition, span=self._span(meta))

    def generator(self, meta: Meta, children: builtins.list[Any]) -> builtins.list[n.Comprehension]:
        return [self.comprehension(meta, children)]
