"""The fast path of tool.run: float conversion, fused operation chains, the decimal scope,
the inline binding of one parameter, and run_many. Each must give what the plain decimal
semantics give (a reference over Python's decimal module), never just something fast."""

from __future__ import annotations

import inspect
import threading
from decimal import (
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DivisionByZero,
    Inexact,
    InvalidOperation,
    Overflow,
    getcontext,
    localcontext,
)

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import toolkiln
from toolkiln.interpret.decimal_scope import DecimalScope
from toolkiln.semantics.numbers import from_float_fast

# The run's context for the default limits (100 integer digits), as a reference.
REFERENCE = Context(
    prec=28, rounding=ROUND_HALF_EVEN, Emax=99, Emin=-999_999, traps=[InvalidOperation, DivisionByZero, Overflow]
)
SHIPPING = "weight_kg * 2.5 + 5 if weight_kg <= 10 else (weight_kg * 2.5 + 5) * 0.9"


# --- float -> Decimal ------------------------------------------------------------------------

finite_floats = st.floats(allow_nan=False, allow_infinity=False)
# Floats as JSON brings them: decimals of a few places, whole numbers, and tiny and huge ones.
json_like_floats = st.one_of(
    finite_floats,
    st.decimals(min_value=-(10**9), max_value=10**9, places=2, allow_nan=False).map(float),
    # up to 6 places (the scaled fast path takes up to 4) and around its 1e11 bound
    st.builds(lambda n, places: float(Decimal(n).scaleb(-places)), st.integers(-(10**16), 10**16), st.integers(0, 6)),
    st.integers(-(2**60), 2**60).map(float),
)


@settings(max_examples=1000)
@given(json_like_floats)
@example(12.0)
@example(12.5)
@example(-0.0)
@example(2.0**53)
@example(2.0**53 + 2)
@example(1e16)
@example(5e-324)
@example(0.0001)
@example(-99999999999.9999)
@example(0.1 + 0.2)
def test_fast_float_conversion_is_the_shortest_repr(value):
    fast = from_float_fast(value)
    assert fast == Decimal(repr(value))
    if value.is_integer() and abs(value) <= 2**53:
        assert fast.as_tuple().exponent == 0 and fast == int(value)  # 12.0 -> 12, as an int
    else:
        assert fast.as_tuple() == Decimal(repr(value)).as_tuple()  # same digits and exponent


# --- the whole run against the reference ------------------------------------------------------


def reference_shipping(weight: Decimal) -> Decimal:
    ctx = REFERENCE
    base = ctx.add(ctx.multiply(weight, Decimal("2.5")), Decimal(5))
    return base if weight <= 10 else ctx.multiply(base, Decimal("0.9"))


def shipping_tool(optimize: bool) -> toolkiln.Tool:
    return toolkiln.compile(f"return {SHIPPING}\n", optimize=optimize)


@pytest.fixture(scope="module")
def shipping_tools() -> list[toolkiln.Tool]:
    return [shipping_tool(True), shipping_tool(False)]


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        json_like_floats.filter(lambda x: abs(x) < 1e90),
        st.integers(-(10**50), 10**50),
        st.decimals(allow_nan=False, allow_infinity=False, min_value=-(10**90), max_value=10**90),
    )
)
def test_run_equals_the_reference_for_float_int_and_decimal_arguments(shipping_tools, value):
    exact = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    expected = reference_shipping(exact)
    for tool in shipping_tools:
        got = tool.run({"weight_kg": value})
        assert got == expected and type(got) is Decimal
        # the same for a batch, and for the argument given as the Decimal of its repr
        assert tool.run_many([{"weight_kg": value}]) == [expected]
        assert tool.run({"weight_kg": exact}) == expected


