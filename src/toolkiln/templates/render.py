"""Rendering a template: check the values against the parameters, write them into the body.

A value can never become DSL syntax. Inside a string literal it is escaped for that literal
(backslash, the quote, control characters, and `{` as `\\u007b` so that it opens no `{{...}}`
hole of a URL template); in code, an integer is written as digits and anything else as a
complete double-quoted literal. Comments are not substituted at all.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import replace

from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError
from toolkiln.syntax.strings import quote
from toolkiln.templates.source import Template


def bind(template: Template, values: Mapping[str, object]) -> dict[str, str | int]:
    """Every parameter's value (given or default); raises CompileError (E0802-E0804)."""
    problems: list[tuple[codes.Code, str, str, str | None]] = []
    names = [p.name for p in template.parameters]
    for name in values:
        if template.parameter(name) is None:
            close = difflib.get_close_matches(name, names, n=1)
            problems.append(
                (
                    codes.UNKNOWN_TEMPLATE_PARAMETER,
                    name,
                    f"`{template.slug}` has no parameter `{name}`",
                    f"did you mean `{close[0]}`?" if close else f"its parameters: {', '.join(names)}",
                )
            )
    bound: dict[str, str | int] = {}
    for parameter in template.parameters:
        if parameter.name in values:
            try:
                bound[parameter.name] = parameter.type.check(values[parameter.name])
            except ValueError as error:
                problems.append(
                    (
                        codes.TEMPLATE_PARAMETER_TYPE,
                        parameter.name,
                        f"`{parameter.name}` is a {parameter.type.name} parameter: {error}",
                        f"give {parameter.type.shape}",
                    )
                )
        elif parameter.default is None:
            problems.append(
                (
                    codes.MISSING_TEMPLATE_PARAMETER,
                    parameter.name,
                    f"`{template.slug}` needs a value for `{parameter.name}`: {parameter.description}",
                    f"give it as {parameter.name}=... ({parameter.type.shape})",
                )
            )
        else:
            bound[parameter.name] = parameter.default
    if problems:
        raise CompileError(
            [
                replace(Diagnostic.of(code, message, Span(path=name, line=0), hint), file=f"template {template.slug}")
                for code, name, message, hint in problems
            ]
        )
    return bound


def render_dsl(template: Template, values: Mapping[str, object]) -> str:
    """The workflow DSL text of the template with these values; raises CompileError."""
    bound = bind(template, values)
    return "".join(
        piece if isinstance(piece, str) else _write(bound[piece.name], piece.quote) for piece in template.body
    )


def _write(value: str | int, in_quote: str | None) -> str:
    if in_quote is None:
        return str(value) if isinstance(value, int) else '"' + _escape(value, '"') + '"'
    return _escape(str(value), in_quote)


def _escape(text: str, in_quote: str) -> str:
    body = quote(text)[1:-1].replace("{", "\\u007b")
    return body.replace("'", "\\'") if in_quote == "'" else body
