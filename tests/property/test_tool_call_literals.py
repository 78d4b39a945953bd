"""Printing a JavaScript-like literal and parsing it as a tool call's argument gives the value
back: through toolkiln's own printer (`format_literal`, each quote style) and through a
rendering of the test's own that varies what JavaScript allows (quotes, bare or quoted keys,
spaces, trailing commas, escapes)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from toolkiln.syntax.tool_calls import format_literal, parse_tool_calls

LITERALS = settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])

texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
numbers = st.integers(-(10**30), 10**30) | st.decimals(
    min_value=-(10**12), max_value=10**12, allow_nan=False, allow_infinity=False, places=4
)
scalars = st.none() | st.booleans() | numbers | texts
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=20,
)


def parsed(literal: str) -> Any:
    result = parse_tool_calls(f"```tool\nreturn f({literal});\n```")
    assert result.diagnostics == (), (literal, result.diagnostics)
    (call,) = result.calls
    (value,) = call.arguments
    return value


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same kind: True is not 1, [1] is not {"0": 1}."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return type(a) is type(b) and a == b
    if isinstance(a, int | Decimal) and isinstance(b, int | Decimal):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@LITERALS
@given(values, st.sampled_from(['"', "'", "`"]))
def test_format_literal_parses_back(value: Any, quote: str) -> None:
    assert same(parsed(format_literal(value, quote)), value)


def render(value: Any, draw: Any) -> str:
    """The test's own JavaScript rendering, choosing freely among what the grammar allows."""
    space = draw(st.sampled_from(["", " ", "\n  "]))
    if isinstance(value, str):
        quote = draw(st.sampled_from(['"', "'", "`"]))
        body = "".join(escape(char, quote, draw) for char in value)
        return quote + body + quote
    if isinstance(value, list | dict):
        items = (
            [render(item, draw) for item in value]
            if isinstance(value, list)
            else [f"{key_text(key, draw)}:{space}{render(item, draw)}" for key, item in value.items()]
        )
        trailing = "," if items and draw(st.booleans()) else ""
        opening, closing = ("[", "]") if isinstance(value, list) else ("{", "}")
        return opening + space + f",{space}".join(items) + trailing + space + closing
    return json.dumps(value) if not isinstance(value, Decimal) else str(value)


def key_text(key: str, draw: Any) -> str:
    bare = key.isidentifier() and key.isascii() and key not in ("true", "false", "null", "return")
    return key if bare and draw(st.booleans()) else render(key, draw)


def escape(char: str, quote: str, draw: Any) -> str:
    if char in (quote, "\\") or (char == "$" and quote == "`"):
        return "\\" + char
    if char == "\n" and quote != "`" or not char.isprintable() or draw(st.integers(0, 9)) == 0:
        code = ord(char)
        if code > 0xFFFF:
            return "\\u{" + f"{code:x}" + "}"
        return f"\\u{code:04x}"
    return char


@LITERALS
@given(values, st.data())
def test_an_independent_rendering_parses_back(value: Any, data: st.DataObject) -> None:
    assert same(parsed(render(value, data.draw)), value)


CALL_SOUP = st.lists(
    st.sampled_from(
        [
            "f(",
            ")",
            "[",
            "]",
            "{",
            "}",
            ",",
            ":",
            ";",
            '"',
            "'",
            "`",
            "\\",
            "${",
            "a",
            "1",
            "-",
            ".",
            "e",
            "true",
            "null",
            "return",
            "\n",
            " ",
            "//",
            "/*",
            "*/",
            "\ud800",
            "é",
        ]
    ),
    max_size=40,
).map("".join)


@LITERALS
@given(CALL_SOUP | st.text(max_size=60))
def test_any_block_gives_calls_or_diagnostics_never_an_exception(body: str) -> None:
    result = parse_tool_calls(f"before\n```tool\n{body}\n```\nafter")
    assert result.blocks == 1
    assert result.calls or result.diagnostics  # never nothing: a malformed call is not skipped
    for diagnostic in result.diagnostics:
        assert diagnostic.code in ("E0901", "E0902") and diagnostic.span is not None