chain_ops = st.sampled_from(["+", "-", "*", "/"])
constants = st.one_of(
    st.sampled_from(["2.5", "0.9", "3", "7", "0.001", "1e60", "1e-30"]),
    st.decimals(min_value=1, max_value=10**6, places=3).map(str),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(chain_ops, constants), min_size=1, max_size=5),
    st.booleans(),
    st.decimals(min_value=-(10**40), max_value=10**40, allow_nan=False, places=4),
)
def test_operation_chains_match_the_reference(steps, constant_first, value):
    """`((x op c1) op c2) ...`: fused into one closure up to three operations long; values,
    exponents and error codes are those of one operation at a time in the run's context."""
    text = "x"
    for op, constant in steps:
        text = f"({text} {op} {constant})"
    if constant_first and steps[0][0] in "+*":  # `c * x` is fused as `x * c`
        op, constant = steps[0]
        text = text.replace(f"(x {op} {constant})", f"({constant} {op} x)", 1)
    functions = {"+": REFERENCE.add, "-": REFERENCE.subtract, "*": REFERENCE.multiply, "/": REFERENCE.divide}
    try:
        expected = value
        for op, constant in steps:
            expected = functions[op](expected, Decimal(constant))
        outcome = ("value", expected)
    except Overflow:
        outcome = ("error", "E0506")
    for optimize in (True, False):
        tool = toolkiln.compile(
            f'tool chain(x: number)\ndescription "chain"\n{{\n  return {text}\n}}\n', optimize=optimize
        )
        try:
            got = ("value", tool.run({"x": value}))
        except toolkiln.RunError as error:
            got = ("error", error.code)
        assert got == outcome, text
        if got[0] == "value":
            assert got[1].as_tuple() == expected.as_tuple(), text


@pytest.mark.parametrize(
    ("argument", "failing"),
    [
        (Decimal(1), "x * 1e60 * 1e60"),  # the second operation of a fused chain overflows
        (Decimal(100), "x * 1e99"),  # the first one does
        (Decimal("1e39"), "x * 1e30 * 1e30 * 20"),  # the third one does
    ],
)
def test_a_fused_chain_reports_the_operation_that_failed(argument, failing):
    source = "return x * 1e99 * 2 + 1\n" if failing == "x * 1e99" else f"return {failing} + 1\n"
    with pytest.raises(toolkiln.RunError) as caught:
        toolkiln.compile(source, optimize=False).run({"x": argument})
    assert caught.value.code == "E0506"
    span = caught.value.span
    assert source[span.start : span.end] == failing


# --- the decimal scope ---------------------------------------------------------------------------


def test_runs_ignore_and_keep_the_callers_decimal_context(shipping_tools):
    with localcontext() as caller:
        caller.prec = 3
        caller.traps[Inexact] = True
        before = (caller.prec, dict(caller.flags), dict(caller.traps))
        for tool in shipping_tools:
            assert tool.run({"weight_kg": 12.34}) == Decimal("32.265")  # 28 digits, not 3
            assert tool.run_many([{"weight_kg": 12.34}]) == [Decimal("32.265")]
            assert getcontext() is caller
        assert (caller.prec, dict(caller.flags), dict(caller.traps)) == before


def test_a_scope_in_use_falls_back_to_a_fresh_context():
    scope = DecimalScope(REFERENCE)
    # entering the prepared context again from inside it is refused; the fallback runs anyway
    inner = scope.run(lambda: scope.run(getcontext))
    assert inner is REFERENCE and getcontext() is not REFERENCE


def test_an_error_from_inside_the_scope_is_not_taken_for_a_refusal():
    scope = DecimalScope(REFERENCE)
    calls = []

    def fails() -> None:
        calls.append(1)
        raise RecursionError("deep")

    with pytest.raises(RecursionError):
        scope.run(fails)
    assert calls == [1]  # raised once, not run again


def test_concurrent_runs_agree():
    tool = shipping_tool(True)
    weights = [Decimal(i) / 4 for i in range(400)]
    expected = [reference_shipping(w) for w in weights]
    results: dict[int, list] = {}

    def work(index: int) -> None:
        results[index] = [tool.run({"weight_kg": w}) for w in weights]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(results[i] == expected for i in range(4))


