"""Prompted tool calls: the ```tool blocks of a model's reply, parsed into plain calls.

    parsed = parse_tool_calls(reply_text)
    parsed.calls         # (ParsedCall(name="wget", arguments=("https://...", 5000), span=...), ...)
    parsed.diagnostics   # located E0901/E0902 diagnostics, for the model to repair

Arguments are JavaScript-like literals (grammar/tool_calls.lark) turned into Python values:
str, int (a number without fraction or exponent), Decimal (any other number: exact, as
toolkiln's numbers are), bool, None, list and dict. `format_literal` writes them back.

Nothing here recurses over the input: the LALR parser builds each value as it reduces, and
the postlexer refuses nesting past MAX_DEPTH at the bracket that goes too deep.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any, cast

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from toolkiln.ast.spans import LineIndex, Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.diagnostics.source import Source
from toolkiln.syntax.grammar import TooDeep, grammar_text
from toolkiln.syntax.lark_front import describe_token, expected_tokens
from toolkiln.syntax.limits import MAX_DEPTH, MAX_LITERAL_DIGITS, MAX_SOURCE_CHARS, literal_too_large
from toolkiln.syntax.words import look_alike_hint

# Lark takes some microseconds a token: a block of 20,000 characters parses in well under a
# second, and no prompted tool needs bigger arguments (large data belongs in a table).
MAX_BLOCK_CHARS = 20_000
MAX_CALLS = 16  # in one reply: a model that asks for more is looping
_OPENING = re.compile(r"```tool\b[ \t]*\r?\n?")
_CLOSING = "```"
_OPENERS = {"LPAR", "LSQB", "LBRACE"}
_CLOSERS = {"RPAR", "RSQB", "RBRACE"}
_TOKEN_WORDS = {
    "NAME": "a name",
    "NUMBER": "a number",
    "DOUBLE_STRING": "a string",
    "SINGLE_STRING": "a string",
    "BACKTICK_STRING": "a string",
    "RETURN": "`return`",
}
# Words of JavaScript that are no JSON-like value, and what to write instead.
_FOREIGN_VALUES = {
    "undefined": "use null",
    "NaN": "a number must be finite: use null or a string",
    "Infinity": "a number must be finite: use null or a string",
}


@dataclass(frozen=True)
class ParsedCall:
    """One call as the model wrote it: the function's name and its positional arguments."""

    name: str
    arguments: tuple[Any, ...]
    span: Span
    text: str  # the call's source text, to show beside its result


@dataclass(frozen=True)
class ParsedCalls:
    """The calls of every tool block of a reply, and why any block could not be read. A reply
    with diagnostics should not run at all: its calls are given for the record."""

    calls: tuple[ParsedCall, ...]
    diagnostics: tuple[Diagnostic, ...]
    blocks: int  # how many ```tool blocks the reply holds


