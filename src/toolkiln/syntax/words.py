"""The words the language reserves and the names it accepts, for both front ends."""

from __future__ import annotations

import re

RISK_LEVELS = ("low", "medium", "high")
TOOL_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
# Words that cannot name a variable, parameter or table in either front end. The contextual
# lexer lets some of them through as names where no keyword fits; the builder refuses them.
RESERVED = frozenset(
    {
        "and",
        "or",
        "not",
        "in",
        "if",
        "else",
        "for",
        "return",
        "true",
        "false",
        "null",
        "lookup",
        "format",
        "tool",
        "call",
        "try",
        "catch",
    }
)


def look_alike_hint(ch: str) -> str | None:
    """The hint for a character outside ASCII where a number or a name was expected: numbers
    and names are ASCII only, so `٣` or `ａ` cannot pass for `3` or `a` (docs/decisions.md)."""
    if ch.isascii():
        return None
    if ch.isdigit() or ch.isnumeric():
        return "numbers are written with the ASCII digits 0-9 only"
    if ch.isalpha():
        return "names are ASCII letters, digits and _ only"
    return None
