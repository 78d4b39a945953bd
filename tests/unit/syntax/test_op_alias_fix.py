"""A misnamed op (`calc`, `assign`, `if`, `invoke`) gets a certain fix to the op of the
same meaning only when the step's fields are exactly that op's; otherwise a hint alone."""

from __future__ import annotations

import json

import pytest

import toolkiln


def definition(step: dict) -> str:
    return json.dumps(
        {
            "name": "bonus",
            "description": "Sales bonus",
            "parameters": {"sales": {"type": "number"}},
            "logic": {"steps": [step, {"op": "return", "value": "bonus"}]},
        },
        indent=1,
    )


@pytest.mark.parametrize("op", ["calc", "calculate", "compute", "assign", "set"])
def test_a_math_step_under_another_name_is_fixed(op):
    text = definition({"op": op, "expression": "sales * 0.05", "output": "bonus"})
    (unknown,) = [d for d in toolkiln.check(text) if d.code == "E0107"]
    assert unknown.fix is not None
    fixed = toolkiln.apply_fixes(text)
    assert '"op": "math"' in fixed and toolkiln.check(fixed) == []
    assert toolkiln.compile(fixed).run({"sales": 100}) == 5


@pytest.mark.parametrize(
    "step",
    [
        {"op": "calc", "expression": "sales * 0.05", "output": "bonus", "then": []},  # not math's fields
        {"op": "calc", "value": "sales * 0.05"},  # math has no `value`
        {"op": "calculation", "expression": "sales * 0.05", "output": "bonus"},  # no alias: a guess
    ],
)
def test_a_step_whose_fields_are_not_the_alias_ops_gets_a_hint_only(step):
    (unknown,) = [d for d in toolkiln.check(definition(step)) if d.code == "E0107"]
    assert unknown.fix is None and unknown.hint
