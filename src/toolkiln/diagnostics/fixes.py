"""Applying the certain fixes diagnostics carry, so that a pipeline repairs without a model."""

from __future__ import annotations

from collections.abc import Iterable

from toolkiln.diagnostics.model import Diagnostic, Fix


def text_fixes(diagnostics: Iterable[Diagnostic]) -> list[Fix]:
    """The fixes that can be applied to the checked text: located in it (diagnostics from
    `toolkiln.check` of a file or a string are), in order, none overlapping an earlier one."""
    chosen: list[Fix] = []
    end = -1
    located = (
        d.fix
        for d in diagnostics
        if d.fix is not None and d.fix.replacement is not None and (d.fix.span.path is None or d.fix.span.in_file)
    )
    for fix in sorted(located, key=lambda fix: (fix.span.start, fix.span.end)):
        if fix.span.start >= end:
            chosen.append(fix)
            end = max(end, fix.span.end)
    return chosen


def apply_fixes(text: str, diagnostics: Iterable[Diagnostic]) -> str:
    """`text` with every certain fix of `diagnostics` (those `toolkiln.check` reported for
    exactly this text) applied. Fixes that would overlap an earlier one are left for the
    next check: apply, check again, until no fix is left."""
    out: list[str] = []
    position = 0
    for fix in text_fixes(diagnostics):
        out += [text[position : fix.span.start], fix.replacement or ""]
        position = fix.span.end
    out.append(text[position:])
    return "".join(out)
