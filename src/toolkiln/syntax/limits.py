"""Size limits of sources, shared by both front ends and both expression parsers (none of
them needs Lark, so this module does not load it)."""

from __future__ import annotations

import re
from decimal import Decimal
from itertools import islice

MAX_SOURCE_CHARS = 1 << 20
MAX_DEPTH = 200  # levels of nesting: parse-tree levels, or nested conditions
MAX_LITERAL_DIGITS = 100


class TooDeep(Exception):
    """Nesting deeper than MAX_DEPTH, found at `offset` (by a parser's depth guard)."""

    def __init__(self, offset: int) -> None:
        super().__init__(f"nesting deeper than {MAX_DEPTH} levels")
        self.offset = offset


def literal_too_large(value: Decimal) -> bool:
    return len(value.as_tuple().digits) > MAX_LITERAL_DIGITS or abs(value.adjusted()) >= MAX_LITERAL_DIGITS


MAX_SOURCE_TOKENS = 40_000  # tokens of one text-DSL source: parsing costs some 50-100 us each
MAX_LITERAL_ITEMS = 10_000  # items of one literal value, nested lists included
# What a parser takes for one token, near enough for a limit: a string, a comment, a word or
# number, or one character of punctuation.
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*|[\w.]+|\S')


def too_many_tokens(text: str, limit: int = MAX_SOURCE_TOKENS) -> bool:
    """Whether `text` has more than `limit` tokens; the scan stops at the first one past it."""
    return next(islice(_TOKEN.finditer(text), limit, None), None) is not None
