"""Positions as the Language Server Protocol counts them: 0-based lines ended by \\r\\n, \\n or
\\r, and columns in the code units the client and server agreed on (UTF-16 unless the client
offered another: a character past U+FFFF is two UTF-16 units, four UTF-8 ones).

toolkiln's spans count lines by \\n and columns in characters, 1-based; a span is turned into an
offset in the text first, then into the client's line and column."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

from lsprotocol import types

from toolkiln.ast.spans import LineIndex, Span

_LINE_END = re.compile(r"\r\n|\n|\r")


def _utf16_units(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def _utf8_units(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


_UNITS: dict[str, Callable[[str], int]] = {"utf-16": _utf16_units, "utf-8": _utf8_units, "utf-32": len}


class TextLines:
    """A document's text with what it takes to turn offsets into positions and back."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.text = text
        self.starts = [0, *(match.end() for match in _LINE_END.finditer(text))]
        self.units = _UNITS.get(encoding, _utf16_units)
        self._spans: LineIndex | None = None  # toolkiln's lines (\n only), made on first use
        # Lines where a character is one code unit in every encoding: a column there is the
        # offset from the line's start, with no slice of the line (a whole ASCII text: all).
        self._plain: dict[int, bool] | None = None if text.isascii() else {}

    def position(self, offset: int) -> types.Position:
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        if self._plain is None or self._plain_line(line):
            return types.Position(line=line, character=offset - start)
        return types.Position(line=line, character=self.units(self.text[start:offset]))

    def _plain_line(self, line: int) -> bool:
        assert self._plain is not None
        plain = self._plain.get(line)
        if plain is None:
            end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
            plain = self._plain[line] = self.text[self.starts[line] : end].isascii()
        return plain

    def offset(self, position: types.Position) -> int:
        """The offset of a client's position; past a line's end is its end, past the last
        line the text's end (as the protocol asks)."""
        if position.line >= len(self.starts):
            return len(self.text)
        start = self.starts[position.line]
        end = self.starts[position.line + 1] if position.line + 1 < len(self.starts) else len(self.text)
        line = self.text[start:end].rstrip("\r\n")
        if self.units(line) <= position.character:
            return start + len(line)
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return start + index
            units += self.units(char)
        return start + len(line)

    def end(self) -> types.Position:
        return self.position(len(self.text))

    def whole(self) -> types.Range:
        return types.Range(start=types.Position(line=0, character=0), end=self.end())

    def span_range(self, span: Span | None) -> types.Range:
        """Where a located span is in the text; the first position for one that has no place in
        it (a whole file, a JSON path not found)."""
        if span is None or span.line == 0 or (span.path is not None and not span.in_file):
            start = types.Position(line=0, character=0)
            return types.Range(start=start, end=start)
        return types.Range(
            start=self.position(self._offset(span.line, span.column)),
            end=self.position(self._offset(span.end_line, span.end_column)),
        )

    def _offset(self, line: int, column: int) -> int:
        if self._spans is None:
            self._spans = LineIndex(self.text)
        starts = self._spans.starts
        return starts[max(0, min(line, len(starts)) - 1)] + max(0, column - 1)
