"""toolkiln's diagnostics as the protocol's: the same code, message and span, the hint after
the message; at most MAX_PUBLISHED a document, then one line that says how many more there are."""

from __future__ import annotations

from lsprotocol import types

from toolkiln.diagnostics.model import Diagnostic
from toolkiln.lsp.positions import TextLines

# An editor lists every diagnostic it is sent; past a thousand the list helps nobody and the
# message alone is megabytes. The rest are counted in one more line (`toolkiln check` has them).
MAX_PUBLISHED = 1000
SOURCE = "toolkiln"

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}


def published(found: list[Diagnostic], lines: TextLines) -> list[types.Diagnostic]:
    """What is sent for a document whose check found `found` (sorted, as check sorts them)."""
    shown = [lsp_diagnostic(diagnostic, lines) for diagnostic in found[:MAX_PUBLISHED]]
    left = len(found) - MAX_PUBLISHED
    if left > 0:
        where = lines.span_range(found[MAX_PUBLISHED].span)
        message = f"{left:,} more diagnostics not shown: the first {MAX_PUBLISHED:,} are (`toolkiln check` lists all)"
        shown.append(
            types.Diagnostic(range=where, message=message, severity=types.DiagnosticSeverity.Information, source=SOURCE)
        )
    return shown


def lsp_diagnostic(diagnostic: Diagnostic, lines: TextLines) -> types.Diagnostic:
    hint = f"\nhint: {diagnostic.hint}" if diagnostic.hint else ""
    return types.Diagnostic(
        range=lines.span_range(diagnostic.span),
        message=diagnostic.message + hint,
        severity=_SEVERITY.get(diagnostic.severity, types.DiagnosticSeverity.Error),
        code=diagnostic.code,
        source=SOURCE,
    )
