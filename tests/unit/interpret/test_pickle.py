"""Compiled tools pickle (issue 15, item 8): a process pool can ship them to its workers."""

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from decimal import Decimal

import pytest

import toolkiln
from toolkiln.errors import RunError

SOURCE = """tool late_fee(amount: number, days: number)
description "Interest on a late invoice"
{
  fee = round(amount * rate * days / 365, 2)
  return fee if days > 0 else 0
}
"""


def late_fee() -> toolkiln.Tool:
    return toolkiln.compile(SOURCE.replace("rate", "0.12"))


def run_pickled(tool: toolkiln.Tool, args: dict[str, int]) -> Decimal:
    return tool.run(args)


def test_a_tool_survives_a_pickle_round_trip_and_runs_the_same():
    tool = late_fee()
    again = pickle.loads(pickle.dumps(tool))
    assert again.run({"amount": 1000, "days": 30}) == tool.run({"amount": 1000, "days": 30}) == Decimal("9.86")
    assert again.parameters == tool.parameters and again.name == "late_fee"


def test_what_is_bound_to_a_tool_is_pickled_with_it():
    """Tables, limits, callees and warnings survive; so does an unoptimized tool."""
    rates = toolkiln.compile(
        'tool rate(kind: string)\ndescription "A rate"\n{\n  r = lookup rates[kind] default 1\n  return r\n}',
        tables={"rates": {"a": 2}},
    )
    caller = toolkiln.compile(
        'tool total(x: number)\ndescription "A total"\n{\n  r = call rate(kind = "a")\n  unused = 1\n  return x * r\n}',
        tools={"rate": rates},
        limits=toolkiln.Limits(max_string_length=10),
        optimize=False,
    )
    again = pickle.loads(pickle.dumps(caller))
    assert again.run({"x": 3}) == 6
    assert again.limits == toolkiln.Limits(max_string_length=10)
    assert again.warnings == caller.warnings


def test_a_pickled_tool_still_refuses_with_its_codes():
    again = pickle.loads(pickle.dumps(late_fee()))
    with pytest.raises(RunError) as raised:
        again.run({"amount": "x", "days": 1})
    assert raised.value.code == "E0508"


def test_a_tool_runs_in_a_multiprocessing_pool():
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        fees = pool.starmap(run_pickled, [(late_fee(), {"amount": 1000, "days": d}) for d in (0, 30, 365)])
    assert fees == [0, Decimal("9.86"), Decimal("120.00")]


def test_a_tool_runs_in_a_process_pool_executor():
    tool = late_fee()
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        fees = list(pool.map(run_pickled, [tool] * 3, [{"amount": 100, "days": d} for d in (10, 20, 30)]))
    assert fees == [tool.run({"amount": 100, "days": d}) for d in (10, 20, 30)]
