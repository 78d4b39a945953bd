"""Renderers: human text with a caret (rustc/Elm style), JSON, and GitHub annotations."""

from __future__ import annotations

import json

from toolkiln.diagnostics.model import Diagnostic


def location(d: Diagnostic) -> str:
    """`file:line:col`, with the JSON path when the source was JSON."""
    file = d.file or "<input>"
    span = d.span
    if span is None:
        return file
    at = f" (at {span.path})" if span.path else ""
    if span.path is None or span.in_file:
        return f"{file}:{span.line}:{span.column}{at}"
    if span.line == 0:
        return f"{file}{at}"
    return f"{file}: {span.path}:{span.line}:{span.column}"


def render_text(d: Diagnostic) -> str:
    lines = [f"{d.severity}[{d.code}]: {d.message}", f" --> {location(d)}"]
    span = d.span
    if d.snippet is not None and span is not None:
        gutter = str(span.line) if span.path is None or span.in_file else "|"
        pad = " " * len(gutter)
        column = span.column - 1 - d.snippet_start  # within the shown part of the line
        end = span.end_column - 1 - d.snippet_start if span.end_line == span.line else len(d.snippet)
        width = min(end, len(d.snippet)) - column
        before = "..." if d.snippet_start else ""  # a window of a long line
        lines += [
            f"{pad} |",
            f"{gutter} | {before}{d.snippet}",
            f"{pad} | {' ' * (len(before) + column)}{'^' * max(width, 1)}",
        ]
    if d.hint:
        lines.append(f"  = hint: {d.hint}")
    return "\n".join(lines)


def render_texts(diagnostics: list[Diagnostic]) -> str:
    return "\n\n".join(render_text(d) for d in diagnostics)


def render_json(diagnostics: list[Diagnostic]) -> str:
    return json.dumps([d.to_dict() for d in diagnostics], indent=2, ensure_ascii=False)


def render_github(d: Diagnostic) -> str:
    """A GitHub Actions workflow command, which turns into an annotation on the file."""
    kind = "error" if d.is_error else "warning"
    props = [f"file={d.file or '<input>'}"]
    if d.span is not None and (d.span.path is None or d.span.in_file):
        props += [f"line={d.span.line}", f"col={d.span.column}"]
    props.append(f"title={d.code}")
    where = f" (at {d.span.path})" if d.span is not None and d.span.path else ""  # "" is the root
    message = f"{d.message}{where}" + (f" — hint: {d.hint}" if d.hint else "")
    message = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return f"::{kind} {','.join(props)}::{message}"
