"""The JSON a model wrote: removes what cannot change its meaning, refuses what could.

Removed (each reported as a `Repair`): `//` and `/* */` comments and trailing commas. They
are blanked out with spaces, newlines kept, so every offset of the repaired text is the
offset of the same character in the model's text and diagnostics point into its reply.

Refused (E0603, never guessed): `undefined`, `NaN`, `Infinity`, `True`/`False`/`None`,
single-quoted and backtick strings, unquoted keys and any other bare word; JSON that stops
with brackets or a string open is E0602, never completed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.json_front import load_json

_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_NUMBER_CHARS = frozenset("0123456789.eE+-")
_JSON_WORDS = frozenset({"true", "false", "null"})
_HINTS = {
    "undefined": "JSON has no `undefined`: leave the field out, or write null if null is what you mean",
    "NaN": "JSON has no NaN: leave the field out, or write null",
    "Infinity": "JSON has no Infinity: write a large number or null",
    "True": "JSON writes true",
    "False": "JSON writes false",
    "None": "JSON writes null",
    "function": "a definition holds no code: write the logic as steps",
}
_WORD_HINT = 'quote text with double quotes; an expression is a JSON string too: "price * qty"'
# Past this many of one kind (single-quoted strings, unquoted keys, one bare word), the model
# has the idea: the rest would only lengthen the re-ask.
MAX_REFUSALS_OF_A_KIND = 3


@dataclass(frozen=True)
class Repair:
    """One change made to a reply that cannot change its meaning: a fence, prose, a comment
    or a trailing comma removed. `line` is the line of the reply (1-based) it was on."""

    kind: str
    message: str
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "line": self.line}


# Where a problem is in the reply: (code, message, start, end, hint), located by the caller.
Problem = tuple[codes.Code, str, int, int, str | None]


@dataclass
class _Scan:
    text: str
    chars: list[str]
    repairs: list[tuple[str, str, int]]  # kind, message, offset
    problems: list[Problem]
    refused: dict[str, int] = field(default_factory=dict)  # problems found, by kind
    depth: int = 0
    open_string: int | None = None  # where a string that never ends starts


def read_json(text: str) -> tuple[Any, str, list[tuple[str, str, int]], list[Problem], list[Diagnostic]]:
    """Parse the JSON object in `text` (offsets as in `text`): the data, the repaired text,
    the repairs (kind, message, offset), the problems found by the scan, and the JSON
    parser's own diagnostics (spans in `text`). Data is None when anything is wrong."""
    scan = _Scan(text, list(text), [], [])
    _scan(scan)
    if scan.open_string is not None or scan.depth > 0:
        opened = f"{scan.depth} bracket(s)" + (" and a string" if scan.open_string is not None else "")
        problem = (
            codes.TRUNCATED_REPLY,
            f"the JSON stops with {opened} still open: the reply was cut off",
            len(text),
            len(text),
            "send the whole definition again; if your answer was cut at your token limit, make it shorter",
        )
        return None, text, scan.repairs, [problem], []
    if scan.problems:
        return None, text, scan.repairs, scan.problems, []
    repaired = "".join(scan.chars)
    data, diagnostics = load_json(repaired)
    if not diagnostics and not isinstance(data, dict):
        problem = (codes.NO_TOOL_IN_REPLY, "the JSON is not an object", 0, len(text), "a definition is a JSON object")
        return None, repaired, scan.repairs, [problem], []
    return (None if diagnostics else data), repaired, scan.repairs, [], diagnostics


