"""Running the Lark parser and turning its failures into diagnostics.

This and `builder.py` are the only modules that see Lark's trees and exceptions; the words of
a syntax error are `syntax_errors.py`'s, shared with the error finder that runs without Lark.
"""

from __future__ import annotations

from lark import Lark, Token, Tree
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from toolkiln.ast.spans import LineIndex
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.grammar import TooDeep, compute_parser
from toolkiln.syntax.syntax_errors import (
    SeenToken,
    SyntaxFailure,
    Where,
    blanked_before,
    describe_token,
    expected_words,
    syntax_diagnostic,
)

__all__ = ["describe_token", "expected_tokens", "literal_terminals", "parse_tree"]


def literal_terminals(parser: Lark) -> dict[str, str]:
    """The text of each of the parser's terminals that is a plain string."""
    return {t.name: t.pattern.value for t in parser.terminals if t.pattern.type == "str"}


def expected_tokens(terminals: set[str], parser: Lark, words: dict[str, str] | None = None) -> str:
    """The tokens a parser could take, as a message reads them: "`(`, `+`, a name, ..."."""
    return expected_words(terminals, literal_terminals(parser), words)


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
    try:
        compute_parser().parse(blanked_before(text, body_start, step_start), start="start")
    except UnexpectedInput as error:
        where = error.token.start_pos if isinstance(error, UnexpectedToken) else error.pos_in_stream
        return error if isinstance(where, int) and where > step_start else None
    except TooDeep:
        return None
    return None


def _syntax_diagnostic(
    error: UnexpectedInput, text: str, index: LineIndex, base: int, path: str | None, rule: str
) -> Diagnostic:
    parser = compute_parser()
    return syntax_diagnostic(failure_of(error, parser), Where(text, index, base, path), rule, literal_terminals(parser))


def failure_of(error: UnexpectedInput, parser: Lark) -> SyntaxFailure:
    """What Lark's exception says, as `syntax_errors` reads it."""
    if isinstance(error, UnexpectedToken):
        token = error.token
        seen = SeenToken(token.type, token.value, token.start_pos)
        expects = frozenset(_parser_expects(error, parser))
        return SyntaxFailure("token", token.start_pos, seen, expects=expects, expected=frozenset(error.expected))
    if isinstance(error, UnexpectedCharacters):
        return SyntaxFailure("characters", error.pos_in_stream, allowed=frozenset(error.allowed or ()))
    assert isinstance(error, UnexpectedEOF)
    return SyntaxFailure("eof", error.pos_in_stream, allowed=frozenset(error.expected))


def _parser_expects(error: UnexpectedToken, parser: Lark) -> set[str]:
    """The terminals the parser could take here (the lexer's own list may be wider)."""
    interactive = getattr(error, "interactive_parser", None)
    if interactive is None:
        return set(error.expected)
    terminals = {t.name for t in parser.terminals}
    return {choice for choice in interactive.choices() if choice in terminals} or set(error.expected)
