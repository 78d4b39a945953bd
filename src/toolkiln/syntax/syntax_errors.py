"""A syntax error of the text DSL as a diagnostic, from what the parser saw where it stopped.

Lark's exceptions (syntax/lark_front.py) and the table-driven error finder that runs without
Lark (syntax/lr_driver.py) both describe a failure as a `SyntaxFailure`, so that one function
words every message, span, hint and fix. This module does not import Lark.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from toolkiln.ast.spans import LineIndex, Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic, Fix
from toolkiln.syntax.words import look_alike_hint

if TYPE_CHECKING:
    from toolkiln.syntax.foreign_base import Foreign

_TOKEN_WORDS = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": "a string",
    "_NL": "end of line",
    "$END": "end of input",
    "__ANON_0": "`**`",
}
# Operators from other languages whose meaning differs, so they get a hint and no fix (those
# that mean the same, `&&`, `===`, ..., are the `foreign` module's, with their fixes).
_FOREIGN_OPERATORS = {"^": "use `**` for powers"}


_NOT_A_LINE_END = re.compile(r"[^\r\n]")


def blanked_before(text: str, body_start: int, step_start: int) -> str:
    """`text` with what lies between `body_start` and `step_start` blanked out, its lines
    kept: every offset is the same (see lark_front._error_past)."""
    return text[:body_start] + _NOT_A_LINE_END.sub(" ", text[body_start:step_start]) + text[step_start:]


# Plain classes, not dataclasses: a dataclass costs some 3 M instructions to make as its
# module loads, and these load on every syntax error's `check`.
class SeenToken:
    """A token as the parser met it: its terminal's name, its text, and its offset."""

    __slots__ = ("kind", "value", "start")

    def __init__(self, kind: str, value: str, start: int | None) -> None:
        self.kind, self.value, self.start = kind, value, start


class SyntaxFailure:
    """Where and why a parse stopped. `what`: "token" (a token the parser cannot take here),
    "characters" (text no terminal of this state matches) or "eof"; `offset`: the token's start
    or the character's offset; `allowed`: the terminals the lexer tried ("characters") or the
    parser expected ("eof"); `expects`: the terminals the parser could take in its state
    ("token"), `expected`: Lark's own list for the token (the lexer's, when it found the token
    with the whole lexer); `held`: what the parser holds where it stopped, oldest first: a
    token's kind, or None for what a rule built (the error finder's; None from Lark)."""

    __slots__ = ("what", "offset", "token", "allowed", "expects", "expected", "held")

    def __init__(
        self,
        what: str,
        offset: int | None,
        token: SeenToken | None = None,
        *,
        allowed: frozenset[str] = frozenset(),
        expects: frozenset[str] = frozenset(),
        expected: frozenset[str] = frozenset(),
    ) -> None:
        self.what, self.offset, self.token = what, offset, token
        self.allowed, self.expects, self.expected = allowed, expects, expected
        self.held: tuple[str | None, ...] | None = None


def describe_token(kind: str, value: str | None = None) -> str:
    """How a token reads in a message: `total` for a found name, "a name" for an expected one."""
    if value and kind not in ("_NL", "$END"):
        return f"`{value}`"
    if kind in _TOKEN_WORDS:
        return _TOKEN_WORDS[kind]
    return f"`{kind.lower()}`"


def expected_words(
    terminals: set[str] | frozenset[str], literals: dict[str, str], words: dict[str, str] | None = None
) -> str:
    """The tokens a parser could take, as a message reads them: "`(`, `+`, a name, ...".
    `literals`: the text of each terminal that is a plain string."""
    words = {**_TOKEN_WORDS, **(words or {})}
    shown = sorted(
        {
            words.get(t) or (f"`{literals[t]}`" if t in literals else f"`{t.lower()}`")
            for t in terminals
            if not t.startswith("__IGNORE")
        }
    )
    if len(shown) > 8:
        shown = shown[:8] + ["..."]
    return ", ".join(shown)