class _Problem(Exception):
    """A literal the grammar accepts but JavaScript or toolkiln does not (raised mid-parse)."""

    def __init__(self, message: str, start: int, end: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.message, self.start, self.end, self.hint = message, start, end, hint


def parse_tool_calls(text: str) -> ParsedCalls:
    """Every call in the ```tool blocks of `text`, in order, and located diagnostics (E0901,
    E0902) for each block that cannot be read: a malformed call is never skipped silently."""
    if len(text) > MAX_SOURCE_CHARS:  # refused before any other work, as sources are
        message = f"the reply has {len(text):,} characters; the limit is {MAX_SOURCE_CHARS:,}"
        diagnostic = Diagnostic.of(codes.TOOL_CALL_TOO_LARGE, message, Span(), hint="answer in a shorter reply")
        return ParsedCalls((), (diagnostic,), 0)
    index = LineIndex(text)
    calls: list[ParsedCall] = []
    diagnostics: list[Diagnostic] = []
    blocks = 0
    for start, end in _blocks(text, index, diagnostics):
        blocks += 1
        if blocks > MAX_CALLS:  # each block holds a call or a diagnostic: stop reading here
            message = f"the reply has more than {MAX_CALLS} tool blocks"
            diagnostics.append(Diagnostic.of(codes.TOOL_CALL_TOO_LARGE, message, index.span(start, start), hint=_FEWER))
            break
        body = text[start:end]
        if len(body) > MAX_BLOCK_CHARS:
            message = f"the tool block has {len(body):,} characters; the limit is {MAX_BLOCK_CHARS:,}"
            diagnostics.append(
                Diagnostic.of(codes.TOOL_CALL_TOO_LARGE, message, index.span(start, start), hint=_SMALLER)
            )
            continue
        found = _parse_block(body, start, index)
        if isinstance(found, Diagnostic):
            diagnostics.append(found)
        else:
            calls.extend(found)
    if len(calls) > MAX_CALLS:
        extra = calls[MAX_CALLS]
        message = f"the reply makes {len(calls)} calls; one reply may make at most {MAX_CALLS}"
        diagnostics.append(Diagnostic.of(codes.TOOL_CALL_TOO_LARGE, message, extra.span, hint=_FEWER))
    source = Source(text=text)
    return ParsedCalls(tuple(calls), tuple(d.located(source) for d in diagnostics), blocks)


_FEWER = "make fewer calls at a time, and send the next ones after their results"
_SMALLER = "send smaller arguments; large data belongs in a registry table"


def _blocks(text: str, index: LineIndex, diagnostics: list[Diagnostic]) -> Iterator[tuple[int, int]]:
    """(start, end) of the inside of each ```tool block; an unclosed one is a diagnostic."""
    position = 0
    while (opening := _OPENING.search(text, position)) is not None:
        closing = text.find(_CLOSING, opening.end())
        if closing < 0:
            diagnostics.append(
                Diagnostic.of(
                    codes.TOOL_CALL_SYNTAX,
                    "the tool block is not closed",
                    index.span(opening.start(), opening.end()),
                    hint="end the block with ``` on a line of its own",
                )
            )
            return
        yield opening.end(), closing
        position = closing + len(_CLOSING)


def _parse_block(body: str, base: int, index: LineIndex) -> list[ParsedCall] | Diagnostic:
    try:
        found = cast(list[tuple[str, tuple[Any, ...], int, int]], _parser().parse(body))
    except TooDeep as error:
        return Diagnostic.of(
            codes.TOOL_CALL_TOO_LARGE,
            f"the arguments nest deeper than {MAX_DEPTH} levels",
            index.span(base + error.offset, base + error.offset + 1),
            hint=_SMALLER,
        )
    except _Problem as problem:
        span = index.span(base + problem.start, base + problem.end)
        return Diagnostic.of(codes.TOOL_CALL_SYNTAX, problem.message, span, hint=problem.hint)
    except UnexpectedInput as error:
        return _syntax_diagnostic(error, body, base, index)
    if not found:
        return Diagnostic.of(
            codes.TOOL_CALL_SYNTAX,
            "the tool block holds no call",
            index.span(base, base),
            hint="write `return name(arguments);` inside the block",
        )
    return [
        ParsedCall(name, arguments, index.span(base + start, base + end), body[start:end])
        for name, arguments, start, end in found
    ]


def _syntax_diagnostic(error: UnexpectedInput, body: str, base: int, index: LineIndex) -> Diagnostic:
    if isinstance(error, UnexpectedCharacters):
        offset = cast(int, error.pos_in_stream)  # lark's base class says None; the lexer sets it
        char = body[offset]
        span = index.span(base + offset, base + offset + 1)
        if char in "\"'`":
            return Diagnostic.of(
                codes.TOOL_CALL_SYNTAX, "the string is not closed", span, hint=f"end the string with {char}"
            )
        shown = char if char.isprintable() else f"U+{ord(char):04X}"
        expected = look_alike_hint(char) or f"expected {_expected(error)}"
        return Diagnostic.of(codes.TOOL_CALL_SYNTAX, f"unexpected character `{shown}`", span, hint=expected)
    if isinstance(error, UnexpectedToken) and error.token.type != "$END":
        token = error.token
        start = token.start_pos or 0
        span = index.span(base + start, base + start + max(len(token.value), 1))
        hint = _FOREIGN_VALUES.get(token.value) if token.type == "NAME" else None
        if hint is None and token.type == "NAME" and "NUMBER" in error.expected:
            hint = f'put text in quotes: "{token.value}"'
        found = describe_token(token.type, token.value)
        return Diagnostic.of(
            codes.TOOL_CALL_SYNTAX, f"unexpected {found}", span, hint=hint or f"expected {_expected(error)}"
        )
    return Diagnostic.of(
        codes.TOOL_CALL_SYNTAX,
        "the call ends too early",
        index.span(base + len(body), base + len(body)),
        hint=f"expected {_expected(error)}",
    )


def _expected(error: UnexpectedInput) -> str:
    allowed = getattr(error, "allowed", None) or getattr(error, "expected", None) or set()
    return expected_tokens(set(allowed), _parser(), _TOKEN_WORDS)


# --- building values while parsing -------------------------------------------------------------


class _DepthLimit:
    """Counts open brackets as tokens arrive, and stops at the first one past MAX_DEPTH."""

    always_accept = ()

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        depth = 0
        for token in stream:
            if token.type in _OPENERS:
                depth += 1
                if depth > MAX_DEPTH:
                    raise TooDeep(token.start_pos or 0)
            elif token.type in _CLOSERS:
                depth = max(0, depth - 1)
            yield token


class _Values(Transformer[Token, Any]):
    """Called by the LALR parser at each reduction: children are already values."""

    def start(self, calls: list[Any]) -> list[Any]:
        return calls

    def call(self, children: list[Any]) -> tuple[str, tuple[Any, ...], int, int]:
        tokens = [c for c in children if isinstance(c, Token)]
        first, name = tokens[0], next(t for t in tokens if t.type == "NAME")
        last = next(t for t in reversed(tokens) if t.type in ("RPAR", "SEMICOLON"))
        arguments = tuple(c for c in children if not isinstance(c, Token))
        return name.value, arguments, first.start_pos or 0, last.end_pos or 0

    def string(self, children: list[Token]) -> str:
        return decode_string(children[0])

    def number(self, children: list[Token]) -> int | Decimal:
        return decode_number(children[0])

    def true(self, _: list[Any]) -> bool:
        return True

    def false(self, _: list[Any]) -> bool:
        return False

    def null(self, _: list[Any]) -> None:
        return None

    def array(self, children: list[Any]) -> list[Any]:
        return [c for c in children if not isinstance(c, Token)]

    def object(self, children: list[Any]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        opening = cast(Token, children[0]).start_pos or 0
        for key, value in (c for c in children if not isinstance(c, Token)):
            if key in result:
                raise _Problem(
                    f"the object gives the key `{key[:40]}` twice", opening, opening + 1, "give each key once"
                )
            result[key] = value
        return result

    def member(self, children: list[Any]) -> tuple[str, Any]:
        return str(children[0]), children[1]


# Escapes of JavaScript strings; any other escaped character stands for itself.
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|.)", re.DOTALL)
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "v": "\v", "0": "\0", "\n": "", "\r\n": ""}
_INTERPOLATION = re.compile(r"(?<!\\)(?:\\\\)*\$\{")


