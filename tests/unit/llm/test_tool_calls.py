"""parse_tool_calls: the ```tool blocks of a reply, their JavaScript-like literals, and a located
diagnostic for every block that cannot be read (never a silent skip, never a RecursionError)."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest

from toolkiln.syntax.tool_calls import MAX_BLOCK_CHARS, MAX_CALLS, parse_tool_calls


def block(*lines: str) -> str:
    return "```tool\n" + "\n".join(lines) + "\n```"


def only_call(text: str) -> tuple[str, tuple[object, ...]]:
    parsed = parse_tool_calls(text)
    assert parsed.diagnostics == ()
    assert len(parsed.calls) == 1
    return parsed.calls[0].name, parsed.calls[0].arguments


def only_problem(text: str) -> tuple[str, str, str | None, int, int]:
    parsed = parse_tool_calls(text)
    assert len(parsed.diagnostics) == 1, parsed.diagnostics
    d = parsed.diagnostics[0]
    assert d.span is not None
    return d.code, d.message, d.hint, d.span.line, d.span.column


def test_a_call_in_prose_with_its_location() -> None:
    text = "I will fetch it.\n\n" + block('return wget("https://example.com", 5000);') + "\nDone."
    parsed = parse_tool_calls(text)
    (call,) = parsed.calls
    assert (call.name, call.arguments, parsed.blocks) == ("wget", ("https://example.com", 5000), 1)
    assert (call.span.line, call.span.column) == (4, 1)
    assert call.text == 'return wget("https://example.com", 5000);'


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ('"double \\"q\\" \\n"', 'double "q" \n'),
        ("'single \\'q\\''", "single 'q'"),
        ("`back\ntick`", "back\ntick"),
        ("`costs \\${price}`", "costs ${price}"),
        ('"\\u00e9\\x41\\u{1F642}\\ud83d\\ude42"', "éA🙂🙂"),
        ("42", 42),
        ("-7", -7),
        ("2.50", Decimal("2.50")),
        ("-1.5e3", Decimal("-1.5e3")),
        (".5", Decimal("0.5")),
        ("true", True),
        ("false", False),
        ("null", None),
        ("[1, [2, []], ]", [1, [2, []]]),
        ("{a: 1, \"b c\": [true], 'd': null,}", {"a": 1, "b c": [True], "d": None}),
        ("{}", {}),
    ],
)
def test_literals(literal: str, value: object) -> None:
    assert only_call(block(f"return f({literal});")) == ("f", (value,))


def test_several_calls_per_block_and_per_reply_without_return_or_semicolons() -> None:
    text = block("return a(1);", "b(2)  // a comment", "/* and\nanother */ return c();") + "\nthen\n" + block("d('x',)")
    parsed = parse_tool_calls(text)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("a", (1,)), ("b", (2,)), ("c", ()), ("d", ("x",))]
    assert parsed.blocks == 2


def test_other_fences_are_not_calls() -> None:
    parsed = parse_tool_calls('```json\n{"a": 1}\n```\n```js\nreturn f(1);\n```')
    assert parsed == type(parsed)((), (), 0)


@pytest.mark.parametrize(
    ("body", "message", "hint", "column"),
    [
        ("return wget(https://x.org, 5);", "unexpected `https`", 'put text in quotes: "https"', 13),
        ("return f(undefined);", "unexpected `undefined`", "use null", 10),
        ("return f(NaN);", "unexpected `NaN`", "a number must be finite: use null or a string", 10),
        ('return f("abc);', "the string is not closed", 'end the string with "', 10),
        ("return f(`a ${b}`);", "a backtick string cannot interpolate `${...}`", None, 13),
        ("return f({a: 1, a: 2});", "the object gives the key `a` twice", "give each key once", 10),
        ("return f(007);", "a number cannot start with 0", "write 7", 10),
        ('return f("\\ud83d");', "the string holds half of a UTF-16 surrogate pair", None, 10),
        ('return f("\\q\\1");', "`\\1` is not a valid escape", None, 13),
        ("return f(1 2);", "unexpected `2`", None, 12),
        ("return f(#);", "unexpected character `#`", None, 10),
    ],
)
def test_malformed_calls_are_located_diagnostics(body: str, message: str, hint: str | None, column: int) -> None:
    code, found, found_hint, line, found_column = only_problem("Calling:\n" + block(body))
    assert (code, found, line, found_column) == ("E0901", message, 3, column)
    if hint is not None:
        assert found_hint == hint


def test_a_call_that_ends_too_early_says_what_was_expected() -> None:
    code, message, hint, line, column = only_problem(block("return f(1,"))
    assert (code, message, line) == ("E0901", "the call ends too early", 3)
    assert hint is not None and "`)`" in hint


def test_unclosed_and_empty_blocks_are_diagnostics() -> None:
    assert only_problem("text\n```tool\nreturn f(1);")[:2] == ("E0901", "the tool block is not closed")
    assert only_problem(block(""))[:2] == ("E0901", "the tool block holds no call")


def test_one_bad_block_does_not_hide_the_good_ones() -> None:
    parsed = parse_tool_calls(block("a(1)") + "\n" + block("b(,)"))
    assert [c.name for c in parsed.calls] == ["a"]
    assert [d.code for d in parsed.diagnostics] == ["E0901"]


def test_ten_thousand_nested_brackets_are_refused_at_the_one_too_deep() -> None:
    started = time.perf_counter()
    code, message, _, line, column = only_problem(block("return f(" + "[" * 5_000 + "]" * 5_000 + ");"))
    assert (code, message, line) == ("E0902", "the arguments nest deeper than 200 levels", 2)
    assert column == len("return f(") + 200  # the 201st bracket (columns count from 1)
    deep = block("f(" + "[{a:" * 10_000 + "1" + "}]" * 10_000 + ")")
    assert only_problem(deep)[:2] == ("E0902", "the tool block has 60,005 characters; the limit is 20,000")
    assert time.perf_counter() - started < 5


def test_a_ten_megabyte_reply_is_refused_before_it_is_read() -> None:
    started = time.perf_counter()
    parsed = parse_tool_calls(block("f(1)") + "x" * 10_000_000)
    assert [d.code for d in parsed.diagnostics] == ["E0902"]
    assert "the limit is 1,048,576" in parsed.diagnostics[0].message
    assert parsed.calls == ()
    assert time.perf_counter() - started < 1


def test_too_many_calls_and_blocks() -> None:
    calls = parse_tool_calls(block(*["f()"] * (MAX_CALLS + 1)))
    assert [d.code for d in calls.diagnostics] == ["E0902"]
    assert f"at most {MAX_CALLS}" in calls.diagnostics[0].message
    blocks = parse_tool_calls("\n".join([block("f()")] * 10_000))
    assert blocks.blocks == MAX_CALLS + 1
    assert [d.message for d in blocks.diagnostics] == [f"the reply has more than {MAX_CALLS} tool blocks"]


def test_a_long_block_parses_and_a_longer_one_is_refused() -> None:
    items = "1," * ((MAX_BLOCK_CHARS - 20) // 2)
    assert len(only_call(block(f"f([{items}])"))[1][0]) == (MAX_BLOCK_CHARS - 20) // 2
    assert only_problem(block(f"f([{items}{items}])"))[0] == "E0902"


def test_huge_numbers_are_diagnostics_not_int_conversion_errors() -> None:
    assert only_problem(block("f(" + "9" * 5000 + ")"))[:2] == ("E0901", "the number has more than 100 digits")
    assert only_problem(block("f(1e999999)"))[:2] == ("E0901", "the number has more than 100 digits")


@pytest.mark.parametrize("digits", ["٣", "１２", "1٣"])
def test_numbers_are_ascii_digits_only(digits: str) -> None:
    """As in the compute language (docs/decisions.md): `٣` is not a look-alike of 3 here either."""
    parsed = parse_tool_calls(f"```tool\nreturn f({digits});\n```")
    assert parsed.calls == ()
    assert [(d.code, d.hint) for d in parsed.diagnostics] == [
        ("E0901", "numbers are written with the ASCII digits 0-9 only")
    ]
