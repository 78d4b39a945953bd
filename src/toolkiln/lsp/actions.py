"""Code actions: each certain fix of a diagnostic (the fixes `toolkiln check --fix` applies) as a
quick fix, and all of them at once (`source.fixAll`), repeated as `check --fix` repeats them."""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types

from toolkiln.diagnostics.fixes import AppliedFix, repair, text_fixes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.lsp.diagnostics import lsp_diagnostic
from toolkiln.lsp.positions import TextLines

FIX_ALL = "source.fixAll.toolkiln"


def code_actions(
    uri: str,
    lines: TextLines,
    found: list[Diagnostic],
    wanted: types.Range,
    check: Callable[[str], list[Diagnostic]],
) -> list[types.CodeAction]:
    """The quick fixes of the diagnostics whose fix touches `wanted`, then the fix-all action."""
    fixable = [d for d in found if d.fix is not None and text_fixes([d])]
    actions = []
    for diagnostic in fixable:
        assert diagnostic.fix is not None
        where = lines.span_range(diagnostic.fix.span)
        if not _touches(where, wanted):
            continue
        fix = diagnostic.fix
        replacement = fix.replacement or ""
        where_in_file = f"line {fix.span.line}, column {fix.span.column}"
        applied = AppliedFix(diagnostic.code, lines.text[fix.span.start : fix.span.end], replacement, where_in_file)
        actions.append(
            types.CodeAction(
                title=f"{diagnostic.code}: {applied.describe()}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp_diagnostic(diagnostic, lines)],
                edit=_edit(uri, where, replacement),
                is_preferred=True,
            )
        )
    if fixable:
        repaired = repair(lines.text, check)
        if repaired.text != lines.text:
            actions.append(
                types.CodeAction(
                    title="Apply every certain fix (toolkiln check --fix)",
                    kind=FIX_ALL,
                    edit=_edit(uri, lines.whole(), repaired.text),
                )
            )
    return actions


def _edit(uri: str, where: types.Range, text: str) -> types.WorkspaceEdit:
    return types.WorkspaceEdit(changes={uri: [types.TextEdit(range=where, new_text=text)]})


def _touches(one: types.Range, other: types.Range) -> bool:
    def key(position: types.Position) -> tuple[int, int]:
        return (position.line, position.character)

    return key(one.start) <= key(other.end) and key(other.start) <= key(one.end)
