"""Splitting a `format` template into literal text and `{{expression:spec}}` holes.

Only the split happens here; the hole expressions are parsed by the caller, which knows where
the template sits in its source so that spans stay exact.
"""

from __future__ import annotations

from toolkiln.ast.records import record, set_field
from toolkiln.semantics.numbers import parse_spec


@record()
class TextPiece:
    start: int
    end: int

    def __init__(self, start: int, end: int) -> None:
        set_field(self, "start", start)
        set_field(self, "end", end)


@record()
class HolePiece:
    start: int  # of the expression text
    end: int
    spec: str | None

    def __init__(self, start: int, end: int, spec: str | None) -> None:
        set_field(self, "start", start)
        set_field(self, "end", end)
        set_field(self, "spec", spec)


class TemplateError(ValueError):
    def __init__(self, start: int, end: int, message: str) -> None:
        super().__init__(message)
        self.start = start
        self.end = end


def split_template(raw: str) -> list[TextPiece | HolePiece]:
    pieces: list[TextPiece | HolePiece] = []
    position = 0
    while True:
        opening = raw.find("{{", position)
        if opening < 0:
            break
        if opening > position:
            pieces.append(TextPiece(position, opening))
        start = opening + 2
        closing, colon = _scan_hole(raw, start)
        if closing < 0:
            raise TemplateError(opening, len(raw), "`{{` is not closed by `}}`")
        end = colon if colon >= 0 else closing
        if not raw[start:end].strip():
            raise TemplateError(opening, closing + 2, "empty `{{}}` hole")
        spec = None
        if colon >= 0:
            spec = raw[colon + 1 : closing].strip()
            if parse_spec(spec) is None:
                raise TemplateError(colon + 1, closing, f"unknown format spec `{spec}`; use [,][.N](f|%), e.g. `.2f`")
        pieces.append(HolePiece(start, end, spec))
        position = closing + 2
    if position < len(raw):
        pieces.append(TextPiece(position, len(raw)))
    return pieces


def _scan_hole(raw: str, start: int) -> tuple[int, int]:
    """Offsets of the closing `}}` and of the last top-level `:` (or -1), skipping strings,
    the braces of records (`{{ {"net": 1}.net }}`) and brackets (`{{(try a catch e: 0)}}`)."""
    quote: str | None = None
    colon = -1
    braces = brackets = 0
    i = start
    while i < len(raw):
        ch = raw[i]
        if quote is not None:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            braces += 1
        elif ch == "}" and braces:
            braces -= 1
        elif ch in "([":
            brackets += 1
        elif ch in ")]":
            brackets = max(0, brackets - 1)
        elif ch == ":" and not braces and not brackets:
            colon = i
        elif raw.startswith("}}", i):
            return i, colon
        i += 1
    return -1, colon