# --- binding and batches --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"weight_kg": "12"}, "E0508"),
        ({"weight": 12}, "E0508"),
        ({}, "E0508"),
        ({"weight_kg": 1, "extra": 2}, "E0508"),
        ([("weight_kg", 1)], "E0508"),
        ({"weight_kg": float("nan")}, "E0508"),
        ({"weight_kg": 1e200}, "E0508"),
    ],
)
def test_the_inline_binding_refuses_what_the_general_one_refuses(shipping_tools, args, code):
    for tool in shipping_tools:
        with pytest.raises(toolkiln.RunError) as caught:
            tool.run(args)
        assert caught.value.code == code


def test_run_many_reports_each_failing_row_and_goes_on(shipping_tools):
    rows = [{"weight_kg": 2}, {"weight_kg": "x"}, None, {"weight_kg": 12.5}, {"weight_kg": 1e200}]
    for tool in shipping_tools:
        results = tool.run_many(rows)
        assert results[0] == Decimal("10.0") and results[3] == reference_shipping(Decimal("12.5"))
        assert [r.code for r in (results[1], results[2], results[4])] == ["E0508"] * 3


def test_run_many_reads_a_generator_of_rows_outside_the_run_context():
    seen = []

    def rows():
        for weight in (1, 2):
            seen.append(getcontext().Emax)
            yield {"weight_kg": weight}

    assert shipping_tool(True).run_many(rows()) == [Decimal("7.5"), Decimal("10.0")]
    assert seen == [getcontext().Emax] * 2


# --- membership in a list of literals ---------------------------------------------------------

scalars = st.one_of(
    st.sampled_from(["a", "b", "ab", ""]), st.sampled_from(["1", "1.0", "2.50", "-3"]).map(Decimal), st.booleans()
)


@settings(max_examples=200, deadline=None)
@given(
    scalars,
    st.one_of(
        st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=4),
        st.lists(st.sampled_from(["1", "2.5", "-3.00"]), min_size=1, max_size=4).map(
            lambda texts: [Decimal(t) for t in texts]
        ),
    ),
    st.sampled_from(["in", "not in"]),
)
def test_membership_in_a_literal_list_is_the_list_scan(item, members, op):
    """The set lookup for `x.v in [literals]` answers as operators.member, for an item of any type."""
    from toolkiln.semantics import operators

    literals = ", ".join(f'"{m}"' if isinstance(m, str) else str(m) for m in members)
    tool = toolkiln.compile(f'tool t(x: object)\ndescription "d"\n{{\n  return x.v {op} [{literals}]\n}}\n')
    assert tool.run({"x": {"v": item}}) is operators.member(op, item, list(members))


# --- blocks ------------------------------------------------------------------------------------

NESTED = """tool nested(x: number)
description "an if that returns only deep inside, and ifs that never return"
{
  y = x
  if x > 0 {
    y = y + 1
    if x > 10 {
      if x > 100 {
        return 1000
      }
      y = y * 2
    }
  } else {
    y = y - 1
  }
  if y > 50 {
    y = y + 0.5
  }
  return y
}
"""


@pytest.mark.parametrize(
    ("x", "expected"), [(-5, "-6"), (0, "-1"), (5, "6"), (30, "62.5"), (24, "50"), (25, "52.5"), (101, "1000")]
)
def test_ifs_that_may_return_and_ifs_that_never_do(x, expected):
    for optimize in (True, False):
        assert toolkiln.compile(NESTED, optimize=optimize).run({"x": x}) == Decimal(expected)


# --- object arguments ----------------------------------------------------------------------------

OBJECT_TOOL = 'tool t(x: object)\ndescription "d"\n{\n  return x\n}\n'


def test_an_object_argument_is_converted_into_a_new_dict():
    from types import MappingProxyType

    tool = toolkiln.compile(OBJECT_TOOL)
    given_value = {"a": 1.5, "b": [2, {"c": 0.1}]}
    result = tool.run({"x": given_value})
    assert result == {"a": Decimal("1.5"), "b": [Decimal(2), {"c": Decimal("0.1")}]}
    given_value["a"] = 9
    assert result["a"] == Decimal("1.5")  # not the caller's dict
    assert tool.run({"x": MappingProxyType({"a": 1})}) == {"a": Decimal(1)}


