"""The float mode end to end (interpret/float_domain.py): a rule imported with
numbers="float" keeps its numbers as floats from its data to its result, and answers exactly
as the same program run in decimals answers."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonlogic_suites import SUITES, all_cases

import toolkiln
from toolkiln.errors import CompileError, RunError
from toolkiln.interpret import float_domain, float_fused
from toolkiln.interpret import program as program_module


def _in_decimals(rule: Any, monkeypatch: pytest.MonkeyPatch) -> toolkiln.Tool:
    """The float-mode import of `rule` compiled as the decimal domain runs it (as before)."""
    with monkeypatch.context() as patch:
        patch.setattr(program_module, "computes_in_floats", lambda *args: False)
        return toolkiln.import_jsonlogic(rule, numbers="float")


def _outcome(tool: toolkiln.Tool, data: Any) -> Any:
    try:
        return ("value", tool.run({"data": data}))
    except RunError as error:
        return ("error", error.code)


def test_a_float_mode_rule_binds_and_computes_floats(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    add = float_fused.FLOAT_BUILTINS["js_add_f64"]

    def spy(limits: Any, operands: Any) -> Any:
        seen.append(operands)
        return add.impl(limits, operands)

    monkeypatch.setitem(float_fused.FLOAT_BUILTINS, "js_add_f64", replace(add, impl=spy))
    tool = toolkiln.import_jsonlogic({"+": {"var": "xs"}}, numbers="float")
    assert tool.run({"data": {"xs": [0.1, 0.2, 0.3]}}) == Decimal("0.6000000000000001")  # JavaScript's
    assert tool.run({"data": {"xs": [0.1, 0.2, 0.3, 2]}}) == Decimal(repr(0.1 + 0.2 + 0.3 + 2))  # an int: a float
    assert seen and all(type(value) is float for values in seen for value in values)  # no decimal between


def test_the_result_is_decimals_as_before() -> None:
    rule = {"map": [{"var": "xs"}, {"+": [{"var": ""}, 0.2]}]}
    tool = toolkiln.import_jsonlogic(rule, numbers="float")
    got = tool.run({"data": {"xs": [0.1, 1, 2.5]}})
    assert got == [Decimal("0.30000000000000004"), Decimal("1.2"), Decimal("2.7")]
    assert all(type(item) is Decimal for item in got)


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), 1e300])
def test_a_float_the_decimals_refuse_is_refused_in_floats_too(bad: float) -> None:
    tool = toolkiln.import_jsonlogic({"+": [{"var": "x"}, 1]}, numbers="float")
    with pytest.raises(RunError) as refused:
        tool.run({"data": {"x": bad}})
    assert refused.value.code == "E0508"


def test_a_program_with_decimal_arithmetic_runs_in_decimals() -> None:
    """The float domain is chosen only where nothing takes a number as a decimal: here `*`."""
    tool = toolkiln.compile('tool t(data: any) description "d" { return js_add_f64([data, 0.1]) * 3 }')
    assert tool.run({"data": 0.2}) == Decimal("0.90000000000000012")
    assert not tool._default.exprs.floats  # (internal: which domain it runs in)
    assert toolkiln.import_jsonlogic({"+": [{"var": "x"}, 1]}, numbers="float")._default.exprs.floats


@pytest.mark.skipif(
    not SUITES.is_dir(), reason=f"the JsonLogic suites are not at {SUITES} (a checkout without ../shared)"
)
def test_every_suite_case_answers_in_floats_as_in_decimals(monkeypatch: pytest.MonkeyPatch) -> None:
    compared = 0
    for case in all_cases():
        try:
            fast = toolkiln.import_jsonlogic(case.rule, numbers="float")
        except CompileError:
            continue
        if not fast._default.exprs.floats:
            continue
        slow = _in_decimals(case.rule, monkeypatch)
        assert repr(_outcome(fast, case.data)) == repr(_outcome(slow, case.data)), case.id
        compared += 1
    assert compared > 100  # the float domain is not a corner case of the suites


NUMBERS = st.floats(-1e6, 1e6, allow_nan=False) | st.integers(-10, 10) | st.sampled_from([0.1, 0.2, 0.3, 1e-7])
LEAVES = NUMBERS | st.sampled_from([{"var": "a"}, {"var": "b"}, "2", "x", None, True])


def _arithmetic(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    pair = st.lists(inner, min_size=1, max_size=3)
    ops = st.sampled_from(["+", "-", "*", "/", "%", "<", "==", "===", "max", "min", "cat", "in"])
    return st.one_of(
        st.tuples(ops, pair).map(lambda op: {op[0]: op[1]}),
        st.tuples(inner, inner, inner).map(lambda parts: {"if": list(parts)}),
        st.tuples(inner, inner).map(lambda parts: {"+": [{"!": parts[0]}, parts[1]]}),
    )


@settings(max_examples=150, deadline=None)
@given(rule=st.recursive(LEAVES, _arithmetic, max_leaves=6), a=NUMBERS, b=NUMBERS | st.just("3"))
def test_generated_arithmetic_answers_in_floats_as_in_decimals(rule: Any, a: Any, b: Any) -> None:
    rule = {"+": [rule, 0]}  # an _f64 call: the float domain unless something refuses it
    try:
        fast = toolkiln.import_jsonlogic(rule, numbers="float")
    except CompileError:
        return
    with pytest.MonkeyPatch.context() as patch:
        slow = _in_decimals(rule, patch)
    data = {"a": a, "b": b}
    assert repr(_outcome(fast, data)) == repr(_outcome(slow, data))


@pytest.mark.parametrize("rule", [{"%": ["1e999", 2]}, {"%": {"var": "xs"}}, {"%": [{"var": "xs.0"}, 2]}])
def test_the_remainder_of_infinity_stops_with_nan(rule: Any) -> None:
    """Number("1e999") is Infinity, and Infinity % 2 is NaN (was: math.fmod's ValueError, E0514)."""
    tool = toolkiln.import_jsonlogic(rule, numbers="float")
    with pytest.raises(RunError) as stopped:
        tool.run({"data": {"xs": ["1e999", 2]}})
    assert stopped.value.code == "E1003"


def test_the_domain_survives_the_text_and_the_export_round_trips() -> None:
    """The source says the mode (its `_f64` builtins): printed and compiled again, or exported
    and imported again, the tool still computes in floats (no field in a record to lose)."""
    rule = {"*": [{"var": "price"}, {"-": [1, {"var": "rate"}]}]}
    tool = toolkiln.import_jsonlogic(rule, numbers="float")
    printed = toolkiln.compile(toolkiln.to_text(tool.program))
    again = toolkiln.import_jsonlogic(toolkiln.export_jsonlogic(tool), numbers="float")
    data = {"data": {"price": 19.99, "rate": 0.07}}
    for copy in (printed, again):
        assert copy._default.exprs.floats
        assert copy.run(data) == tool.run(data) == Decimal(repr(1.0 * 19.99 * (1 - 0.07)))


def test_the_float_domain_names_every_builtin_that_gives_floats() -> None:
    """float_domain.py names them without importing them (a run of another program never
    imports the JsonLogic builtins); the names must be those float_fused.py runs."""
    assert set(float_fused.FLOAT_BUILTINS) <= float_domain.FLOAT_READY
    assert {name for name in float_fused.FLOAT_BUILTINS if name.endswith("f64")} == float_domain.FLOAT_ARITHMETIC
