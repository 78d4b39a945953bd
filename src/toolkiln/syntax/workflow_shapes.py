"""Declared shapes in the workflow DSL: `{name: type, ...}` after `returns` (a `node` or `http`
step's output item) or a webhook's `body` (docs/workflows.md#declared-shapes)."""

from __future__ import annotations

from typing import Any

from lark import Token, v_args
from lark.tree import Meta

from toolkiln.ast import workflow as w
from toolkiln.diagnostics import codes
from toolkiln.syntax.builder import SourceBuilder


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
        return shape

    def shape(self, meta: Meta, children: list[Any]) -> w.Shape:
        fields: list[w.ShapeField] = []
        for field in children:
            if field is None:
                continue
            if any(earlier.name == field.name for earlier in fields):
                self.ctx.report(
                    codes.INVALID_SHAPE, f"field `{field.name}` is declared twice", field.span, hint="declare it once"
                )
                continue
            fields.append(field)
        return w.Shape(fields=tuple(fields), span=self._span(meta))

    def shape_field(self, meta: Meta, children: list[Any]) -> w.ShapeField:
        name: Token
        name, type_ = children
        self._one_of(codes.INVALID_SHAPE, "field type", type_, w.FIELD_TYPES)
        text = self._string(name) if name.type == "STRING" else name.value
        return w.ShapeField(name=text, type=type_.value, span=self._span(meta))
