"""Hover: a builtin's signature, argument types and doc (from the builtins registry), or a
parameter's or variable's type as the checker inferred it."""

from __future__ import annotations

from lsprotocol import types

from toolkiln.lsp.program import Understood, Variable, word_at
from toolkiln.semantics.builtin_registry import Builtin
from toolkiln.semantics.builtins import BUILTINS


def hover(text: str, offset: int, understood: Understood | None) -> str | None:
    """The Markdown to show at `offset`, or None (nothing known there)."""
    found = word_at(text, offset)
    if found is None:
        return None
    word, start, end = found
    called = text[end : end + 1] == "("
    variable = _variable(word, start, understood)
    if variable is not None and not (called and word in BUILTINS):
        return variable_markdown(variable)
    builtin = BUILTINS.get(word)
    return builtin_markdown(builtin) if builtin is not None else None


def _variable(word: str, start: int, understood: Understood | None) -> Variable | None:
    if understood is None:
        return None
    read = understood.type_read_at(start)
    if read is not None and read.name == word:
        return read
    return understood.variables.get(word)


def variable_markdown(variable: Variable) -> str:
    type_ = "any" if variable.type is None else str(variable.type)
    described = f"\n\n{variable.description}" if variable.description else ""
    return f"```\n({variable.kind}) {variable.name}: {type_}\n```{described}"


def builtin_markdown(builtin: Builtin) -> str:
    arguments = "\n".join(
        f"- `{a.name}`: {' or '.join(str(t) for t in a.accepts)}" + (" (optional)" if a.optional else "")
        for a in builtin.args
    )
    return f"```\n{builtin.signature}\n```\n{builtin.doc}" + (f"\n\n{arguments}" if arguments else "")


def hover_result(markdown: str | None, where: types.Range | None) -> types.Hover | None:
    if markdown is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown), range=where)
