"""A syntax error of the workflow DSL as a diagnostic, from what the parser saw where it stopped
(Lark's exception, turned into a `SyntaxFailure` by workflow_lark.py, or the error finder's,
syntax/lr_driver.py), and the finder's answer for a `.wf` text: this module does not import
Lark, so a workflow with a syntax error is explained without it once its tables are kept."""

from __future__ import annotations

from collections.abc import Sequence

from toolkiln.ast.spans import LineIndex
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.error_tables import workflow_tables
from toolkiln.syntax.lr_driver import MaybeTooDeep, first_failure
from toolkiln.syntax.syntax_errors import SyntaxFailure, describe_token, expected_words, unterminated_string
from toolkiln.syntax.words import look_alike_hint

_TERMINAL_WORDS = {
    "OP": "an operator",
    "RESPOND_WITH_NODE": "`respond with node`",
    "MERGE_MODE": "`by position`",
    "NOTHING": "`nothing`",
    "LBRACE": "`{`",
    "RBRACE": "`}`",
    "COLON": "`:`",
}


def explain_workflow_error(text: str, index: LineIndex) -> Diagnostic | None:
    """The diagnostic Lark's parse of `text` (workflow_lark.parse_with_lark) gives for a syntax
    error, found without Lark; None when the text parses, brackets may nest too deep, the
    or there are no kept tables: then Lark decides."""
    tables = workflow_tables()
    if tables is None:
        return None
    try:
        failure = first_failure(text, "start", tables, workflow=True)
    except MaybeTooDeep:
        return None
    if failure is None:
        return None
    in_shape = failure.what == "token" and stopped_in_shape(failure.held or ())
    return workflow_syntax_diagnostic(failure, text, index, tables.literals, in_shape=in_shape)


def stopped_in_shape(held: Sequence[str | None]) -> bool:
    """Whether a parser that holds values of these kinds (a token's, None for what a rule
    built; oldest first) stopped inside a declared shape, or right after `returns` or a
    webhook's `body`, where one must start: the tokens it holds after the last of those words
    open more braces than they close (a nested shape, once whole, is one value)."""
    for at in range(len(held) - 1, -1, -1):
        webhook_body = held[at] == "BODY" and list(held[at - 3 : at]) == ["WEBHOOK", "NAME", "STRING"]
        if held[at] == "RETURNS" or webhook_body:
            after = held[at + 1 :]
            return not after or after.count("LBRACE") > after.count("RBRACE")
    return False


def workflow_syntax_diagnostic(
    failure: SyntaxFailure, text: str, index: LineIndex, literals: dict[str, str], *, in_shape: bool
) -> Diagnostic:
    """The diagnostic of a workflow parse that stopped so; `in_shape`: inside a declared shape."""
    if failure.what == "characters":
        offset = failure.offset
        assert offset is not None  # the lexer always says where
        ch = text[offset]
        span = index.span(offset, offset + 1)
        if ch in "\"'":
            return unterminated_string(ch, span)
        shown = ch if ch.isprintable() else f"U+{ord(ch):04X}"
        hint = look_alike_hint(ch) or _expected(failure.allowed, literals)
        return Diagnostic.of(codes.SYNTAX_ERROR, f"unexpected character `{shown}`", span, hint=hint)
    if failure.what == "token":
        token = failure.token
        assert token is not None
        if token.kind == "$END" or token.start is None:
            span, found = index.span(len(text), len(text)), "end of input"
        else:
            span = index.span(token.start, token.start + max(len(token.value), 1))
            found = describe_token(token.kind, token.value)
        hint = _expected(failure.expected, literals)
        if token.kind == "LBRACE" and "LPAR" in failure.expected:
            hint = 'a record in a workflow expression goes in parentheses: ({"key": value})'
        if in_shape:
            return Diagnostic.of(codes.INVALID_SHAPE, f"unexpected {found} in a declared shape", span, hint=hint)
        return Diagnostic.of(codes.SYNTAX_ERROR, f"unexpected {found}", span, hint=hint)
    return Diagnostic.of(
        codes.SYNTAX_ERROR,
        "unexpected end of input",
        index.span(len(text), len(text)),
        hint=_expected(failure.allowed, literals),
    )


def _expected(terminals: frozenset[str], literals: dict[str, str]) -> str | None:
    if not terminals:
        return None
    return "expected " + expected_words(terminals, literals, _TERMINAL_WORDS)
