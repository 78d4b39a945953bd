"""Arithmetic against a reference evaluator over Python's decimal module.

toolkiln's numbers are decimals with 28 significant digits, rounded half-even after every
operation; literals and arguments are exact; `%` is Decimal's remainder (truncating, like
JavaScript); dividing by zero is E0501; a result past the 100-digit limit is E0506; and an
invalid operation (0 ** 0, a remainder whose quotient needs more than 28 digits) is E0511.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import (
    ROUND_HALF_EVEN,
    ROUND_HALF_UP,
    Context,
    Decimal,
    DivisionByZero,
    InvalidOperation,
    localcontext,
)

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import toolkiln

REFERENCE = Context(prec=28, rounding=ROUND_HALF_EVEN)
MAX_INTEGER_DIGITS = 100  # Limits.max_number_digits
PARAMS = ("a", "b", "c")


# --- expressions ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Lit:
    text: str


@dataclass(frozen=True)
class Par:
    name: str


@dataclass(frozen=True)
class Neg:
    operand: object
    plus: bool = False  # unary `+` instead of `-`


@dataclass(frozen=True)
class Bin:
    op: str
    left: object
    right: object


# Binding strengths as in grammar/compute.lark: sum < term < factor (unary) < power < atom.
SUM, TERM, FACTOR, POWER, ATOM = range(5)
LEVEL = {"+": SUM, "-": SUM, "*": TERM, "/": TERM, "%": TERM}


def show(e, full: bool) -> str:
    """The expression as text: minimal parentheses, or parentheses around every operation."""
    text, _ = _show(e, full)
    return text


def _wrap(e, minimum: int, full: bool) -> str:
    text, level = _show(e, full)
    return f"({text})" if level < minimum or (full and level < ATOM) else text


def _show(e, full: bool) -> tuple[str, int]:
    if isinstance(e, Lit):
        return e.text, ATOM
    if isinstance(e, Par):
        return e.name, ATOM
    if isinstance(e, Neg):
        return ("+" if e.plus else "-") + _wrap(e.operand, FACTOR, full), FACTOR
    if e.op == "**":
        return f"{_wrap(e.left, ATOM, full)} ** {_wrap(e.right, FACTOR, full)}", POWER
    level = LEVEL[e.op]
    return f"{_wrap(e.left, level, full)} {e.op} {_wrap(e.right, level + 1, full)}", level


digits = st.text(alphabet="0123456789", min_size=1, max_size=8)
literals = st.one_of(
    st.integers(0, 10**6).map(str),
    st.builds(lambda a, b: f"{a}.{b}", digits, digits),
    st.builds(
        lambda a, s, x: f"{a}e{s}{x}",
        st.text(alphabet="0123456789", min_size=1, max_size=3),
        st.sampled_from(["", "-", "+"]),
        st.integers(0, 12),
    ),
    st.text(alphabet="0123456789", min_size=20, max_size=34),  # more digits than the precision
).map(Lit)
leaves = literals | st.sampled_from(PARAMS).map(Par)


def _extend(children):
    return st.one_of(
        st.builds(Bin, st.sampled_from(["+", "-", "*", "/", "%"]), children, children),
        st.builds(Bin, st.just("**"), children, st.integers(0, 5).map(lambda k: Lit(str(k)))),
        st.builds(Neg, children, st.booleans()),
    )


expressions = st.recursive(leaves, _extend, max_leaves=8)
arguments = st.builds(
    lambda sign, digits, exponent: Decimal(f"{sign}{digits}E{exponent}"),
    st.sampled_from(["", "-"]),
    st.integers(0, 10**20),
    st.integers(-12, 8),
)


# --- the reference --------------------------------------------------------------------------


class Failed(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class OutOfRange(Exception):
    """A result so small that it falls below the documented range: not compared."""


def _checked(value: Decimal) -> Decimal:
    if value and value.adjusted() >= MAX_INTEGER_DIGITS:
        raise Failed("E0506")
    if value and value.adjusted() < -MAX_INTEGER_DIGITS:
        raise OutOfRange
    return value


def evaluate(e, env: dict[str, Decimal]) -> Decimal:
    """Post-order, left operand first, every operation rounded in REFERENCE."""
    ctx = REFERENCE
    if isinstance(e, Lit):
        return Decimal(e.text)
    if isinstance(e, Par):
        return env[e.name]
    if isinstance(e, Neg) and not e.plus and isinstance(e.operand, Lit):
        # `-123...` is a negative literal, exact like its positive (and like -123... in JSON)
        return _checked(Decimal(e.operand.text).copy_negate())
    if isinstance(e, Neg):
        value = evaluate(e.operand, env)
        return _checked(ctx.plus(value) if e.plus else ctx.minus(value))
    left, right = evaluate(e.left, env), evaluate(e.right, env)
    try:
        match e.op:
            case "+":
                return _checked(ctx.add(left, right))
            case "-":
                return _checked(ctx.subtract(left, right))
            case "*":
                return _checked(ctx.multiply(left, right))
            case "/" | "%":
                if not right:
                    raise Failed("E0501")
                return _checked(ctx.divide(left, right) if e.op == "/" else ctx.remainder(left, right))
            case "**":
                return _checked(ctx.power(left, right))
    except (InvalidOperation, DivisionByZero):
        raise Failed("E0511") from None
    raise AssertionError(e.op)


def used_params(e) -> set[str]:
    if isinstance(e, Par):
        return {e.name}
    if isinstance(e, Lit):
        return set()
    if isinstance(e, Neg):
        return used_params(e.operand)
    return used_params(e.left) | used_params(e.right)


def toolkiln_outcome(source: str, args: dict[str, Decimal]) -> tuple:
    try:
        return ("value", toolkiln.compile(source).run(args))
    except toolkiln.RunError as error:
        return ("error", error.code)


def reference_outcome(e, args: dict[str, Decimal]) -> tuple:
    try:
        return ("value", evaluate(e, args))
    except Failed as failure:
        return ("error", failure.code)


# --- 6. arithmetic agrees with the reference ------------------------------------------------


@settings(max_examples=examples(250), deadline=None)
@given(expressions, st.fixed_dictionaries(dict.fromkeys(PARAMS, arguments)), st.booleans())
@example(Bin("/", Lit("1"), Lit("0")), {}, False)
@example(Bin("%", Lit("-7"), Lit("2")), {}, False)
@example(Bin("%", Neg(Lit("7")), Lit("2")), {}, False)
@example(Bin("**", Neg(Lit("2")), Lit("3")), {}, False)
@example(Neg(Bin("**", Lit("2"), Lit("2"))), {}, True)
@example(Bin("/", Lit("1"), Lit("3")), {}, False)
@example(Bin("**", Lit("0"), Lit("0")), {}, False)
@example(Neg(Par("a"), plus=True), {"a": Decimal("1.234567890123456789012345678901")}, False)
def test_arithmetic_agrees_with_decimal_reference(expr, all_args, full_parens):
    args = {name: all_args[name] for name in used_params(expr)}
    try:
        expected = reference_outcome(expr, args)
    except OutOfRange:
        assume(False)
    source = "return " + show(expr, full_parens)
    actual = toolkiln_outcome(source, args)
    assert actual == expected, source
    if actual[0] == "value":
        assert isinstance(actual[1], Decimal)


@settings(max_examples=examples(100), deadline=None)
@given(expressions, st.fixed_dictionaries(dict.fromkeys(PARAMS, arguments)))
def test_parenthesised_and_minimal_forms_agree(expr, all_args):
    args = {name: all_args[name] for name in used_params(expr)}
    minimal = toolkiln_outcome("return " + show(expr, False), args)
    assert toolkiln_outcome("return " + show(expr, True), args) == minimal
    assert toolkiln.to_text("return " + show(expr, True)) == toolkiln.to_text("return " + show(expr, False))


@settings(max_examples=examples(100), deadline=None)
@given(arguments, arguments.filter(bool))
@example(Decimal("-7"), Decimal("2"))
@example(Decimal("7"), Decimal("-2"))
@example(Decimal("1E+30"), Decimal("7"))  # the quotient needs more than 28 digits
def test_remainder_truncates_toward_zero(a, b):
    actual = toolkiln_outcome("return a % b", {"a": a, "b": b})
    try:
        quotient = REFERENCE.divide_int(a, b)  # truncated toward zero
    except InvalidOperation:
        assert actual == ("error", "E0511")
        return
    with localcontext() as exact:
        exact.prec = 200
        remainder = a - quotient * b
    assert actual == ("value", remainder)
    assert remainder == 0 or (remainder < 0) == (a < 0)  # the sign of the dividend
    assert abs(remainder) < abs(b)


@settings(max_examples=examples(60), deadline=None)
@given(arguments, st.sampled_from(["a / 0", "a % 0", "a / (b - b)", "a % (b * 0)"]))
def test_division_by_zero_is_E0501(a, source):
    try:
        toolkiln.compile("return " + source).run({"a": a, "b": a} if "b" in source else {"a": a})
    except toolkiln.RunError as error:
        assert error.code == "E0501"
    else:
        raise AssertionError(f"{source} with a={a} did not fail")


# --- 7. round() is half away from zero ------------------------------------------------------

roundable = st.one_of(
    st.decimals(min_value=-(10**12), max_value=10**12, allow_nan=False, allow_infinity=False),
    st.builds(
        lambda whole, half: Decimal(whole) + Decimal(half),
        st.integers(-(10**6), 10**6),
        st.sampled_from(["0.5", "0.05", "0.005", "0.0005", "0.00005", "-0.5", "-0.05", "0.125"]),
    ),
)


def expected_round(x: Decimal, places: int) -> tuple:
    try:
        return ("value", x.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP, context=REFERENCE))
    except InvalidOperation:
        return ("error", "E0511")


@settings(max_examples=examples(200), deadline=None)
@given(roundable, st.integers(0, 4))
@example(Decimal("2.5"), 0)
@example(Decimal("-2.5"), 0)
@example(Decimal("2.675"), 2)
@example(Decimal("-0.125"), 2)
def test_round_is_half_away_from_zero(x, places):
    expected = expected_round(x, places)
    assert toolkiln_outcome(f"return round(x, {places})", {"x": x}) == expected
    # the same number written as a literal in the source (exact while it fits the precision)
    if len(x.as_tuple().digits) <= 28:
        assert toolkiln_outcome(f"return round({x}, {places})", {}) == expected


# --- 8. a float argument means its shortest repr ----------------------------------------------


@settings(max_examples=examples(200), deadline=None)
@given(st.floats(min_value=-1e15, max_value=1e15, allow_nan=False, allow_infinity=False))
@example(0.1)
@example(1.1)
@example(-0.0)
@example(5e-324)  # regression: tiny floats come back as 0
@example(1e-200)
def test_float_arguments_mean_their_shortest_repr(f):
    tool = toolkiln.compile("return x + 0")
    assert tool.run({"x": f}) == Decimal(repr(f))


# --- format specs in templates agree with a reference ------------------------------------------

SPECS = (".2f", ".0f", ".1f", ".3f", ",.2f", ",.0f", "f", ",f", "%", ".1%", ",.2%", ",")
WIDE = Context(prec=400, Emax=10**6, Emin=-(10**6))


def reference_format(x: Decimal, spec: str) -> str:
    """`[,][.N](f|%)`: N places rounded half away from zero (plain notation, no negative zero)
    or, without N, the number as written without trailing zeros; `%` multiplies by 100."""
    grouping = spec.startswith(",")
    rest = spec[1:] if grouping else spec
    percent = rest.endswith("%")
    places = int(rest[1:-1]) if rest.startswith(".") else None
    value = x.scaleb(2, context=WIDE) if percent else x
    if places is not None:
        value = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP, context=WIDE)
        body = format(value.copy_abs(), "f")
    else:
        body = format(value.copy_abs(), "f")
        if "." in body:
            body = body.rstrip("0").rstrip(".")
    if grouping:
        whole, dot, fraction = body.partition(".")
        body = f"{int(whole):,}{dot}{fraction}"
    sign = "-" if value < 0 else ""
    return sign + body + ("%" if percent else "")


formattable = st.one_of(
    arguments,
    st.builds(
        lambda whole, tie: Decimal(whole) + Decimal(tie),
        st.integers(-(10**7), 10**7),
        st.sampled_from(["0.5", "-0.5", "0.005", "0.0049", "0.125", "-0.0001"]),
    ),
)


@settings(max_examples=examples(200), deadline=None)
@given(formattable, st.sampled_from(SPECS))
@example(Decimal("-0.001"), ".2f")
@example(Decimal("-0.5"), ",")
@example(Decimal("2.675"), ".2f")
@example(Decimal("-1234567.125"), ",.2f")
@example(Decimal("1E+3"), ",")
def test_format_specs_agree_with_reference(x, spec):
    tool = toolkiln.compile('s = format "{{x:' + spec + '}}"\nreturn s')
    assert tool.run({"x": x}) == reference_format(x, spec)