def _scan(scan: _Scan) -> None:
    text, length = scan.text, len(scan.text)
    i = 0
    while i < length:
        char = text[i]
        if char == '"':
            i = _string_end(scan, i)
        elif char in "{[":
            scan.depth += 1
            i += 1
        elif char in "}]":
            scan.depth -= 1
            i += 1
            if scan.depth <= 0:  # the object is complete: what follows is not the JSON's
                _blank_tail(scan, i)
                return
        elif text.startswith("//", i) or text.startswith("/*", i):
            i = _comment_end(scan, i)
        elif char == ",":
            _trailing_comma(scan, i)
            i += 1
        elif char in "'`":
            _refuse(scan, i, _quoted_end(text, i), "string")
            i = _quoted_end(text, i)
        elif char.isdigit() or char == "-":
            i = _number_end(text, i)  # the parser judges the number
        elif char in _WORD_CHARS:
            i = _word(scan, i)
        else:
            i += 1


def _number_end(text: str, start: int) -> int:
    i = start + 1
    while i < len(text) and text[i] in _NUMBER_CHARS:
        i += 1
    return i


def _string_end(scan: _Scan, start: int) -> int:
    text, i = scan.text, start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    scan.open_string = start
    return len(text)


def _quoted_end(text: str, start: int) -> int:
    """The end of a single-quoted or backtick string (or of the line, for an unended one)."""
    quote, i = text[start], start + 1
    while i < len(text) and text[i] != quote and (quote == "`" or text[i] != "\n"):
        i += 2 if text[i] == "\\" else 1
    return min(i + 1, len(text))


def _comment_end(scan: _Scan, start: int) -> int:
    text = scan.text
    if text.startswith("//", start):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
    else:
        close = text.find("*/", start + 2)
        end = len(text) if close < 0 else close + 2
    for i in range(start, end):
        if scan.chars[i] != "\n":
            scan.chars[i] = " "
    scan.repairs.append(("comment", "removed a comment", start))
    return end


def _trailing_comma(scan: _Scan, at: int) -> None:
    text, i = scan.text, at + 1
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith("//", i) or text.startswith("/*", i):
            close = text.find("\n" if text[i + 1] == "/" else "*/", i + 2)
            i = len(text) if close < 0 else close + (1 if text[i + 1] == "/" else 2)
        else:
            break
    if i < len(text) and text[i] in "}]":
        scan.chars[at] = " "
        scan.repairs.append(("trailing-comma", f"removed a trailing comma before `{text[i]}`", at))


def _word(scan: _Scan, start: int) -> int:
    text, i = scan.text, start
    while i < len(text) and text[i] in _WORD_CHARS:
        i += 1
    word = text[start:i]
    if word in _JSON_WORDS:
        return i
    after = i
    while after < len(text) and text[after] in " \t":
        after += 1
    if after < len(text) and text[after] == ":":
        _refuse(scan, start, i, "key")
    else:
        _refuse(scan, start, i, "word")
    return i


def _refuse(scan: _Scan, start: int, end: int, what: str) -> None:
    shown = scan.text[start:end][:40]
    kind = shown if what == "word" else what
    scan.refused[kind] = scan.refused.get(kind, 0) + 1
    if scan.refused[kind] > MAX_REFUSALS_OF_A_KIND:
        return
    if what == "string":
        quote = "backtick" if shown.startswith("`") else "single-quoted"
        hint = (
            "JSON has no template literals: build text with a `format` step"
            if quote == "backtick"
            else 'JSON strings take double quotes: "..."'
        )
        message = f"a {quote} string is not JSON: {shown}"
    elif what == "key":
        message, hint = f"the key `{shown}` is not quoted", f'JSON keys take double quotes: "{shown}"'
    else:
        message, hint = f"`{shown}` is not JSON", _HINTS.get(shown, _WORD_HINT)
    scan.problems.append((codes.NOT_JSON, message, start, end, hint))


def _blank_tail(scan: _Scan, end: int) -> None:
    """Blank out what follows the object, so that the parser sees the object alone."""
    if scan.text[end:].strip():
        scan.repairs.append(("prose", "ignored the text after the JSON object", end))
    for i in range(end, len(scan.text)):
        if scan.chars[i] != "\n":
            scan.chars[i] = " "
