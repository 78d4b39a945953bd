"""Completion: the builtins (signature and doc) and the names in scope at the cursor: the
parameters and the variables assigned before it (of the last text that parsed, while the
current one is half written)."""

from __future__ import annotations

from lsprotocol import types

from toolkiln.lsp.hover import builtin_markdown, variable_markdown
from toolkiln.lsp.program import Understood
from toolkiln.semantics.builtins import BUILTINS


def completions(offset: int, understood: Understood | None) -> list[types.CompletionItem]:
    items: list[types.CompletionItem] = []
    names: set[str] = set()
    for variable in understood.in_scope(offset) if understood is not None else ():
        names.add(variable.name)
        items.append(
            types.CompletionItem(
                label=variable.name,
                kind=types.CompletionItemKind.Variable,
                detail=f"{variable.kind}: {variable.type if variable.type is not None else 'any'}",
                documentation=_markdown(variable_markdown(variable)),
                sort_text=f"0{variable.name}",
            )
        )
    for name in sorted(BUILTINS):
        if name in names:
            continue  # one item a name
        builtin = BUILTINS[name]
        items.append(
            types.CompletionItem(
                label=name,
                kind=types.CompletionItemKind.Function,
                detail=builtin.signature,
                documentation=_markdown(builtin_markdown(builtin)),
                sort_text=f"1{name}",
            )
        )
    return items


def _markdown(value: str) -> types.MarkupContent:
    return types.MarkupContent(kind=types.MarkupKind.Markdown, value=value)
