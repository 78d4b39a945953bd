"""What the recognisers of foreign syntax share: what they find, and how they read the text
around the offset the parser stopped at (syntax/foreign.py, syntax/foreign_idioms.py)."""

from __future__ import annotations

from toolkiln.ast.records import record, set_field

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
STRING = r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"


@record()
class Foreign:
    """A construct of another language at `start:end` of the text, and how to write it."""

    start: int
    end: int
    message: str
    hint: str
    expected: str  # the toolkiln spelling, for the diagnostic's `expected`
    fix: tuple[int, int, str] | None = None  # replace text[start:end] with this, when certain

    def __init__(
        self, start: int, end: int, message: str, hint: str, expected: str, fix: tuple[int, int, str] | None = None
    ) -> None:
        set_field(self, "start", start)
        set_field(self, "end", end)
        set_field(self, "message", message)
        set_field(self, "hint", hint)
        set_field(self, "expected", expected)
        set_field(self, "fix", fix)


def line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def line_end(text: str, offset: int) -> int:
    end = text.find("\n", offset)
    return len(text) if end < 0 else end


def string_end(text: str, opening: int) -> int:
    """The offset of the quote that closes the string opening at `opening`, or -1."""
    quote, i = text[opening], opening + 1
    while i < len(text) and text[i] != "\n":
        if text[i] == "\\":
            i += 1
        elif text[i] == quote:
            return i
        i += 1
    return -1


def colon_block(offset: int, fix: tuple[int, int, str] | None = None) -> Foreign:
    """Python's `if c:` at the `:` the parser stopped at; `fix` where the braces are certain."""
    message, hint = "blocks are written in braces, not after `:`", "write `if condition { ... } else { ... }`"
    return Foreign(offset, offset + 1, message, hint, "{", fix)
