"""What the JsonLogic builtins build is charged to the run's budget (docs/budgets.md): a rule
that builds texts or lists in a loop ends with a budget's code, its memory bounded."""

from __future__ import annotations

import tracemalloc

import pytest

import toolkiln
from toolkiln.errors import RunError
from toolkiln.semantics.builtin_registry import BYTES_PER_OPERATION

BUILDERS = [
    'js_cat([s, "x"])',
    'js_cat([[s], "x"])',
    "js_substr(s, 1)",
    "js_merge([xs, xs])",
    "js_missing({}, xs)",
]


@pytest.mark.parametrize("expression", BUILDERS)
def test_a_loop_of_builders_stays_within_the_budget(expression):
    # The clock far off: on a busy machine it would stop the run first (E0507), and the
    # budget under test is the operations' (as test_memory_budget's builders).
    heavy = toolkiln.compile(
        f'tool t(s: string, xs: array[number])\ndescription "d"\n{{\n  return len([{expression} for x in xs])\n}}\n',
        limits=toolkiln.Limits(max_seconds=60),
    )
    args = {"s": "a" * 90_000, "xs": list(range(2_000))}
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        with pytest.raises(RunError) as stopped:
            heavy.run(args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert stopped.value.code in ("E0503", "E0504", "E0505")
    assert peak < 1_000_000 * BYTES_PER_OPERATION + 8 * 2**20


def test_a_cat_over_the_length_limit_is_refused_before_it_is_built():
    with pytest.raises(RunError) as refused:
        toolkiln.compile('tool t(xs: array[number])\ndescription "d"\n{\n  return js_cat([xs, xs])\n}\n').run(
            {"xs": [10**90] * 1_000}
        )
    assert refused.value.code == "E0504"