def decode_string(token: Token) -> str:
    """The value of a string token (quotes included in `token`)."""
    raw, start = token.value[1:-1], token.start_pos or 0
    if token.type == "BACKTICK_STRING" and (found := _INTERPOLATION.search(raw)) is not None:
        at = start + 1 + found.end() - 2
        raise _Problem(
            "a backtick string cannot interpolate `${...}`",
            at,
            at + 2,
            "compute the value first and pass it as its own argument, or write \\${ for the text",
        )

    def replace(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape in _SIMPLE:
            return _SIMPLE[escape]
        if escape[0] in "ux" and len(escape) > 1:
            code = int(escape.strip("ux{}"), 16)
            if code > 0x10FFFF:
                raise _Problem("the escape is past U+10FFFF", start + 1 + match.start(), start + 1 + match.end())
            return chr(code)
        if escape in ("u", "x") or escape.isdigit():
            at = start + 1 + match.start()
            raise _Problem(f"`\\{escape}` is not a valid escape", at, at + 2, "write \\uXXXX, \\xXX or \\\\")
        return escape

    value = _ESCAPE.sub(replace, raw) if "\\" in raw else raw
    if value.isascii():
        return value
    try:  # \ud83d\ude42 is one character, written as the two halves UTF-16 has
        return value.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeDecodeError:
        raise _Problem(
            "the string holds half of a UTF-16 surrogate pair",
            start,
            token.end_pos or start + 1,
            "escape a character past U+FFFF as both halves, or as \\u{1F642}",
        ) from None


def decode_number(token: Token) -> int | Decimal:
    text, start = token.value, token.start_pos or 0
    digits = text.lstrip("-")
    if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
        raise _Problem("a number cannot start with 0", start, start + len(text), f"write {int(digits)}")
    if text.lstrip("-").isdigit():
        if len(digits) > MAX_LITERAL_DIGITS:
            raise _Problem(f"the number has more than {MAX_LITERAL_DIGITS} digits", start, start + len(text))
        return int(text)
    value = Decimal(text)
    if literal_too_large(value):
        raise _Problem(f"the number has more than {MAX_LITERAL_DIGITS} digits", start, start + len(text))
    return value


@cache
def _parser() -> Lark:
    return Lark(
        grammar_text("tool_calls.lark"),
        parser="lalr",
        maybe_placeholders=False,
        postlex=_DepthLimit(),
        transformer=_Values(),
    )


# --- writing values back -----------------------------------------------------------------------

_BARE_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_KEYWORDS = frozenset(("true", "false", "null", "return"))


def format_literal(value: Any, quote: str = '"') -> str:
    """`value` as a literal `parse_tool_calls` reads back to an equal value; strings in `quote`
    (one of " ' `), keys bare where they can be. For the prompt's examples and for tests."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal | float):
        if not Decimal(value).is_finite():
            raise ValueError(f"{value} has no literal")
        return str(value)
    if isinstance(value, str):
        return _quoted(value, quote)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(format_literal(item, quote) for item in value) + "]"
    if isinstance(value, dict):
        members = (f"{_key(str(key), quote)}: {format_literal(item, quote)}" for key, item in value.items())
        return "{" + ", ".join(members) + "}"
    raise TypeError(f"a {type(value).__name__} has no literal")


def _key(key: str, quote: str) -> str:
    return key if _BARE_KEY.fullmatch(key) and key not in _KEYWORDS else _quoted(key, quote)


def _quoted(text: str, quote: str) -> str:
    if quote == '"':
        return json.dumps(text, ensure_ascii=False)
    escaped = json.dumps(text, ensure_ascii=False)[1:-1].replace('\\"', '"').replace(quote, "\\" + quote)
    if quote == "`":
        escaped = escaped.replace("${", "\\${")
    return quote + escaped + quote
