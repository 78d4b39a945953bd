"""The Diagnostic: one problem, with its stable code, location and a hint to fix it.

Frozen dataclasses, as the AST's nodes (issue 34: no pydantic on the way of a command): a
diagnostic is made from values its maker checked, and copied with `dataclasses.replace`.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from toolkiln.ast.records import record, set_field
from toolkiln.ast.spans import Span
from toolkiln.diagnostics.codes import CODES, Code, Severity
from toolkiln.diagnostics.source import Source

if TYPE_CHECKING:  # (loaded when a diagnostic is turned into one: typing.NamedTuple compiles
    # its annotations' text, 24 compilations, which no check that prints text needs)
    from toolkiln.diagnostics.details import ErrorDetails, FixDetails


@record(slots=True, kw_only=True)
class Fix:
    """A certain repair: put the replacement where `span` is. The replacement is made of
    `pieces`: text, and spans of the source whose text is copied (`name.length` becomes
    `len(` + the text of `name` + `)`); locating the diagnostic in its source joins them."""

    span: Span
    pieces: tuple[str | Span, ...]

    def __init__(self, *, span: Span, pieces: tuple[str | Span, ...]) -> None:
        set_field(self, "span", span)
        set_field(self, "pieces", pieces)

    @classmethod
    def replace(cls, span: Span, *pieces: str | Span) -> Fix:
        return cls(span=span, pieces=pieces)

    @property
    def replacement(self) -> str | None:
        """The replacement text, once every copied span is text (None before)."""
        if all(isinstance(piece, str) for piece in self.pieces):
            return "".join(piece for piece in self.pieces if isinstance(piece, str))
        return None


@record(slots=True, kw_only=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    span: Span | None = None
    hint: str | None = None
    file: str | None = None
    snippet: str | None = None
    snippet_start: int = 0  # the column (0-based) of the line where `snippet` starts
    # Machine-readable, as pydantic-core's errors: what was found, what was allowed, the repair.
    input: str | None = None
    expected: tuple[str, ...] | None = None
    fix: Fix | None = None

    def __init__(
        self,
        *,
        code: str,
        severity: Severity,
        message: str,
        span: Span | None = None,
        hint: str | None = None,
        file: str | None = None,
        snippet: str | None = None,
        snippet_start: int = 0,
        input: str | None = None,  # noqa: A002 - pydantic-core's name for the offending value
        expected: tuple[str, ...] | None = None,
        fix: Fix | None = None,
    ) -> None:
        set_field(self, "code", code)
        set_field(self, "severity", severity)
        set_field(self, "message", message)
        set_field(self, "span", span)
        set_field(self, "hint", hint)
        set_field(self, "file", file)
        set_field(self, "snippet", snippet)
        set_field(self, "snippet_start", snippet_start)
        set_field(self, "input", input)
        set_field(self, "expected", expected)
        set_field(self, "fix", fix)

    @classmethod
    def of(
        cls,
        code: Code,
        message: str,
        span: Span | None,
        hint: str | None = None,
        *,
        input: str | None = None,  # noqa: A002 - pydantic-core's name for the offending value
        expected: tuple[str, ...] | None = None,
        fix: Fix | None = None,
    ) -> Diagnostic:
        return cls(
            code=code.code,
            severity=code.severity,
            message=message,
            span=span,
            hint=hint,
            input=input,
            expected=expected,
            fix=fix,
        )

    @classmethod
    def from_details(cls, error: ErrorDetails) -> Diagnostic:
        """An error a caller received (an Outcome's), back as a Diagnostic to render or locate
        in its source; where it was is kept as line and column (the offsets are not)."""
        span = None
        if error.line is not None or error.path is not None:
            line, column = error.line or 0, error.column or 0
            end_line, end_column = error.end_line or line, error.end_column or column
            span = Span(
                line=line,
                column=column,
                end_line=end_line,
                end_column=end_column,
                path=error.path,
                in_file=bool(error.in_file),
            )
        return cls(
            code=error.code,
            severity=error.severity,
            message=error.message,
            span=span,
            hint=error.hint,
            input=error.input,
            expected=error.expected,
        )

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def name(self) -> str:
        return CODES[self.code].name

    def located(self, source: Source) -> Diagnostic:
        """Attach the file name and the source line, so the diagnostic renders on its own."""
        if self.span is None:
            return replace(self, file=source.name)
        span, line = source.resolve(self.span)
        snippet, start = _window(line, span.column - 1) if line is not None else (None, 0)
        update: dict[str, Any] = {"file": source.name, "span": span, "snippet": snippet, "snippet_start": start}
        if self.fix is not None:
            update["fix"] = _located_fix(self.fix, source)
        return replace(self, **update)

    def details(self) -> ErrorDetails:
        """This diagnostic in the one shape callers read (REST, MCP, models, CI)."""
        from toolkiln.diagnostics.details import ErrorDetails

        span = self.span
        placed = span is not None and bool(span.line)
        return ErrorDetails(
            code=self.code,
            name=self.name,
            severity=self.severity,
            message=self.message,
            file=self.file,
            path=span.path if span else None,
            line=span.line if placed and span else None,
            column=span.column if placed and span else None,
            end_line=span.end_line if placed and span else None,
            end_column=span.end_column if placed and span else None,
            in_file=span.in_file or span.path is None if span else None,
            hint=self.hint,
            source=self.snippet,
            input=self.input,
            expected=self.expected,
            fix=_fix_details(self.fix),
        )

    def to_dict(self) -> dict[str, Any]:
        """The machine-readable form (stable keys), the one fed back to models and CI."""
        return self.details().to_dict()


def _located_fix(fix: Fix, source: Source) -> Fix | None:
    """The fix in file coordinates, its copied spans read from the source (None when the
    source text is not at hand). Inside a JSON file the replacement goes into a string
    token, so it is escaped as JSON writes it."""
    pieces = [piece if isinstance(piece, str) else source.text_of(piece) for piece in fix.pieces]
    if any(piece is None for piece in pieces):
        return None
    replacement = "".join(piece for piece in pieces if piece is not None)
    span, _ = source.resolve(fix.span)
    if span.path is not None and span.in_file and fix.span.line != 0:  # inside a string, not a whole value
        replacement = json.dumps(replacement, ensure_ascii=False)[1:-1]
    return Fix.replace(span, replacement)


def _fix_details(fix: Fix | None) -> FixDetails | None:
    """`start`/`end` are offsets (characters) in the file's text, when the fix is in one."""
    if fix is None or fix.replacement is None:
        return None
    from toolkiln.diagnostics.details import FixDetails

    span = fix.span
    in_text = span.path is None or span.in_file
    return FixDetails(
        path=span.path,
        start=span.start if in_text else None,
        end=span.end if in_text else None,
        line=span.line or None,
        column=span.column or None,
        end_line=span.end_line or None,
        end_column=span.end_column or None,
        replacement=fix.replacement,
    )


# A minified JSON file is one long line: diagnostics show a window of it around the column,
# so a thousand findings in a 6 MB export do not print the 6 MB a thousand times.
SNIPPET_WIDTH = 160
SNIPPET_LEAD = 60


def _window(line: str, column: int) -> tuple[str, int]:
    """The part of `line` to show for a span starting at `column` (0-based), and its start."""
    if len(line) <= SNIPPET_WIDTH:
        return line, 0
    start = max(0, min(column - SNIPPET_LEAD, len(line) - SNIPPET_WIDTH))
    return line[start : start + SNIPPET_WIDTH], start


def has_errors(diagnostics: list[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)


def sort_key(diagnostic: Diagnostic) -> tuple[object, ...]:
    """Reading order: by file, then line and column in it. Spans known only by their JSON path
    (data given as a dict, not text) come in document order: `steps[2]` before `steps[10]`."""
    span, file = diagnostic.span, diagnostic.file or ""
    if span is None:
        return (file, 0, 0, (), diagnostic.code)
    if span.in_file or span.path is None:
        return (file, span.line, span.column, (), diagnostic.code)
    return (file, 0, 0, _path_order(span.path) + ((0, span.line), (0, span.column)), diagnostic.code)


# (text: `re` compiles it when a first path is sorted and keeps it; see semantics/dates.py)
_PATH_PART = r"\[(\d+)\]|\.?([^.\[]+)"


def _path_order(path: str) -> tuple[tuple[int, Any], ...]:
    """`logic.steps[10].if` -> ((1, "logic"), (1, "steps"), (0, 10), (1, "if")): indexes as
    numbers, tagged so that a number and a name at the same place still compare."""
    return tuple((0, int(index)) if index else (1, name) for index, name in re.findall(_PATH_PART, path))
