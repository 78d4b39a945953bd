"""The hand-written expression parser: what it takes, what it leaves to Lark, and the
pieces it shares with the grammar (tests/property/test_expression_parser.py compares its
trees with Lark's on generated expressions)."""

import pytest

from toolkiln.ast import compute as n
from toolkiln.ast.spans import LineIndex
from toolkiln.syntax.builder import parse_expression_with_lark
from toolkiln.syntax.expression_parser import KEYWORDS, try_parse_expression
from toolkiln.syntax.expressions import ParseContext, parse_expression
from toolkiln.syntax.grammar import compute_parser


def fast(text: str) -> n.Expr | None:
    return try_parse_expression(text, ParseContext(LineIndex(text), fallback=parse_expression_with_lark).span)


def test_keywords_are_the_grammars():
    words = {
        t.pattern.value
        for t in compute_parser().terminals
        if t.pattern.type == "str" and t.pattern.value.isidentifier()
    }
    assert words == KEYWORDS


def test_spans_cover_parentheses_of_operands_but_not_their_own():
    expr = fast("(a + b) * c")
    assert isinstance(expr, n.Binary) and (expr.span.start, expr.span.end) == (0, 11)
    assert (expr.left.span.start, expr.left.span.end) == (1, 6)


def test_a_negated_number_is_a_literal():
    expr = fast("-(3)")
    assert isinstance(expr, n.NumberLit) and str(expr.value) == "-3"
    assert (expr.span.start, expr.span.end) == (0, 4)


@pytest.mark.parametrize(
    "text",
    [
        "",  # nothing to parse
        "a < b < c",  # comparisons do not chain
        "x # note",  # a comment
        "if + 1",  # a keyword where a name belongs
        "x.default",  # a keyword after `.`: the contextual lexer decides
        '"\\q"',  # an invalid escape
        "1" * 101,  # a literal over the digit limit
        "a && b",  # a foreign operator
        "(" * 50 + "1" + ")" * 50,  # nesting deeper than this parser goes
        "1" + "*(1+1" * 40 + ")" * 40,  # a tree taller than this parser builds
    ],
)
def test_it_leaves_to_lark_what_is_not_plainly_valid(text):
    assert fast(text) is None


def test_lark_still_reports_what_it_declines():
    ctx = ParseContext(LineIndex("a < b < c"), 0, "steps[0].expression", fallback=parse_expression_with_lark)
    assert parse_expression("a < b < c", ctx) is None
    [diagnostic] = ctx.diagnostics
    assert diagnostic.code == "E0101" and "chain" in diagnostic.hint


def test_a_flat_chain_is_not_deep_for_either_parser():
    """A flat 1+1+...+1 is one level of nesting however long (issue 15): both parsers take it."""
    text = "+".join(["1"] * 300)
    ctx = ParseContext(LineIndex(text), fallback=parse_expression_with_lark)
    fast_tree, lark_tree = fast(text), parse_expression_with_lark(text, ctx)
    assert isinstance(fast_tree, n.Binary) and isinstance(lark_tree, n.Binary)
    assert (fast_tree.span, fast_tree.right) == (lark_tree.span, lark_tree.right)


def test_what_lark_refuses_as_too_deep_is_declined_first():
    """Lark's depth guard refuses 1*(1+1*(1+... nested 300 deep; this parser must not take it."""
    text = "1" + "*(1+1" * 300 + ")" * 300
    assert fast(text) is None
    ctx = ParseContext(LineIndex(text), fallback=parse_expression_with_lark)
    assert parse_expression(text, ctx) is None and ctx.diagnostics[0].code == "E0402"
