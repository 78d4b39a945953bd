"""The hand-written expression parser agrees with the Lark grammar wherever it accepts.

On generated expressions (well formed ones with every construct, and token soup that is
mostly broken) the fast parser either declines, or builds exactly the nodes, values and spans
that Lark's parse through AstBuilder builds, and Lark reports no diagnostic for that text.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from toolkiln.ast.spans import LineIndex
from toolkiln.syntax.builder import parse_expression_with_lark
from toolkiln.syntax.expression_parser import try_parse_expression
from toolkiln.syntax.expressions import ParseContext

NAMES = [
    "x",
    "y",
    "total",
    "f",
    "round",
    "_a1",
    "in",
    "not",
    "if",
    "else",
    "for",
    "and",
    "or",
    "true",
    "false",
    "null",
    "table",
    "default",
    "format",
    "call",
    "return",
    "tool",
]
NUMBERS = ["0", "1", "2.50", "007", "1e3", "2.5E-2", "١٢", "1" * 101, "0.9"]
STRINGS = ['"a"', "'b'", '""', '"\\n"', '"\\q"', '"\\u0041"', "'it\\'s'", '"#"', '"{{x}}"']
OPERATORS = [
    "+",
    "-",
    "*",
    "/",
    "%",
    "**",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "(",
    ")",
    "[",
    "]",
    ",",
    ".",
    "=",
    "!",
    "^",
    "&&",
    "#",
    "?",
    ";",
    "{",
    "}",
    ":",
    '{"k":',
    "not in",
]
SPACES = st.sampled_from(["", " ", "  ", "\t", "\f", "\n", "\r\n"])


@st.composite
def token_soup(draw) -> str:
    atoms = st.sampled_from(NAMES + NUMBERS + STRINGS + OPERATORS)
    tokens = draw(st.lists(atoms, min_size=0, max_size=12))
    return "".join(draw(SPACES) + token for token in tokens) + draw(SPACES)


def _wrap(draw, text: str) -> str:
    return f"({text})" if draw(st.integers(0, 4)) == 0 else text


@st.composite
def expressions(draw, depth: int = 0) -> str:
    """Well-formed expressions of every construct (precedence is kept by parentheses only
    where the grammar needs them, so both the flat and the nested shapes appear)."""
    leaves = st.sampled_from(
        ["x", "y", "total", "1", "2.50", "0.9", "1e2", '"a"', "'b'", "true", "false", "null", "[]", "f()"]
    )
    if depth > 3 or draw(st.integers(0, 3)) == 0:
        return _wrap(draw, draw(leaves))
    sub = expressions(depth + 1)
    kind = draw(
        st.sampled_from(
            [
                "binary",
                "unary",
                "not",
                "cond",
                "call",
                "list",
                "field",
                "index",
                "comprehension",
                "generator",
                "compare",
                "power",
                "record",
            ]
        )
    )
    a, b, c = draw(sub), draw(sub), draw(sub)
    space = draw(SPACES.filter(lambda s: "\n" not in s and "\r" not in s))
    match kind:
        case "binary":
            op = draw(st.sampled_from(["+", "-", "*", "/", "%", "and", "or"]))
            text = f"{a}{space}{op} {b}"
        case "compare":
            op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in"]))
            text = f"{a} {op}{space} {b}"
        case "power":
            text = f"{a}**{b}"
        case "unary":
            text = draw(st.sampled_from(["-", "+", "- ", "--"])) + a
        case "not":
            text = f"not {a}"
        case "cond":
            text = f"{a} if {b} else {c}"
        case "call":
            text = f"round({a}, {b}{draw(st.sampled_from(['', ',', ' ,']))})"
        case "list":
            text = f"[{a},{space}{b}{draw(st.sampled_from(['', ',']))}]"
        case "field":
            text = f"{a}.{draw(st.sampled_from(['name', 'in', 'table']))}"
        case "index":
            text = f"{a}[{b}]"
        case "comprehension":
            condition = draw(st.sampled_from(["", f" if {c}"]))
            text = f"[{a} for v in {b}{condition}]"
        case "record":
            keys = draw(st.lists(st.sampled_from(['"net"', "'vat'", '""', '"a b"', '"net"']), max_size=3))
            body = f",{space}".join(f"{key}:{space}{value}" for key, value in zip(keys, (a, b, c)))
            text = "{" + body + draw(st.sampled_from(["", ","] if keys else [""])) + "}"
        case "generator":
            text = f"sum({a} for v in {b}{draw(st.sampled_from(['', f' if {c}']))})"
    return _wrap(draw, text)


def assert_agrees(text: str, base: int = 0) -> None:
    source = " " * base + text
    flat = text.replace("\r", " ").replace("\n", " ")
    fast = try_parse_expression(
        flat, ParseContext(LineIndex(source), base, "steps[0].expression", fallback=parse_expression_with_lark).span
    )
    if fast is None:
        return
    ctx = ParseContext(LineIndex(source), base, "steps[0].expression", fallback=parse_expression_with_lark)
    slow = parse_expression_with_lark(flat, ctx)
    assert ctx.diagnostics == [], (text, ctx.diagnostics)
    # repr, not ==: Decimal('2.50') == Decimal('2.5'), but the literal's digits must agree too
    assert repr(fast) == repr(slow), text


@pytest.mark.slow
@settings(max_examples=examples(400), deadline=None)
@given(expressions(), st.integers(0, 3))
@example("weight_kg * 2.50 + 5.00", 0)
@example("-(3) ** 2", 0)
@example("(a) + ((b))", 2)
@example("x.in", 0)
@example("sum(v for v in xs if v > 1)", 0)
@example("[v * 2 for v in xs]", 0)
@example("a not in b", 0)
@example("- -3", 0)
@example('{"net": a, "vat": {"x": [1]}}.vat', 0)
@example('{"net": 1, "net": 2}', 0)
def test_well_formed_expressions_agree(text: str, base: int) -> None:
    assert_agrees(text, base)


@settings(max_examples=examples(600), deadline=None)
@given(token_soup())
@example("1 < 2 < 3")
@example("x # note")
@example("1" + "+1" * 300)
@example("(" * 300 + "1" + ")" * 300)
@example("-" * 300 + "1")
@example("1..2")
@example("x\u00a0+ 1")
def test_token_soup_agrees(text: str) -> None:
    assert_agrees(text)


def test_it_accepts_the_common_shapes() -> None:
    """The fast path is taken for ordinary expressions (else it would only be slower)."""
    for text in [
        "weight_kg * 2.50 + 5.00",
        "a if b > 1 else -c",
        "round(sum([x.y[0] for x in items]), 2)",
        "not (a and b) or c not in d",
        '{"net": net, "vat": round(net * 0.19, 2),}',
    ]:
        ctx = ParseContext(LineIndex(text), fallback=parse_expression_with_lark)
        assert try_parse_expression(text, ctx.span) is not None, text
