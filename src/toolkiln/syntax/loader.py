"""One entry for every kind of source: text DSL, JSON text, a dict, a file path, or a Program."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.spans import LineIndex
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.diagnostics.source import Source
from toolkiln.syntax.json_front import load_json, parse_json_document
from toolkiln.syntax.json_positions import value_offsets
from toolkiln.syntax.strings import (
    UNENCODABLE,
    UNENCODABLE_HINT,
    may_decode_to_surrogate,
    surrogate_offset,
)

SOURCE_SUFFIXES = (".tk", ".json")


@dataclass
class Parsed:
    program: n.Program | None
    diagnostics: list[Diagnostic]
    source: Source = field(default_factory=Source)
    format: str = "text"  # "text" or "json": what the source was written in
    comments: list[tuple[int, str]] = field(default_factory=list)  # text sources: (line, comment)


def parse_source(source: Any, name: str | None = None) -> Parsed:
    if isinstance(source, n.Program):
        return Parsed(source, [], Source(name=name), "json")
    if isinstance(source, os.PathLike):
        return parse_file(Path(source))
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError as error:
            return Parsed(
                None,
                [Diagnostic.of(codes.UNREADABLE_FILE, f"source is not UTF-8: {error.reason}", None)],
                Source(name=name),
            )
    if isinstance(source, str):
        return parse_string(source, name)
    if isinstance(source, dict):
        program, diagnostics, src = parse_json_document(source)
        src.name = name
        return Parsed(program, diagnostics, src, "json")
    message = f"cannot compile a {type(source).__name__}; give DSL text, JSON text, a dict or a path"
    return Parsed(None, [Diagnostic.of(codes.WRONG_JSON_TYPE, message, None)], Source(name=name))


def parse_string(text: str, name: str | None = None) -> Parsed:
    """JSON when the text starts with `{` or `[`, else the text DSL."""
    surrogate = surrogate_offset(text)
    if surrogate is not None:
        span = LineIndex(text).span(surrogate, surrogate + 1)
        return Parsed(
            None,
            [Diagnostic.of(codes.UNREADABLE_FILE, UNENCODABLE, span, hint=UNENCODABLE_HINT)],
            Source(name=name, text=text),
        )
    if text.lstrip()[:1] in ("{", "["):
        data, diagnostics = load_json(text)
        if diagnostics:
            return Parsed(None, diagnostics, Source(name=name, text=text), "json")
        program, diagnostics, src = parse_json_document(data, scan_surrogates=may_decode_to_surrogate(text))
        src.name, src.text, src.json_offsets = name, text, value_offsets
        return Parsed(program, diagnostics, src, "json")
    # The text DSL needs Lark, loaded here on first use (JSON sources mostly do without it).
    from toolkiln.syntax.text import comments, parse_text

    program, diagnostics = parse_text(text)
    return Parsed(program, diagnostics, Source(name=name, text=text), "text", comments(text))


def read_source_file(path: Path) -> str | Diagnostic:
    """The file's text, or the diagnostic of why it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        return Diagnostic.of(codes.UNREADABLE_FILE, f"not UTF-8 text: {error.reason}", None)
    except OSError as error:
        return Diagnostic.of(codes.UNREADABLE_FILE, f"cannot read: {error.strerror or error}", None)


def parse_file(path: Path) -> Parsed:
    text = read_source_file(path)
    if isinstance(text, Diagnostic):
        return Parsed(None, [text.model_copy(update={"file": str(path)})], Source(name=str(path)))
    parsed = parse_string(text, str(path))
    parsed.diagnostics = [d.located(parsed.source) for d in parsed.diagnostics]
    return parsed
