"""The JSON a model wrote: removes what cannot change its meaning, refuses what could.

Removed (each reported as a `Repair`): `//` and `/* */` comments and trailing commas. They
are blanked out with spaces, newlines kept, so every offset of the repaired text is the
offset of the same character in the model's text and diagnostics point into its reply.
Rewritten in place, as long as they were (issue 33): Python's `True`/`False`/`None` as
`true`/`false`/`null`, and a single-quoted string with no `"` or escaped quote in it as the
same string in double quotes; each has one meaning.

Refused (E0603, never guessed): `undefined`, `NaN`, `Infinity`, other single-quoted strings
and backtick strings (a template literal), unquoted keys and any other bare word; JSON that
stops with brackets or a string open is E0602, never completed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.json_document import load_json

_JSON_WORDS = frozenset({"true", "false", "null"})
_HINTS = {
    "undefined": "JSON has no `undefined`: leave the field out, or write null if null is what you mean",
    "NaN": "JSON has no NaN: leave the field out, or write null",
    "Infinity": "JSON has no Infinity: write a large number or null",
    "function": "a definition holds no code: write the logic as steps",
}
# Python's literals, with the JSON word of the same length and meaning.
_PYTHON_WORDS = {"True": "true", "False": "false", "None": "null"}
_WORD_HINT = 'quote text with double quotes; an expression is a JSON string too: "price * qty"'
# Past this many of one kind (single-quoted strings, unquoted keys, one bare word), the model
# has the idea: the rest would only lengthen the re-ask.
MAX_REFUSALS_OF_A_KIND = 3
# Repairs listed of one kind; the rest are made, and counted in one more line.
MAX_REPAIRS_OF_A_KIND = 20


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
    repairs: list[tuple[str, str, int]]  # kind, message, offset
    problems: list[Problem]
    refused: dict[str, int] = field(default_factory=dict)  # problems found, by kind
    repaired: dict[str, int] = field(default_factory=dict)  # repairs made, by kind
    blanks: list[tuple[int, int, str | None]] = field(default_factory=list)  # removed or rewritten, in order
    depth: int = 0
    open_string: int | None = None  # where a string that never ends starts


def read_json(text: str) -> tuple[Any, str, list[tuple[str, str, int]], list[Problem], list[Diagnostic]]:
    """Parse the JSON object in `text` (offsets as in `text`): the data, the repaired text,
    the repairs (kind, message, offset), the problems found by the scan, and the JSON
    parser's own diagnostics (spans in `text`). Data is None when anything is wrong."""
    scan = _Scan(text, [], [])
    _scan(scan)
    for kind, count in scan.repaired.items():
        if count > MAX_REPAIRS_OF_A_KIND:
            scan.repairs.append((kind, f"and {count - MAX_REPAIRS_OF_A_KIND:,} more of the same", len(text)))
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
    repaired = _blanked(text, scan.blanks)
    data, diagnostics = load_json(repaired)
    if not diagnostics and not isinstance(data, dict):
        problem = (codes.NO_TOOL_IN_REPLY, "the JSON is not an object", 0, len(text), "a definition is a JSON object")
        return None, repaired, scan.repairs, [problem], []
    return (None if diagnostics else data), repaired, scan.repairs, [], diagnostics


# One token of what a model wrote where JSON belongs; what matches none (white space, `:`,
# stray punctuation) is skipped here and judged by the JSON parser. The scan is the regex
# engine's, so a reply of a million characters takes milliseconds, not seconds.
_TOKEN = re.compile(
    r"""(?P<string>"(?:[^"\\]|\\.)*")
    |(?P<open_string>")
    |(?P<open>[{\[])
    |(?P<close>[}\]])
    |(?P<comment>//[^\n]*|/\*(?:.*?\*/|.*))
    |(?P<comma>,)
    |(?P<quoted>'(?:[^'\\\n]|\\.)*'?|`(?:[^`\\]|\\.)*`?)
    |(?P<number>-?[0-9][0-9.eE+-]*)
    |(?P<word>[A-Za-z_$][\w$]*)""",
    re.VERBOSE | re.DOTALL,
)
# After a comma: white space and comments, then the bracket that makes it a trailing comma.
# (The comment pattern matches one way only: a lazy `/\*.*?\*/` under `*` could also swallow
# `*/ /*`, and a reply of many comments would then backtrack for ever.)
_CLOSER_AFTER = re.compile(r"(?:\s|//[^\n]*|/\*[^*]*\*+(?:[^/*][^*]*\*+)*/)*([}\]])")
_COLON_AFTER = re.compile(r"[ \t]*:")
_NOT_NEWLINE = re.compile(r"[^\n]")


def _scan(scan: _Scan) -> None:
    text = scan.text
    for token in _TOKEN.finditer(text):
        kind, start, end = token.lastgroup, token.start(), token.end()
        if kind == "open":
            scan.depth += 1
        elif kind == "close":
            scan.depth -= 1
            if scan.depth <= 0:  # the object is complete: what follows is not the JSON's
                _blank_tail(scan, end)
                return
        elif kind == "open_string":
            scan.open_string = start
            return
        elif kind == "comment":
            _blank(scan, start, end)
            _repaired(scan, "comment", "removed a comment", start)
        elif kind == "comma":
            closer = _CLOSER_AFTER.match(text, end)
            if closer is not None:
                _blank(scan, start, end)
                _repaired(scan, "trailing-comma", f"removed a trailing comma before `{closer.group(1)}`", start)
        elif kind == "quoted" and _plain_single_quoted(token.group()):
            scan.blanks.append((start, end, '"' + token.group()[1:-1] + '"'))
            _repaired(scan, "single-quotes", "wrote a single-quoted string in double quotes", start)
        elif kind == "quoted":
            _refuse(scan, start, end, "string")
        elif kind == "word" and token.group() in _PYTHON_WORDS and not _COLON_AFTER.match(text, end):
            scan.blanks.append((start, end, _PYTHON_WORDS[token.group()]))
            _repaired(scan, "python-literal", f"wrote `{token.group()}` as `{_PYTHON_WORDS[token.group()]}`", start)
        elif kind == "word" and token.group() not in _JSON_WORDS:
            _refuse(scan, start, end, "key" if _COLON_AFTER.match(text, end) else "word")


def _blank(scan: _Scan, start: int, end: int) -> None:
    """Spaces for what is removed, newlines kept: offsets, lines and columns stay the reply's."""
    scan.blanks.append((start, end, None))


def _plain_single_quoted(token: str) -> bool:
    """`'math'`: closed, and nothing in it that double quotes would read otherwise."""
    return len(token) >= 2 and token[0] == token[-1] == "'" and '"' not in token and "\\'" not in token


def _blanked(text: str, blanks: list[tuple[int, int, str | None]]) -> str:
    pieces, last = [], 0
    for start, end, written in blanks:
        pieces += [text[last:start], _NOT_NEWLINE.sub(" ", text[start:end]) if written is None else written]
        last = end
    return "".join(pieces) + text[last:]


def _repaired(scan: _Scan, kind: str, message: str, offset: int) -> None:
    scan.repaired[kind] = scan.repaired.get(kind, 0) + 1
    if scan.repaired[kind] <= MAX_REPAIRS_OF_A_KIND:
        scan.repairs.append((kind, message, offset))


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
        _repaired(scan, "prose", "ignored the text after the JSON object", end)
    _blank(scan, end, len(scan.text))
