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


class Span(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    start: int = 0
    end: int = 0
    line: int = 1
    column: int = 1
    end_line: int = 1
    end_column: int = 1
    path: str | None = None

    def shifted(self, path: str | None) -> Span:
        """The same span, placed inside the JSON string at `path`."""
        return self.model_copy(update={"path": path})


NO_SPAN = Span()


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
        self.starts = [0] + [i + 1 for i, ch in enumerate(self.text) if ch == "\n"]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def span(self, start: int, end: int, path: str | None = None) -> Span:
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Span(start=start, end=end, line=line, column=column,
                    end_line=end_line, end_column=end_column, path=path)

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

    def snippet(self, span: Span) -> str | None:
        """The source line a span starts on, for the caret display."""
        if span.path is not None:
            fragment = self.fragments.get(span.path)
            return None if fragment is None else LineIndex(fragment).line_text(span.line)
        return None if self.text is None else LineIndex(self.text).line_text(span.line)
