"""The library's front door: compile, check and print sources."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolkiln.backends.json_printer import print_json
from toolkiln.backends.text_printer import print_text
from toolkiln.check import check_program
from toolkiln.diagnostics.model import Diagnostic, sort_key
from toolkiln.errors import CompileError
from toolkiln.optimize import optimize as optimize_program
from toolkiln.semantics.limits import Limits
from toolkiln.syntax.loader import Parsed, parse_source
from toolkiln.tool import Tool


def _diagnose(source: Any, name: str | None) -> tuple[Parsed, list[Diagnostic], Any]:
    parsed = parse_source(source, name)
    if parsed.program is None:
        return parsed, _located(parsed, parsed.diagnostics), None
    checked = check_program(parsed.program)
    return parsed, _located(parsed, parsed.diagnostics + checked.diagnostics), checked


def _located(parsed: Parsed, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    located = [d if d.file is not None or d.snippet is not None else d.located(parsed.source)
               for d in diagnostics]
    return sorted(located, key=sort_key)


def check(source: Any, *, name: str | None = None) -> list[Diagnostic]:
    """Every diagnostic for `source` (text DSL, JSON text, dict or path); empty when clean."""
    return _diagnose(source, name)[1]


def compile(source: Any, *, tables: Mapping[str, Any] | None = None, limits: Limits | None = None,
            name: str | None = None, optimize: bool = True) -> Tool:  # noqa: A001 - the issue's name
    """Parse, check, optimize and compile `source` into a Tool; raises CompileError with the
    diagnostics. `optimize=False` runs the program exactly as written."""
    parsed, diagnostics, checked = _diagnose(source, name)
    if checked is None or any(d.is_error for d in diagnostics):
        raise CompileError(diagnostics)
    checked.diagnostics = diagnostics
    runnable, runnable_checked = parsed.program, checked
    if optimize:
        runnable = optimize_program(parsed.program)
        runnable_checked = checked if runnable is parsed.program else check_program(runnable, checked.parameters)
    return Tool(parsed.program, checked, tables=tables, limits=limits,
                runnable=(runnable, runnable_checked))


def optimized_text(source: Any) -> str:
    """The canonical text of the optimized program (`toolkiln optimize`); it must check."""
    parsed, diagnostics, checked = _diagnose(source, None)
    if checked is None or any(d.is_error for d in diagnostics):
        raise CompileError(diagnostics)
    return print_text(optimize_program(parsed.program))


def _parsed(source: Any) -> Parsed:
    parsed = parse_source(source)
    if parsed.program is None:
        raise CompileError(_located(parsed, parsed.diagnostics))
    return parsed


def to_text(source: Any) -> str:
    """The canonical text DSL for `source` (it must parse; it need not type-check).
    Comments of a text source are kept."""
    parsed = _parsed(source)
    return print_text(parsed.program, parsed.comments)


def to_json(source: Any) -> dict[str, Any]:
    """The canonical JSON DSL for `source`, as a dict."""
    return print_json(_parsed(source).program)
