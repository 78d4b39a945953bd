"""Any JSON as a rule, any JSON as its data: the import answers a tool or coded diagnostics,
the tool a value or a coded RunError, never another exception, and a run stays within its
clock (a rule's huge numbers are refused at import, E0403, instead of being rendered)."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkiln
from toolkiln.errors import CompileError, RunError
from toolkiln.syntax.jsonlogic_ops import OPERATORS

NUMBERS = (
    st.integers(-(10**6), 10**6)
    | st.decimals(allow_nan=False, allow_infinity=False, places=3)
    | st.sampled_from([Decimal("1E+99"), Decimal("-1E+99"), Decimal("1E-50"), 0])
)
SCALARS = st.none() | st.booleans() | NUMBERS | st.text(max_size=8) | st.sampled_from(["1e999", " 12 ", "0x1F", "."])
KEYS = st.sampled_from([*OPERATORS, "try", "frobnicate", "", "accumulator", "current"])
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, min_size=0, max_size=2),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule=JSON, data=JSON, numbers=st.sampled_from(["exact", "float"]))
def test_any_rule_and_data_answer_with_codes_only(rule, data, numbers):
    try:
        tool = toolkiln.import_jsonlogic(rule, numbers=numbers)
    except CompileError as refused:
        assert refused.diagnostics and all(d.code[0] in "EW" for d in refused.diagnostics)
        return
    started = time.perf_counter()
    try:
        tool.run({"data": data})
    except RunError as failed:
        assert failed.code != "E0514", failed  # E0514: a failure the run did not expect
    # Bounded by the run's clock (with room for a busy machine): no single builtin call
    # outlasts it (a huge number in a path was rendered for 6 s, a substr start for 47 s).
    assert time.perf_counter() - started < 5 * tool.limits.max_seconds


@pytest.mark.parametrize("number", [Decimal("1E+999999999"), Decimal("1E-999999"), float("inf")])
def test_a_huge_number_in_the_rule_is_refused_at_import(number):
    with pytest.raises(CompileError) as refused:
        toolkiln.import_jsonlogic({"var": [number]})
    assert refused.value.diagnostics[0].code == "E0403"


@pytest.mark.parametrize("operator", sorted(OPERATORS))
@pytest.mark.parametrize("args", [[], {}, None])
def test_every_operator_given_no_arguments_answers_with_codes(operator, args):
    """`{"throw": []}` raised IndexError from the import (found by the property above)."""
    try:
        tool = toolkiln.import_jsonlogic({operator: args})
    except CompileError as refused:
        assert refused.diagnostics and all(d.code[0] in "EW" for d in refused.diagnostics)
        return
    try:
        tool.run({"data": None})
    except RunError as failed:
        assert failed.code != "E0514", failed