class Where:
    """The text that was parsed, where it sits in the text `index` covers, and its file."""

    __slots__ = ("text", "index", "base", "path")

    def __init__(self, text: str, index: LineIndex, base: int, path: str | None) -> None:
        self.text, self.index, self.base, self.path = text, index, base, path

    def span(self, start: int, end: int) -> Span:
        return self.index.span(self.base + start, self.base + end, self.path)


def syntax_diagnostic(failure: SyntaxFailure, where: Where, rule: str, literals: dict[str, str]) -> Diagnostic:
    """The diagnostic of a parse of `where.text` with the start `rule` that stopped so."""
    from toolkiln.syntax.foreign import foreign_construct  # (8 M instructions: not for a workflow's errors)

    text = where.text
    offset = failure.offset
    construct = foreign_construct(text, offset, steps=rule == "start") if isinstance(offset, int) else None
    if construct is not None:
        return _foreign_diagnostic(construct, where)
    if failure.what == "characters":
        return _character_diagnostic(failure, where, literals)
    if failure.what == "token":
        assert failure.token is not None
        token = failure.token
        start = token.start
        if token.kind == "$END" or start is None or (token.kind == "_NL" and not token.value):
            offset, width = len(text), 0
            token = SeenToken("$END", "", None)
        else:
            offset, width = start, max(len(token.value), 1)
        found = describe_token(token.kind, token.value)
        hint = _token_hint(token.kind, failure.expects, literals)
        return Diagnostic.of(codes.SYNTAX_ERROR, f"unexpected {found}", where.span(offset, offset + width), hint=hint)
    return Diagnostic.of(
        codes.SYNTAX_ERROR,
        "unexpected end of input",
        where.span(len(text), len(text)),
        hint=f"expected {expected_words(failure.allowed, literals)}",
    )


def unterminated_string(quote: str, span: Span) -> Diagnostic:
    """A string the lexer could not match: its `quote` opens it and no line end closes it."""
    return Diagnostic.of(
        codes.UNTERMINATED_STRING, "string is not closed on this line", span, hint=f"end the string with {quote}"
    )


def _character_diagnostic(failure: SyntaxFailure, where: Where, literals: dict[str, str]) -> Diagnostic:
    text = where.text
    offset = failure.offset
    assert offset is not None  # the lexer always says where
    ch = text[offset]
    span = where.span(offset, offset + 1)
    if ch in "\"'":
        return unterminated_string(ch, span)
    foreign = next(
        (op for op in sorted(_FOREIGN_OPERATORS, key=len, reverse=True) if text.startswith(op, offset)), None
    )
    if foreign is not None:
        return Diagnostic.of(
            codes.SYNTAX_ERROR,
            f"`{foreign}` is not an operator here",
            where.span(offset, offset + len(foreign)),
            hint=_FOREIGN_OPERATORS[foreign],
        )
    shown = ch if ch.isprintable() else f"U+{ord(ch):04X}"
    allowed = failure.allowed
    return Diagnostic.of(
        codes.SYNTAX_ERROR,
        f"unexpected character `{shown}`",
        span,
        hint=look_alike_hint(ch) or (f"expected {expected_words(allowed, literals)}" if allowed else None),
    )


def _foreign_diagnostic(found: Foreign, where: Where) -> Diagnostic:
    fix = None
    if found.fix is not None:
        start, end, replacement = found.fix
        fix = Fix.replace(where.span(start, end), replacement)
    return Diagnostic.of(
        codes.SYNTAX_ERROR,
        found.message,
        where.span(found.start, found.end),
        hint=found.hint,
        input=where.text[found.start : found.end],
        expected=(found.expected,),
        fix=fix,
    )


def _token_hint(kind: str, expected: frozenset[str], literals: dict[str, str]) -> str:
    if kind == "COMPARE" and "COMPARE" not in expected:
        return "comparisons do not chain: write `a < b and b < c`"
    if kind == "EQUAL" and "COMPARE" in expected:
        return "use `==` to compare"
    if kind == "_NL" and "RBRACE" in expected:
        return "a block needs its closing `}`"
    if kind in ("NAME", "NUMBER", "STRING") and "_NL" in expected:
        return "an operator is missing before it, or it should start a new line"
    return f"expected {expected_words(expected, literals)}"
