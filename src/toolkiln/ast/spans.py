"""Source positions.

A span locates a node in the text it was parsed from. For the text DSL that text is the
whole file. For the JSON DSL it is the string value at `path` (for example
`steps[1].then[0].expression`): expressions inside JSON strings are located by the path
and by line and column inside that string.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import field, replace

from toolkiln.ast.records import record, set_field


@record(slots=True, kw_only=True)
class Span:
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

    def __init__(
        self,
        *,
        start: int = 0,
        end: int = 0,
        line: int = 1,
        column: int = 1,
        end_line: int = 1,
        end_column: int = 1,
        path: str | None = None,
        in_file: bool = False,
    ) -> None:
        set_field(self, "start", start)
        set_field(self, "end", end)
        set_field(self, "line", line)
        set_field(self, "column", column)
        set_field(self, "end_line", end_line)
        set_field(self, "end_column", end_column)
        set_field(self, "path", path)
        set_field(self, "in_file", in_file)

    def shifted(self, path: str | None) -> Span:
        """The same span, placed inside the JSON string at `path`."""
        return replace(self, path=path)


NO_SPAN = Span()

# The front ends make a span for every node: a frozen dataclass's __init__ sets each field
# through object.__setattr__, about twice what setting its slots directly costs.
_new = object.__new__
_SETTERS = tuple(Span.__dict__[name].__set__ for name in Span.__slots__)


def _span(start: int, end: int, line: int, column: int, end_line: int, end_column: int, path: str | None) -> Span:
    """Span(start=start, ..., path=path), made as fast as its fields can be set."""
    span = _new(Span)
    set_start, set_end, set_line, set_column, set_end_line, set_end_column, set_path, set_in_file = _SETTERS
    set_start(span, start)
    set_end(span, end)
    set_line(span, line)
    set_column(span, column)
    set_end_line(span, end_line)
    set_end_column(span, end_column)
    set_path(span, path)
    set_in_file(span, False)
    return span


def path_span(path: str) -> Span:
    """The span of a JSON value that is not itself parsed text: only its path is known."""
    return _span(0, 0, 0, 0, 0, 0, path)


def json_path(parts: tuple[str | int, ...]) -> str:
    """`("steps", 1, "then", 0, "expression")` -> `steps[1].then[0].expression`. A key JSON
    cannot have (a dict from Python may hold a tuple or None) is written as Python shows it."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            name = part if isinstance(part, str) else repr(part)
            out += f".{name}" if out else name
    return out


@record(frozen=False)
class LineIndex:
    """Maps offsets in a text to 1-based line and column numbers."""

    text: str
    starts: list[int] = field(init=False)

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        newline = text.find("\n")
        while newline >= 0:  # str.find, not a Python loop over every character
            starts.append(newline + 1)
            newline = text.find("\n", newline + 1)
        self.starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def span(self, start: int, end: int, path: str | None = None) -> Span:
        if len(self.starts) == 1:  # one line (most expressions): no search
            line = end_line = 1
            column, end_column = start + 1, end + 1
        else:
            line, column = self.position(start)
            end_line, end_column = self.position(end)
        return _span(start, end, line, column, end_line, end_column, path)

    def line_text(self, line: int) -> str | None:
        if not 1 <= line <= len(self.starts):
            return None
        start = self.starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]
