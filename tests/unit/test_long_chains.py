"""Long flat chains (`a + b + c + ...`, `p and q and ...`): nesting is measured as written, so a
flat chain of 10,000 terms compiles, and every pass over it loops instead of recursing."""

import json
import time
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkiln
from toolkiln.ast.spans import LineIndex
from toolkiln.backends.n8n.expressions import to_js
from toolkiln.errors import CompileError, RunError
from toolkiln.optimize import optimize
from toolkiln.syntax.builder import parse_expression_with_lark
from toolkiln.syntax.expressions import ParseContext, parse_expression
from toolkiln.syntax.loader import parse_source

TERMS = 10_000


def flat_sum(terms: int) -> str:
    return " + ".join(f"x{i % 7}" if i % 3 else str(i) for i in range(terms))


def expected_sum(terms: int) -> Decimal:
    return Decimal(sum(i % 7 + 1 if i % 3 else i for i in range(terms)))


ARGS = {f"x{i}": i + 1 for i in range(7)}


def expression(text: str):
    return parse_expression(text, ParseContext(LineIndex(text), fallback=parse_expression_with_lark))


def test_a_flat_sum_of_199_terms_is_not_too_deep():
    """The sum the issue was refused as "nesting deeper than 200 levels"."""
    assert toolkiln.compile(f"return {flat_sum(199)}").run(ARGS) == expected_sum(199)


@pytest.mark.parametrize("as_json", [False, True])
def test_a_flat_sum_of_10000_terms_compiles_and_runs(as_json):
    source = f"t = {flat_sum(TERMS)}\nreturn t\n"
    if as_json:
        source = json.dumps(
            {"steps": [{"op": "math", "expression": flat_sum(TERMS), "output": "t"}, {"op": "return", "value": "t"}]}
        )
    assert toolkiln.compile(source).run(ARGS) == expected_sum(TERMS)


@pytest.mark.parametrize("op", ["and", "or"])
def test_long_and_or_chains_run(op):
    values = {f"b{i}": i != 3 for i in range(7)}  # b3 alone is false
    chain = f" {op} ".join(f"b{i % 7}" for i in range(TERMS))
    assert toolkiln.compile(f"return {chain}").run(values) is (op == "or")


def test_a_run_error_deep_in_a_long_chain_is_reported_at_its_term():
    """The interpreter runs a long chain in segments: an error past the first keeps its code and
    its location."""
    terms = ["1"] * 300
    terms[200] = "o.price"  # a string at run time: `+` of a number and a string
    tool = toolkiln.compile("return " + " + ".join(terms))
    with pytest.raises(RunError) as error:
        tool.run({"o": {"price": "12"}})
    assert error.value.code == "E0509"
    # The binary that adds the string: it ends with the string's term.
    assert error.value.span is not None and error.value.span.end == len("return " + " + ".join(terms[:201]))


def test_a_long_mixed_chain_keeps_its_precedence():
    """`-`, `*` and `/` at segment boundaries: the value is that of the grouping as written."""
    chain = " - ".join(f"x{i % 7} * 2 / 4" for i in range(1000))
    assert toolkiln.compile(f"return {chain}").run(ARGS) == eval_left_to_right(1000)


def eval_left_to_right(terms: int) -> Decimal:
    total = Decimal(0 % 7 + 1) * 2 / 4
    for i in range(1, terms):
        total -= Decimal(i % 7 + 1) * 2 / 4
    return total


def test_nesting_in_brackets_is_still_refused_quickly():
    source = "return " + "(x + " * 5000 + "1" + ")" * 5000
    start = time.perf_counter()
    with pytest.raises(CompileError) as error:
        toolkiln.compile(source)
    assert [d.code for d in error.value.diagnostics] == ["E0402"]
    assert time.perf_counter() - start < 5


def test_a_chain_over_the_token_limit_is_still_refused():
    with pytest.raises(CompileError) as error:
        toolkiln.compile("return " + " + ".join("x" for _ in range(25_000)))
    assert [d.code for d in error.value.diagnostics] == ["E0404"]


def test_a_long_chain_prints_flat_and_reads_back():
    source = f"t = {flat_sum(TERMS)}\nreturn t\n"
    assert toolkiln.to_text(source) == source
    assert toolkiln.to_text(toolkiln.to_json(source)) == source


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("(a + b) * c - d", "(a + b) * c - d"),
        ("a - (b - c) + d", "a - (b - c) + d"),
        ("(a or b) and c and d", "(a or b) and c and d"),
        ("(a * b + c) / d", "(a * b + c) / d"),
    ],
)
def test_chains_print_with_the_parentheses_they_need(text, printed):
    assert toolkiln.to_text(f"return {text}") == f"return {printed}\n"


def test_a_constant_chain_of_10000_terms_folds():
    program = parse_source("return " + " + ".join(str(i) for i in range(TERMS))).program
    folded = optimize(program)
    assert folded.steps[0].value.value == sum(range(TERMS))


@pytest.mark.parametrize(
    ("text", "js"),
    [
        ("a + b - c", "(a + b - c)"),
        ("a + b * c - d", "(a + (b * c) - d)"),
        ("(a + b) * c * d", "((a + b) * c * d)"),
        ("a - (b - c)", "(a - (b - c))"),
        ("a and b and c or d", "((a && b && c) || d)"),
        ("(a == b) == c", "((a === b) === c)"),
    ],
)
def test_n8n_chains_share_one_pair_of_parentheses_per_level(text, js):
    assert to_js(expression(text), lambda name: name.name) == js


def test_n8n_translates_a_chain_of_10000_terms():
    js = to_js(expression(flat_sum(TERMS)), lambda name: name.name)
    assert js == f"({flat_sum(TERMS)})"


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["+", "-", "*"]), st.integers(min_value=-50, max_value=50)),
        min_size=1,
        max_size=300,
    ),
    st.integers(min_value=-50, max_value=50),
)
def test_long_chains_agree_with_python_and_print_back(operations, first):
    """Across the interpreter's segment boundaries (every 64 operators), the value is Python's
    for the same expression, and the printed text reads back to the same value."""
    text = str(first) + "".join(f" {op} {value}" for op, value in operations)
    expected = Decimal(first)
    pending = [expected]  # a sum of products, as precedence groups them
    signs = [1]
    for op, value in operations:
        if op == "*":
            pending[-1] *= value
        else:
            pending.append(Decimal(value))
            signs.append(1 if op == "+" else -1)
    expected = sum(sign * term for sign, term in zip(signs, pending, strict=True))
    source = f"return x + {text}\n"  # a parameter first: nothing folds at compile time
    assert toolkiln.compile(source).run({"x": 0}) == expected
    assert toolkiln.compile(toolkiln.to_text(source)).run({"x": 0}) == expected


@pytest.mark.parametrize("field", ["expression", "template"])
def test_a_json_expression_or_template_over_the_token_limit_is_refused_quickly(field):
    """The text DSL counts the tokens of a whole source; the JSON format those of each
    expression and template, so a 1 MiB flat chain is refused before it is parsed."""
    chain = "+".join(["1"] * 300_000)
    step = {"op": "math", "expression": chain, "output": "t"}
    if field == "template":
        step = {"op": "format", "template": "{{" + chain + "}}", "output": "t"}
    start = time.perf_counter()
    with pytest.raises(CompileError) as error:
        toolkiln.compile(json.dumps({"steps": [step, {"op": "return", "value": "t"}]}))
    assert [d.code for d in error.value.diagnostics] == ["E0404"]
    assert time.perf_counter() - start < 5
