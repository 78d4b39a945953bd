"""Source positions.

A span locates a node in the text it was parsed from. For the text DSL that text is the
whole file. For the JSON DSL it is the string value at `path` (for example
`steps[1].then[0].expression`): expressions inside JSON strings are located by the path
and by line and column inside that string.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from toolkiln.ast.construct import instance


class Span(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    start: int = 0
    end: int = 0
    line: int = 1
    column: int = 1
    end_line: int = 1
    end_column: int = 1
    path: str | None = None
    # With a `path`, line and column count inside the JSON string at that path, unless
    # `in_file` says they were mapped onto the JSON file itself. Line 0: no position known.
    in_file: bool = False

    def shifted(self, path: str | None) -> Span:
        """The same span, placed inside the JSON string at `path`."""
        return self.model_copy(update={"path": path})


NO_SPAN = Span()


# The front ends make a span for every node, from offsets they computed: nothing to validate,
# so spans are built directly (fields in their order; the second set: those not defaulted).
def path_span(path: str) -> Span:
    """The span of a JSON value that is not itself parsed text: only its path is known."""
    return instance(Span, {"start": 0, "end": 0, "line": 0, "column": 0, "end_line": 0, "end_column": 0,
                           "path": path, "in_file": False}, {"line", "column", "end_line", "end_column", "path"})


def json_path(parts: tuple[str | int, ...]) -> str:
    """`("steps", 1, "then", 0, "expression")` -> `steps[1].then[0].expression`."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


@dataclass
class LineIndex:
    """Maps offsets in a text to 1-based line and column numbers."""

    text: str
    starts: list[int] = field(init=False)

    def __post_init__(self) -> None:
        starts, text = [0], self.text
        newline = text.find("\n")
        while newline >= 0:                 # str.find, not a Python loop over every character
            starts.append(newline + 1)
            newline = text.find("\n", newline + 1)
        self.starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def span(self, start: int, end: int, path: str | None = None) -> Span:
        if len(self.starts) == 1:           # one line (most expressions): no search
            line = end_line = 1
            column, end_column = start + 1, end + 1
        else:
            line, column = self.position(start)
            end_line, end_column = self.position(end)
        return instance(Span, {"start": start, "end": end, "line": line, "column": column, "end_line": end_line,
                               "end_column": end_column, "path": path, "in_file": False},
                        {"start", "end", "line", "column", "end_line", "end_column", "path"})

    def line_text(self, line: int) -> str | None:
        if not 1 <= line <= len(self.starts):
            return None
        start = self.starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]


@dataclass
class Source:
    """What diagnostics point into: a file name, its text and, for JSON, its strings by path."""

    name: str | None = None
    text: str | None = None
    fragments: dict[str, str] = field(default_factory=dict)
    json_text: bool = False
    _offsets: dict | None = field(default=None, repr=False)
    _indexes: dict[str, LineIndex] = field(default_factory=dict, repr=False, compare=False)

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
        if self.text is not None and self.json_text:
            located = self._in_json_file(span)
            if located is not None:
                return located, self._index(self.text).line_text(located.line)
        fragment = self.fragments.get(span.path)
        if fragment is None or span.line == 0:
            return span, None
        return span, self._index(fragment).line_text(span.line)

    def _in_json_file(self, span: Span) -> Span | None:
        from toolkiln.syntax.json_positions import (  # only on the error path
            raw_offset,
            value_offsets,
        )

        if self._offsets is None:
            self._offsets = value_offsets(self.text)
        found = self._offsets.get(span.path)
        if found is None:
            return None
        offset, raw = found
        index = self._index(self.text)
        if raw is None or span.line == 0:
            width = len(raw) if raw is not None else 1
            return index.span(offset, offset + width, span.path).model_copy(update={"in_file": True})
        fragment_index = self._index(self.fragments.get(span.path, ""))
        start = fragment_index.starts[span.line - 1] + span.column - 1 if span.line else 0
        end = fragment_index.starts[span.end_line - 1] + span.end_column - 1 if span.end_line else start
        located = index.span(offset + raw_offset(raw, start), offset + raw_offset(raw, end), span.path)
        return located.model_copy(update={"in_file": True})
