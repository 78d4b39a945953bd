"""Running the Lark parser and turning its failures into diagnostics.

This and `builder.py` are the only modules that see Lark's trees and exceptions.
"""

from __future__ import annotations

import re
from typing import cast

from lark import Lark, Token, Tree
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from toolkiln.ast.spans import LineIndex
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic, Fix
from toolkiln.syntax.foreign import foreign_construct
from toolkiln.syntax.foreign_base import Foreign
from toolkiln.syntax.grammar import TooDeep, compute_parser
from toolkiln.syntax.words import look_alike_hint

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


def describe_token(kind: str, value: str | None = None) -> str:
    """How a token reads in a message: `total` for a found name, "a name" for an expected one."""
    if value and kind not in ("_NL", "$END"):
        return f"`{value}`"
    if kind in _TOKEN_WORDS:
        return _TOKEN_WORDS[kind]
    return f"`{kind.lower()}`"


def expected_tokens(terminals: set[str], parser: Lark, words: dict[str, str] | None = None) -> str:
    """The tokens a parser could take, as a message reads them: "`(`, `+`, a name, ..."."""
    literals = {t.name: t.pattern.value for t in parser.terminals if t.pattern.type == "str"}
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


def _expected(terminals: set[str]) -> str:
    return expected_tokens(terminals, compute_parser())


def parse_tree(
    text: str,
    start: str,
    index: LineIndex,
    base: int = 0,
    path: str | None = None,
    *,
    parsed_until: tuple[int, int] | None = None,
) -> Tree[Token] | Diagnostic:
    """Parse `text` (which sits at `base` in the text `index` covers) with the start rule: its
    tree, or the diagnostic of why it does not parse. `parsed_until` (from, to): the text
    between is complete steps of a tool's block, taken by the hand-written parser, which
    declined in a later step than the one at `to`; a syntax error past that one's first
    token is found without parsing them (see `_error_past`)."""
    if parsed_until is not None:
        error = _error_past(text, *parsed_until)
        if error is not None:
            return _syntax_diagnostic(error, text, index, base, path, start)
    try:
        return compute_parser().parse(text, start=start)
    except UnexpectedInput as error:
        return _syntax_diagnostic(error, text, index, base, path, start)
    except TooDeep as error:
        return Diagnostic.of(
            codes.TOO_DEEP,
            str(error),
            index.span(base + error.offset, base + error.offset + 1, path),
            hint="flatten the expression with intermediate steps",
        )


_NOT_A_LINE_END = re.compile(r"[^\r\n]")


def _error_past(text: str, body_start: int, step_start: int) -> UnexpectedInput | None:
    """The syntax error of `text`, found with the complete steps of its tool's block before
    `step_start` blanked out (the lines kept: every offset is the same), if there is one past
    the first token of the step at `step_start`; else None (the whole text is parsed).

    A half-typed line in a long file is the common case in an editor, and parsing the steps
    before it, building their trees, is most of the time. The step at `step_start` is one the
    hand-written parser took, so its first token is a name, `if` or `return`, lexed alike
    after the block's `{` and after a step; the parser's state after it is the same either
    way (the same LR items follow), and from there on both texts are lexed and parsed alike:
    the next step's first token is lexed after this step's newline in both, and they fail at
    the same token with the same choices. A text that parses and nesting too deep are left to
    the whole text."""
    blanked = text[:body_start] + _NOT_A_LINE_END.sub(" ", text[body_start:step_start]) + text[step_start:]
    try:
        compute_parser().parse(blanked, start="start")
    except UnexpectedInput as error:
        where = error.token.start_pos if isinstance(error, UnexpectedToken) else error.pos_in_stream
        return error if isinstance(where, int) and where > step_start else None
    except TooDeep:
        return None
    return None


def _syntax_diagnostic(
    error: UnexpectedInput, text: str, index: LineIndex, base: int, path: str | None, rule: str
) -> Diagnostic:
    offset = error.token.start_pos if isinstance(error, UnexpectedToken) else error.pos_in_stream
    construct = foreign_construct(text, offset, steps=rule == "start") if isinstance(offset, int) else None
    if construct is not None:
        return _foreign_diagnostic(construct, text, index, base, path)
    if isinstance(error, UnexpectedCharacters):
        offset = cast(int, error.pos_in_stream)  # lark's base class says None; the lexer sets it
        ch = text[offset]
        span = index.span(base + offset, base + offset + 1, path)
        if ch in "\"'":
            return Diagnostic.of(
                codes.UNTERMINATED_STRING, "string is not closed on this line", span, hint=f"end the string with {ch}"
            )
        foreign = next(
            (op for op in sorted(_FOREIGN_OPERATORS, key=len, reverse=True) if text.startswith(op, offset)), None
        )
        if foreign is not None:
            span = index.span(base + offset, base + offset + len(foreign), path)
            return Diagnostic.of(
                codes.SYNTAX_ERROR, f"`{foreign}` is not an operator here", span, hint=_FOREIGN_OPERATORS[foreign]
            )
        shown = ch if ch.isprintable() else f"U+{ord(ch):04X}"
        return Diagnostic.of(
            codes.SYNTAX_ERROR,
            f"unexpected character `{shown}`",
            span,
            hint=look_alike_hint(ch) or (f"expected {_expected(error.allowed)}" if error.allowed else None),
        )
    if isinstance(error, UnexpectedToken):
        token, start = error.token, error.token.start_pos
        if token.type == "$END" or start is None or (token.type == "_NL" and not token.value):
            offset, width = len(text), 0
            token = Token("$END", "")
        else:
            offset, width = start, max(len(token.value), 1)
        span = index.span(base + offset, base + offset + width, path)
        found = describe_token(token.type, token.value)
        hint = _token_hint(token.type, _parser_expects(error))
        return Diagnostic.of(codes.SYNTAX_ERROR, f"unexpected {found}", span, hint=hint)
    assert isinstance(error, UnexpectedEOF)
    return Diagnostic.of(
        codes.SYNTAX_ERROR,
        "unexpected end of input",
        index.span(base + len(text), base + len(text), path),
        hint=f"expected {_expected(set(error.expected))}",
    )


def _foreign_diagnostic(found: Foreign, text: str, index: LineIndex, base: int, path: str | None) -> Diagnostic:
    fix = None
    if found.fix is not None:
        start, end, replacement = found.fix
        fix = Fix.replace(index.span(base + start, base + end, path), replacement)
    return Diagnostic.of(
        codes.SYNTAX_ERROR,
        found.message,
        index.span(base + found.start, base + found.end, path),
        hint=found.hint,
        input=text[found.start : found.end],
        expected=(found.expected,),
        fix=fix,
    )


def _parser_expects(error: UnexpectedToken) -> set[str]:
    """The terminals the parser could take here (the lexer's own list may be wider)."""
    parser = getattr(error, "interactive_parser", None)
    if parser is None:
        return set(error.expected)
    terminals = {t.name for t in compute_parser().terminals}
    return {choice for choice in parser.choices() if choice in terminals} or set(error.expected)


def _token_hint(kind: str, expected: set[str]) -> str:
    if kind == "COMPARE" and "COMPARE" not in expected:
        return "comparisons do not chain: write `a < b and b < c`"
    if kind == "EQUAL" and "COMPARE" in expected:
        return "use `==` to compare"
    if kind == "_NL" and "RBRACE" in expected:
        return "a block needs its closing `}`"
    if kind in ("NAME", "NUMBER", "STRING") and "_NL" in expected:
        return "an operator is missing before it, or it should start a new line"
    return f"expected {_expected(expected)}"
