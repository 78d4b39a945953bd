"""Declared shapes in the workflow DSL: `{name: type, ...}` after `returns` (a `node` or `http`
step's output item) or a webhook's `body` (docs/workflows.md#declared-shapes), with objects
(`{...}`) and lists (`[type]`) nested in it."""

from __future__ import annotations

from typing import Any

from lark import Token, v_args
from lark.exceptions import UnexpectedToken
from lark.tree import Meta

from toolkiln.ast import workflow as w
from toolkiln.diagnostics import codes
from toolkiln.syntax.builder import SourceBuilder
from toolkiln.syntax.workflow_errors import stopped_in_shape
from toolkiln.syntax.workflow_values import shape_out_of_bounds


@v_args(meta=True)
class ShapeRules(SourceBuilder):
    """The workflow builder's rules for shapes, and its check of a word from a fixed list."""

    def _one_of(self, code: codes.Code, what: str, token: Token, allowed: tuple[str, ...]) -> bool:
        """Whether the word is one of `allowed`; reported as `code` when it is not."""
        if token.value in allowed:
            return True
        hint = f"use one of {', '.join(allowed)}"
        self.ctx.report(code, f"unknown {what} `{token.value}`", self._token_span(token), hint=hint)
        return False

    def returns(self, meta: Meta, children: list[Any]) -> w.Shape:
        shape: w.Shape
        (shape,) = children
        self._bounded(shape)
        return shape

    def _bounded(self, shape: w.Shape) -> None:
        """Reports a declared shape over its bounds (workflow_values.shape_out_of_bounds)."""
        problem = shape_out_of_bounds(shape)
        if problem is not None:
            message, span, hint = problem
            self.ctx.report(codes.INVALID_SHAPE, message, span, hint=hint)

    def shape(self, meta: Meta, children: list[Any]) -> w.Shape:
        fields: dict[str, w.ShapeField] = {}
        for field in children:
            if field is None:
                continue
            if field.name in fields:
                self.ctx.report(
                    codes.INVALID_SHAPE, f"field `{field.name}` is declared twice", field.span, hint="declare it once"
                )
                continue
            fields[field.name] = field
        return w.Shape(fields=tuple(fields.values()), span=self._span(meta))

    def shape_field(self, meta: Meta, children: list[Any]) -> w.ShapeField:
        name: Token
        name, type_ = children
        text = self._string(name) if name.type == "STRING" else name.value
        return w.ShapeField(name=text, type=type_, span=self._span(meta))

    def field_type(self, meta: Meta, children: list[Any]) -> w.FieldType:
        (child,) = children
        if isinstance(child, w.Shape):
            return w.FieldType(name="object", shape=child, span=child.span)
        self._one_of(codes.INVALID_SHAPE, "field type", child, w.FIELD_TYPES)
        return w.FieldType(name=child.value, span=self._token_span(child))

    def list_type(self, meta: Meta, children: list[Any]) -> w.FieldType:
        _, items, _ = children
        return w.FieldType(name="array", items=items, span=self._span(meta))


def in_shape(error: UnexpectedToken) -> bool:
    """Whether Lark's parser stopped inside a declared shape (workflow_errors.stopped_in_shape,
    over the kinds of the values it holds)."""
    parser = getattr(error, "interactive_parser", None)
    held = [getattr(value, "type", None) for value in (parser.parser_state.value_stack if parser else ())]
    return stopped_in_shape(held)
