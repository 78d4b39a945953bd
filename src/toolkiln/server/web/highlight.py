"""Syntax highlighting done on the server: a definition's text as spans with token classes.

The words come from our own grammars (the terminals of the compute and workflow parsers, and
the reserved words), so the page colours exactly the keywords the language has. A token is
a (class, text) pair; the template escapes the text and wraps it in `<span class="tk-...">`.
"""

from __future__ import annotations

import re
from functools import cache

from toolkiln.syntax.grammar import compute_parser
from toolkiln.syntax.words import RESERVED
from toolkiln.syntax.workflow_text import workflow_parser

Token = tuple[str, str]  # (class, text); class "" is plain text

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DSL = re.compile(
    r"""(?P<comment>\#[^\n]*)
      | (?P<string>"(?:[^"\\\n]|\\.)*"?)
      | (?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
      | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<operator>[-+*/%<>=!]=?|[{}()\[\],.:])""",
    re.VERBOSE,
)
_JSON = re.compile(
    r"""(?P<key>"(?:[^"\\]|\\.)*"(?=\s*:))
      | (?P<string>"(?:[^"\\]|\\.)*")
      | (?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
      | (?P<keyword>true|false|null)""",
    re.VERBOSE,
)


@cache
def keywords() -> frozenset[str]:
    """The words of both grammars (`tool`, `return`, `workflow`, `set`, ...)."""
    words = set(RESERVED)
    for parser in (compute_parser(), workflow_parser()):
        words |= {
            t.pattern.value for t in parser.terminals if t.pattern.type == "str" and _WORD.fullmatch(t.pattern.value)
        }
    return frozenset(words)


def _tokens(text: str, pattern: re.Pattern[str], classify: dict[str, str]) -> list[Token]:
    found: list[Token] = []
    at = 0
    for match in pattern.finditer(text):
        if match.start() > at:
            found.append(("", text[at : match.start()]))
        kind = match.lastgroup or ""
        found.append((classify.get(kind, kind), match.group()))
        at = match.end()
    if at < len(text):
        found.append(("", text[at:]))
    return found


def dsl_tokens(text: str) -> list[Token]:
    """The text DSL (compute or workflow), classed keyword, name, string, number, comment, operator."""
    known = keywords()
    return [
        (("keyword" if value in known else "name") if kind == "word" else kind, value)
        for kind, value in _tokens(text, _DSL, {})
    ]


def json_tokens(text: str) -> list[Token]:
    """JSON text, classed key, string, number, keyword."""
    return _tokens(text, _JSON, {})