def test_a_float_over_a_small_digit_limit_inside_an_object_is_refused_as_an_argument():
    """Numbers inside objects are held to the digit limit at the boundary, as typed numbers
    are (issue 18: they used to come through and fail, or not, where they were used)."""
    tool = toolkiln.compile(
        'tool t(x: object)\ndescription "d"\n{\n  return x.a + 1\n}\n', limits=toolkiln.Limits(max_number_digits=1)
    )
    assert tool.run({"x": {"a": 1.5}}) == Decimal("2.5")
    with pytest.raises(toolkiln.RunError) as caught:
        tool.run({"x": {"a": 12.5}})
    assert caught.value.code == "E0508"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_a_non_finite_float_inside_an_object_is_refused(bad):
    with pytest.raises(toolkiln.RunError) as caught:
        toolkiln.compile(OBJECT_TOOL).run({"x": {"a": [bad]}})
    assert caught.value.code == "E0508"


# --- operands of run-time type, and `x = x op c` in one closure --------------------------------

run_time_values = st.one_of(
    st.decimals(allow_nan=False, allow_infinity=False, min_value=-(10**99), max_value=10**99),
    st.sampled_from([Decimal("9e99"), Decimal("-9e99"), Decimal(0)]),
    st.text(max_size=3),
    st.booleans(),
    st.none(),
    st.lists(st.integers(0, 3), max_size=2),
)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["+", "-", "*"]), run_time_values, run_time_values)
def test_arithmetic_on_untyped_fields_is_the_operator_definition(op, a, b):
    """`x.a op x.b` where the checker cannot know the types: two numbers take a shortcut,
    which must give what semantics/operators.py gives, value or error code, located at `op`."""
    from toolkiln.semantics.operators import arithmetic
    from toolkiln.semantics.values import to_value

    limits = toolkiln.Limits()
    scope = DecimalScope(limits.context)
    a, b = scope.run(to_value, a), scope.run(to_value, b)
    try:
        expected = ("value", arithmetic(op, a, b, limits))
    except toolkiln.RunError as error:
        expected = ("error", error.code)
    tool = toolkiln.compile(f'tool t(x: object)\ndescription "d"\n{{\n  return x.a {op} x.b\n}}\n')
    try:
        got = ("value", tool.run({"x": {"a": a, "b": b}}))
    except toolkiln.RunError as error:
        got = ("error", error.code)
        assert error.span is not None and error.span.column == 10  # at `x.a op x.b`
    assert got == expected
    if got[0] == "value" and type(got[1]) is Decimal:
        assert got[1].as_tuple() == expected[1].as_tuple()


@pytest.mark.parametrize(("start", "expected"), [(Decimal(5), Decimal(50)), (Decimal("9e99"), "E0506")])
def test_an_assignment_of_one_operation_is_one_closure_and_still_located(start, expected):
    tool = toolkiln.compile(
        'tool t(x: number)\ndescription "d"\n{\n  s = x\n  s = s * 10\n  return s\n}\n', optimize=False
    )
    if isinstance(expected, Decimal):
        assert tool.run({"x": start}) == expected
        return
    with pytest.raises(toolkiln.RunError) as caught:
        tool.run({"x": start})
    assert caught.value.code == expected and (caught.value.span.line, caught.value.span.column) == (5, 7)


@pytest.mark.parametrize("test", ["x > 0", "b", 'c in ["DE"]'])
def test_an_update_inside_an_if_is_done_in_place_and_still_located(test):
    tool = toolkiln.compile(
        'tool t(x: number, b: boolean, c: string)\ndescription "d"\n{\n  s = x\n'
        f"  if {test} {{\n    s = s * 10\n  }} else {{\n    s = s - 1\n  }}\n  return s\n}}\n",
        optimize=False,
    )
    assert tool.run({"x": 5, "b": True, "c": "DE"}) == 50
    assert tool.run({"x": -5, "b": False, "c": "AT"}) == -6
    with pytest.raises(toolkiln.RunError) as caught:
        tool.run({"x": Decimal("9e99"), "b": True, "c": "DE"})
    assert caught.value.code == "E0506" and (caught.value.span.line, caught.value.span.column) == (6, 9)


