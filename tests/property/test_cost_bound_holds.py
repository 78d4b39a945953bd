"""The static cost bound holds on generated programs: every run of a generated valid program
(strategies.programs: arithmetic, conditions, templates, lookups, nested ifs) with generated
arguments is charged at most the bound at its arguments' and tables' sizes."""

from __future__ import annotations

import sys
from pathlib import Path

import strategies as S
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import toolkiln
from toolkiln.check.cost import cost_bound

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit" / "check"))
from cost_cases import operations  # (the unit tests' measure of a run)

TABLES = {
    "rates": {"a": 1, "b": 2.5, "": 0, "x": [1, 2, 3]},
    "prices": {"a": 10, "p": {"q": [1, 2]}, "0": 7},
}


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(S.programs(), st.data())
def test_every_run_of_a_generated_program_is_within_its_bound(model, data):
    tool = toolkiln.compile(model.json())
    args = data.draw(S.arguments_for(tool))
    try:
        measured = operations(tool, args, TABLES)
    except toolkiln.RunError:
        return  # the bound is of runs that succeed
    bound = cost_bound(tool.program, tool.checked)
    assert measured <= bound.at(args, TABLES), (model.text(), args, str(bound))
