"""One entry for every kind of source: text DSL, JSON text, a dict, a file path, or a Program."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.records import record
from toolkiln.ast.spans import LineIndex, Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.diagnostics.source import Source
from toolkiln.syntax.comments import comments
from toolkiln.syntax.json_document import load_json
from toolkiln.syntax.json_front import parse_json_document
from toolkiln.syntax.json_positions import value_offsets
from toolkiln.syntax.limits import MAX_SOURCE_CHARS, MAX_SOURCE_TOKENS, too_many_tokens
from toolkiln.syntax.strings import (
    UNENCODABLE,
    UNENCODABLE_HINT,
    may_decode_to_surrogate,
    surrogate_offset,
)

SOURCE_SUFFIXES = (".tk", ".json")
BYTE_ORDER_MARK = "\ufeff"
_SPLIT_HINT = "split the logic into smaller tools; large constant data belongs in a table"


@record(frozen=False)
class Parsed:
    program: n.Program | None
    diagnostics: list[Diagnostic]
    source: Source = field(default_factory=Source)
    format: str = "text"  # "text" or "json": what the source was written in
    comments: list[tuple[int, str]] = field(default_factory=list)  # text sources: (line, comment)

    def __init__(
        self,
        program: n.Program | None,
        diagnostics: list[Diagnostic],
        source: Source | None = None,
        format: str = "text",  # noqa: A002 - the field's name
        comments: list[tuple[int, str]] | None = None,
    ) -> None:
        self.program = program
        self.diagnostics = diagnostics
        self.source = Source() if source is None else source
        self.format = format
        self.comments = [] if comments is None else comments


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
    """JSON when the text starts with `{` or `[`, else the text DSL. The size is checked
    before any other work (no line index, scan or parse of a source that is too large).
    A UTF-8 byte-order mark at the start (what some Windows editors write) reads as a space,
    so every offset, line and column stays that of the text as given."""
    if text.startswith(BYTE_ORDER_MARK):
        text = " " + text[1:]
    if len(text) > MAX_SOURCE_CHARS:
        message = f"source has {len(text):,} characters; the limit is {MAX_SOURCE_CHARS:,}"
        return Parsed(
            None,
            [Diagnostic.of(codes.SOURCE_TOO_LARGE, message, Span(start=0, end=0, line=1, column=1))],
            Source(name=name),
            "json" if text.lstrip()[:1] in ("{", "[") else "text",
        )
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
    if too_many_tokens(text):
        message = f"source has more than {MAX_SOURCE_TOKENS:,} tokens"
        diagnostic = Diagnostic.of(
            codes.TOO_MANY_TOKENS, message, Span(start=0, end=0, line=1, column=1), hint=_SPLIT_HINT
        )
        return Parsed(None, [diagnostic], Source(name=name, text=text), "text")
    from toolkiln.syntax.text import parse_text

    program, diagnostics = parse_text(text)
    return Parsed(program, diagnostics, Source(name=name, text=text), "text", comments(text))


def read_source_file(path: Path, max_chars: int = MAX_SOURCE_CHARS) -> str | Diagnostic:
    """The file's text, or the diagnostic of why it cannot be read (E0100; E0401 when larger
    than 4 bytes a character allows: it is never read whole to find out)."""
    limit = 4 * max_chars  # UTF-8 takes at most 4 bytes a character
    try:
        data = read_regular_file(path, limit)
    except OSError as error:
        return Diagnostic.of(codes.UNREADABLE_FILE, f"cannot read: {error.strerror or error}", None)
    if len(data) > limit:
        return Diagnostic.of(
            codes.SOURCE_TOO_LARGE,
            f"the file has more than {limit:,} bytes; the limit is {max_chars:,} characters",
            None,
            hint="split the logic into smaller tools",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        return Diagnostic.of(codes.UNREADABLE_FILE, f"not UTF-8 text: {error.reason}", None)


_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_OPEN_FLAGS = os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def read_regular_file(path: str | os.PathLike[str], limit: int) -> bytes:
    """At most `limit` + 1 bytes of a regular file (more than `limit`: the file is too large).
    A FIFO, a device, a socket or a folder is refused (OSError) without blocking and unread:
    the file is opened non-blocking and looked at (fstat) before a byte is read."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            number = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
            raise OSError(number, f"not a regular file ({file_kind(mode)})")
        if _NONBLOCK:
            os.set_blocking(fd, True)
        return read_at_most(fd, limit + 1)
    finally:
        os.close(fd)


def read_at_most(fd: int, size: int) -> bytes:
    """Up to `size` bytes of an open file, read in chunks of at most 1 MiB."""
    chunks, left = [], size
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def file_kind(mode: int) -> str:
    """What a file is (a FIFO, a folder, ...), for a message."""
    for test, kind in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISREG, "a file"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


def parse_file(path: Path) -> Parsed:
    text = read_source_file(path)
    if isinstance(text, Diagnostic):
        return Parsed(None, [replace(text, file=str(path))], Source(name=str(path)))
    parsed = parse_string(text, str(path))
    parsed.diagnostics = [d.located(parsed.source) for d in parsed.diagnostics]
    return parsed