LEAD_LIKE = (
    'tool t(size: integer, budget: number, country: string, vip: boolean = false)\ndescription "d"\n'
    '{\n  return size + budget + (1 if vip else 0) + (1 if country == "DE" else 0)\n}\n'
)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"size": 3, "budget": 0.5, "country": "DE", "vip": True}, Decimal("5.5")),
        ({"size": 3, "budget": 0.5, "country": "DE", "vip": None}, Decimal("4.5")),  # null: the default
        ({"size": 3, "budget": 0.5, "country": "DE"}, Decimal("4.5")),
        ({"size": 3, "budget": 0.5, "country": "DE", "vp": True}, "E0508"),  # as many keys, one misspelt
        ({"size": 3, "budget": 0.5, "country": "DE", "vip": True, "x": 1}, "E0508"),
        ({"size": 3.5, "budget": 0.5, "country": "DE", "vip": True}, "E0508"),
        ({"size": True, "budget": 0.5, "country": "DE", "vip": True}, "E0508"),
        ({"size": 3, "budget": "1", "country": "DE", "vip": True}, "E0508"),
        ({"size": 3, "budget": 0.5, "country": 7, "vip": True}, "E0508"),
        ({"size": 3, "budget": 0.5, "country": "DE", "vip": 1}, "E0508"),
    ],
)
def test_binding_many_parameters_in_one_pass_refuses_and_defaults_as_one_at_a_time(args, expected):
    tool = toolkiln.compile(LEAD_LIKE)
    if isinstance(expected, Decimal):
        assert tool.run(args) == expected
        assert tool.run(type("Args", (dict,), {})(args)) == expected  # not a plain dict: one at a time
        return
    with pytest.raises(toolkiln.RunError) as caught:
        tool.run(args)
    assert caught.value.code == expected


@pytest.mark.parametrize("whole", [0, 7, 99, 100, 500, 1023, 1024, 10**6])
def test_small_whole_numbers_made_once_still_respect_a_small_digit_limit(whole):
    tool = toolkiln.compile('tool t(n: integer, m: integer)\ndescription "d"\n{\n  return n + m\n}\n')
    limits = toolkiln.Limits(max_number_digits=2)
    if whole < 100:
        assert tool.run({"n": whole, "m": 0}, limits=limits) == whole
        return
    with pytest.raises(toolkiln.RunError) as caught:
        tool.run({"n": whole, "m": 0}, limits=limits)
    assert caught.value.code == "E0508" and "more than 2 digits" in caught.value.message


@pytest.mark.parametrize(
    ("type_", "value", "expected"),
    [
        ("number", 99.5, Decimal("99.5")),
        ("number", -99.25, Decimal("-99.25")),
        ("number", 100.5, "E0508"),  # three whole digits, over the limit of two
        ("number", -1e300, "E0508"),
        ("number", float("inf"), "E0508"),
        ("integer", 12.0, Decimal(12)),
        ("integer", 12.5, "E0508"),
        ("string", 12.5, "E0508"),
    ],
)
def test_a_lone_parameter_takes_a_float_directly_only_where_its_check_would_pass(type_, value, expected):
    tool = toolkiln.compile(f'tool t(x: {type_})\ndescription "d"\n{{\n  return x\n}}\n', optimize=False)
    limits = toolkiln.Limits(max_number_digits=2)
    if isinstance(expected, Decimal):
        got = tool.run({"x": value}, limits=limits)
        assert got == expected and got.as_tuple() == expected.as_tuple()
        return
    with pytest.raises(toolkiln.RunError) as caught:
        tool.run({"x": value}, limits=limits)
    assert caught.value.code == expected


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("a - (b * 2)", Decimal(8)),  # a variable and a closure, in that order
        ("a / (b + 1)", Decimal(5)),
        ("1 - b", Decimal(0)),  # a constant and a variable
        ("100 / a", Decimal(10)),
        ("a * (1 - b)", Decimal(0)),
    ],
)
def test_operations_of_a_variable_with_a_closure_or_a_constant_keep_their_order(expression, expected):
    tool = toolkiln.compile(
        f'tool t(a: number, b: number)\ndescription "d"\n{{\n  return {expression}\n}}\n', optimize=False
    )
    assert tool.run({"a": 10, "b": 1}) == expected


