"""What diagnostics point into: a file's name and text, and for JSON its strings by path."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field, replace

from toolkiln.ast.records import record
from toolkiln.ast.spans import LineIndex, Span

# JSON path -> (offset of the value in the text, the raw string token if the value is a string).
JsonOffsets = dict[str, tuple[int, str | None]]


@record(frozen=False)
class Source:
    """What diagnostics point into: a file name, its text and, for JSON, its strings by path."""

    name: str | None = None
    text: str | None = None
    fragments: dict[str, str] = field(default_factory=dict)
    # For JSON text: how to find each value's offset (the JSON front end hands in its locator).
    json_offsets: Callable[[str], JsonOffsets] | None = None
    _offsets: JsonOffsets | None = field(default=None, repr=False)
    _indexes: dict[str, LineIndex] = field(default_factory=dict, repr=False, compare=False)

    def __init__(
        self,
        name: str | None = None,
        text: str | None = None,
        fragments: dict[str, str] | None = None,
        json_offsets: Callable[[str], JsonOffsets] | None = None,
        _offsets: JsonOffsets | None = None,
        _indexes: dict[str, LineIndex] | None = None,
    ) -> None:
        self.name = name
        self.text = text
        self.fragments = {} if fragments is None else fragments
        self.json_offsets = json_offsets
        self._offsets = _offsets
        self._indexes = {} if _indexes is None else _indexes

    def _index(self, text: str) -> LineIndex:
        """The line index of `text` (the file or a fragment), made once however many
        diagnostics point into it."""
        index = self._indexes.get(text)
        if index is None:
            index = self._indexes[text] = LineIndex(text)
        return index

    def resolve(self, span: Span) -> tuple[Span, str | None]:
        """The span in file coordinates where they can be known, and its source line."""
        if span.path is None:
            if self.text is None:
                return span, None
            return span, self._index(self.text).line_text(span.line)
        if self.text is not None and self.json_offsets is not None:
            located = self._in_json_file(span, span.path)
            if located is not None:
                return located, self._index(self.text).line_text(located.line)
        fragment = self.fragments.get(span.path)
        if fragment is None or span.line == 0:
            return span, None
        return span, self._index(fragment).line_text(span.line)

    def text_of(self, span: Span) -> str | None:
        """The source text a span covers: of the file, or of the JSON string at its path."""
        text = self.text if span.path is None else self.fragments.get(span.path)
        if text is None or span.path is not None and span.line == 0:
            return None
        return text[span.start : span.end]

    def _in_json_file(self, span: Span, path: str) -> Span | None:
        assert self.text is not None and self.json_offsets is not None
        if self._offsets is None:
            self._offsets = self.json_offsets(self.text)  # only on the error path
        found = self._offsets.get(path)
        if found is None:
            return None
        offset, raw = found
        index = self._index(self.text)
        if raw is None or span.line == 0:
            width = len(raw) if raw is not None else 1
            return replace(index.span(offset, offset + width, path), in_file=True)
        fragment_index = self._index(self.fragments.get(path, ""))
        start = fragment_index.starts[span.line - 1] + span.column - 1 if span.line else 0
        end = fragment_index.starts[span.end_line - 1] + span.end_column - 1 if span.end_line else start
        located = index.span(offset + _raw_offset(raw, start), offset + _raw_offset(raw, end), path)
        return replace(located, in_file=True)


def _raw_offset(raw: str, decoded_offset: int) -> int:
    """Offset in a raw JSON string token (quotes included) of the `decoded_offset`-th char."""
    position, count = 1, 0
    while count < decoded_offset and position < len(raw) - 1:
        if raw[position] == "\\":
            position += 6 if raw[position + 1] == "u" else 2
        else:
            position += 1
        count += 1
    return position
