"""The tokens of a `.wf` text as Lark's contextual lexer reads them for grammar/workflow.lark,
for the hand-written workflow parser (workflow_parser.py).

The parser asks for the token its rule expects at the current position (a keyword, a NAME, a
STRING, a `{`...), as the contextual lexer matches only what the parser state accepts: so a
keyword is a NAME wherever the state takes no keyword. Whitespace and comments are skipped
between tokens, as the grammar's %ignore. An expression or a JSON object is one extent of
tokens (the grammar's `expr`, `rexpr` and `json` rules), found by the same token patterns.
Anything not plainly as expected raises Declined: Lark decides.
"""

from __future__ import annotations

import re

from toolkiln.syntax.expression_parser import Declined

# The grammar's terminals (NAME, NUMBER, STRING, OP and the brackets) and its %ignore.
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
STRING = re.compile(r""""([^"\\\n]|\\.)*"|'([^'\\\n]|\\.)*'""")
_IGNORED = re.compile(r"(?:[ \t\f\r\n]+|#[^\n]*)*")
# The priority-2 terminals, tried where the parser state accepts them (before any keyword).
RESPOND_WITH_NODE = re.compile(r"respond[ \t\r\n]+with[ \t\r\n]+node\b")
MERGE_MODE = re.compile(r"by[ \t\r\n]+position\b")
# One token of an expression or a JSON object: a NAME, NUMBER or STRING, an OP, a bracket,
# `,` or `:` (the grammar's `expr`, `rexpr` and `_json` terminals).
_EXTENT_TOKEN = re.compile(
    r"""(?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<number>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
      | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
      | (?P<op>\*\*|==|!=|<=|>=|[<>+\-*/%.])
      | (?P<punct>[()\[\]{},:])""",
    re.VERBOSE,
)
# The words grammar/workflow.lark spells as keywords (a test compares this with the grammar's
# terminals): where a parser state takes one of them, a NAME spelt like it is read as it.
KEYWORDS = frozenset(
    {
        *("workflow", "description", "on", "webhook", "body", "manual", "schedule", "timezone"),
        *("daily", "at", "every", "cron", "after", "nothing", "with", "set", "if", "else"),
        *("switch", "case", "respond", "http", "query", "headers", "credentials", "returns"),
        *("merge", "wait", "node", "type", "version"),
    }
)
# The words that begin a step, and `with`: after an atom of a respond body (`rexpr`) the
# lexer reads them as keywords, which end the body (`else` is a syntax error there). (Right
# after a `)` or `]` anywhere in an expression it does too, the LALR state after a bracket
# group being shared with `rexpr`'s; no valid compute expression has a name there.)
STEP_WORDS = frozenset({"after", "set", "if", "switch", "respond", "http", "merge", "wait", "node"})
_ENDS_A_RESPOND_BODY = STEP_WORDS | {"with", "else"}
# Brackets nest at most this deep here (Lark's lexer refuses 200 levels, counting blocks).
MAX_BRACKETS = 40
_CLOSER = {")": "(", "]": "["}


class Scanner:
    """A position in the text, always at the start of a token (or at the end)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.end = len(text)
        self.last_end = 0  # where the last token taken ends
        self.pos = _IGNORED.match(text, 0).end()  # type: ignore[union-attr]  # (it matches "")

    def _advance(self, end: int) -> None:
        self.last_end = end
        self.pos = _IGNORED.match(self.text, end).end()  # type: ignore[union-attr]

    def at_end(self) -> bool:
        return self.pos >= self.end

    def word(self) -> str | None:
        """The NAME at the position (not taken), if one is there."""
        match = NAME.match(self.text, self.pos)
        return None if match is None else match.group()

    def keyword(self, word: str) -> bool:
        """Takes `word` if it is the whole word at the position. (Where the parser state takes
        no NAME, Lark would match a keyword at the start of a longer word too: `sets` as `set`
        `s`. Never accepted here, so such a text declines.)"""
        match = NAME.match(self.text, self.pos)
        if match is None or match.group() != word:
            return False
        self._advance(match.end())
        return True

    def expect_keyword(self, word: str) -> int:
        start = self.pos
        if not self.keyword(word):
            raise Declined
        return start

    def punct(self, mark: str) -> bool:
        if not self.text.startswith(mark, self.pos):
            return False
        self._advance(self.pos + len(mark))
        return True

    def expect(self, mark: str) -> int:
        start = self.pos
        if not self.punct(mark):
            raise Declined
        return start

    def token(self, pattern: re.Pattern[str]) -> tuple[str, int, int]:
        """The token `pattern` matches at the position, taken: its text, start and end."""
        match = pattern.match(self.text, self.pos)
        if match is None:
            raise Declined
        start, end = match.span()
        self._advance(end)
        return match.group(), start, end

    def optional(self, pattern: re.Pattern[str]) -> tuple[str, int, int] | None:
        return self.token(pattern) if pattern.match(self.text, self.pos) else None

    def extent(self, respond_body: bool) -> tuple[int, int]:
        """The (start, end) of the expression at the position, taken: the grammar's `expr`
        (a set field's value, a condition: it ends at `,`, `{` or `}` outside brackets), or,
        `respond_body`, its `rexpr` (which also ends at a step's word after its first token)."""
        start = self.pos
        opened: list[str] = []
        while self.pos < self.end:
            match = _EXTENT_TOKEN.match(self.text, self.pos)
            if match is None:
                break
            kind, value = match.lastgroup, match.group()
            if kind == "name" and respond_body and not opened and self.pos > start and value in _ENDS_A_RESPOND_BODY:
                break
            if kind == "punct" and not self._bracket(value, opened):
                break
            self._advance(match.end())
        if self.pos == start or opened:  # (a bracket left open: the grammar's syntax error)
            raise Declined
        return start, self.last_end

    def _bracket(self, mark: str, opened: list[str]) -> bool:
        """Follows the brackets of an expression: False where `mark` ends it (a `,`, `{` or `}`
        outside brackets); Declined where it is out of place."""
        if not opened:
            if mark in ",{}":
                return False
            if mark in ":)]":
                raise Declined
        if mark in "([{":
            opened.append(mark)
            if len(opened) > MAX_BRACKETS:
                raise Declined
        elif mark in ")]}":
            if opened.pop() != _CLOSER.get(mark, "{"):
                raise Declined
        elif mark == ":" and opened[-1] != "{":
            raise Declined  # a record's colon only
        return True

    def json_extent(self) -> tuple[int, int]:
        """The (start, end) of the JSON object at the position, taken: the grammar's `json`,
        whose braces nest and whose other tokens (square brackets too) are any of NAME,
        NUMBER, STRING, OP, `,` and `:`."""
        start = self.expect("{")
        braces, brackets = 1, 0
        while braces:
            match = _EXTENT_TOKEN.match(self.text, self.pos)
            if match is None or match.group() in ("(", ")"):
                raise Declined
            value = match.group()
            braces += (value == "{") - (value == "}")
            brackets = brackets + 1 if value == "[" else max(0, brackets - (value == "]"))
            if braces + brackets > MAX_BRACKETS:
                raise Declined
            self._advance(match.end())
        return start, self.last_end
