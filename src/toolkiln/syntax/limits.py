"""Size limits of sources, shared by both front ends and both expression parsers (none of
them needs Lark, so this module does not load it)."""

from __future__ import annotations

from decimal import Decimal

MAX_SOURCE_CHARS = 1 << 20
MAX_DEPTH = 200  # levels of nesting: parse-tree levels, or nested conditions
MAX_LITERAL_DIGITS = 100


def literal_too_large(value: Decimal) -> bool:
    return len(value.as_tuple().digits) > MAX_LITERAL_DIGITS or abs(value.adjusted()) >= MAX_LITERAL_DIGITS