def test_an_operation_of_a_variable_with_a_closure_is_located_where_it_fails():
    tool = toolkiln.compile('tool t(a: number, b: number)\ndescription "d"\n{\n  return a / (b - 1)\n}\n')
    with pytest.raises(toolkiln.RunError) as caught:
        tool.run({"a": 10, "b": 1})
    assert caught.value.code == "E0501" and (caught.value.span.line, caught.value.span.column) == (4, 10)


# --- a conditional whose branch is a chain on the variable tested ---------------------------------

E60 = Decimal("1e60")
# A chain of one, two and three operations, and its meaning in the run's context
TESTED_CHAINS = {
    "x * 1e60": lambda x: REFERENCE.multiply(x, E60),
    "(x + 1) * 1e60": lambda x: REFERENCE.multiply(REFERENCE.add(x, 1), E60),
    "((x + 1) * 2) * 1e60": lambda x: REFERENCE.multiply(REFERENCE.multiply(REFERENCE.add(x, 1), 2), E60),
}


@pytest.mark.parametrize("chain", list(TESTED_CHAINS))
@pytest.mark.parametrize("signature", ["x: number", "x: number, y: number"])
@pytest.mark.parametrize("form", ["{a} if x <= 10 else {b}", "{b} if x > 10 else {a}"])
def test_a_tested_chain_is_one_closure_with_the_meaning_and_locations_of_its_parts(chain, signature, form):
    """The chain in either branch (a branch that is no chain, here `x * x`, is called as it is),
    for a lone parameter (run without a frame) and beside another one (in a frame)."""
    source = f'tool t({signature})\ndescription "d"\n{{\n  return {form.format(a="x * x", b=chain)}\n}}\n'
    tool = toolkiln.compile(source, optimize=False)
    body = tool._default.body
    assert body.__name__ == f"tested{list(TESTED_CHAINS).index(chain) + 1}"  # the chain joined the test
    assert tool._default.shapes.takes_value(body) and (tool._default.frame_size == 2) == (signature == "x: number")
    other = {"y": 0} if "y" in signature else {}
    assert tool.run({"x": 10, **other}) == 100
    got, expected = tool.run({"x": 10.5, **other}), TESTED_CHAINS[chain](Decimal("10.5"))
    assert got.as_tuple() == expected.as_tuple()
    with pytest.raises(toolkiln.RunError) as caught:
        tool.run({"x": Decimal("1e40"), **other})  # its last operation overflows
    span = caught.value.span
    assert caught.value.code == "E0506" and source[span.start : span.end] == chain


def test_run_takes_its_options_by_keyword_only():
    """`run`'s options are declared keyword-only: its signature is the one written, no other."""
    tool = shipping_tool(True)
    assert "__signature__" not in vars(toolkiln.Tool.run)
    parameters = inspect.signature(tool.run).parameters
    assert list(parameters) == ["args", "tables", "limits", "clock", "random"]
    assert [p.kind for p in parameters.values()][1:] == [inspect.Parameter.KEYWORD_ONLY] * 4
    assert tool.run(args={"weight_kg": 2}) == tool.run({"weight_kg": 2}, tables={}) == Decimal("10.0")
    for positional in [({"weight_kg": 2}, {}), ({"weight_kg": 2}, None), ({"weight_kg": 2}, {}, None, None)]:
        with pytest.raises(TypeError, match="positional argument"):
            tool.run(*positional)
