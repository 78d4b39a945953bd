"""`tool.run_many(rows, workers=N)` (issue 16, item 6): the same results, in the same order,
as one process; failing rows keep their RunError with its code and location."""

import pickle
import threading
from decimal import Decimal

import pytest

import toolkiln
from toolkiln.errors import RunError, UsageError
from toolkiln.io import pool
from toolkiln.io.pool import chunk_size_for, may_fork

SOURCE = """tool fee(amount: number, days: integer)
description "A fee per day past the third"
{
  return round(amount * 0.12 / (days - 3), 2)
}
"""


def rows(count: int) -> list[dict]:
    """Rows with a failing one every 7th (a division by zero) and a wrong type every 11th."""
    out: list[dict] = []
    for i in range(count):
        days = 3 if i % 7 == 3 else i
        out.append({"amount": "x" if i % 11 == 5 else 100 + i, "days": days})
    return out


def outcome(result: object) -> object:
    """A result compared exactly: a number by its repr, so that 1.40 is not 1.4."""
    return ("error", result.to_dict()) if isinstance(result, RunError) else repr(result)


@pytest.fixture(params=["forked", "fork server"])
def start(request, monkeypatch):
    """Both ways of starting the workers: forked (this process runs one thread) or from the
    fork server (it runs others)."""
    monkeypatch.setattr(pool, "may_fork", lambda: request.param == "forked")
    return request.param


def test_workers_give_the_results_of_one_process_in_row_order(start):
    tool = toolkiln.compile(SOURCE)
    batch = rows(200)
    alone = tool.run_many(batch)
    pooled = tool.run_many(batch, workers=2, chunk_size=9)  # 23 chunks, the last one short
    assert [outcome(r) for r in pooled] == [outcome(r) for r in alone]
    assert sum(isinstance(r, RunError) for r in pooled) > 30
    assert {r.code for r in pooled if isinstance(r, RunError)} == {"E0501", "E0508"}
    assert pooled[12] == Decimal("1.49")  # 112 * 0.12 / 9


def test_a_batch_of_numbers_only_comes_back_digit_for_digit(start):
    tool = toolkiln.compile(SOURCE)
    batch = [{"amount": 100 + i, "days": 4 + i % 5} for i in range(60)]  # no failing row
    pooled = tool.run_many(batch, workers=2, chunk_size=7)
    assert all(type(r) is Decimal for r in pooled)
    assert [repr(r) for r in pooled] == [repr(r) for r in tool.run_many(batch)]


def test_workers_run_under_the_limits_and_tables_given(start):
    tool = toolkiln.compile(
        'tool price(kind: string)\ndescription "A price by kind"\n{\n  p = lookup prices[kind] default 0\n  return p * 2\n}',
        tables={"prices": {"a": 1}},
    )
    batch = [{"kind": "a"}, {"kind": "b"}, {"kind": "toolong"}]
    expected = tool.run_many(batch, tables={"prices": {"b": 5}}, limits=toolkiln.Limits(max_string_length=3))
    pooled = tool.run_many(batch, tables={"prices": {"b": 5}}, limits=toolkiln.Limits(max_string_length=3), workers=2)
    assert [outcome(r) for r in pooled] == [outcome(r) for r in expected]
    assert pooled[:2] == [0, 10]  # the run's table replaces the tool's own
    assert isinstance(pooled[2], RunError)


def test_no_rows_start_no_workers():
    assert toolkiln.compile(SOURCE).run_many([], workers=4) == []


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_workers_and_chunk_size_must_be_whole_numbers_of_at_least_one(bad):
    tool = toolkiln.compile(SOURCE)
    with pytest.raises(UsageError, match="workers"):
        tool.run_many(rows(3), workers=bad)
    with pytest.raises(UsageError, match="chunk_size"):
        tool.run_many(rows(3), chunk_size=bad)


def test_chunks_balance_the_workers_and_stay_bounded():
    assert chunk_size_for(200, 2) == 13  # 16 chunks: 8 a worker
    assert chunk_size_for(3, 8) == 1
    assert chunk_size_for(10_000_000, 2) == 10_000


def test_run_errors_pickle_with_their_code_location_and_hint():
    try:
        toolkiln.compile(SOURCE).run({"amount": 1, "days": 3})
    except RunError as error:
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is RunError and again.to_dict() == error.to_dict()
        assert again.code == "E0501" and again.span is not None and again.span.line == 4
    else:
        pytest.fail("dividing by zero ran")


def test_compile_errors_pickle_with_their_diagnostics():
    with pytest.raises(toolkiln.CompileError) as raised:
        toolkiln.compile("return (")
    again = pickle.loads(pickle.dumps(raised.value))
    assert again.diagnostics == raised.value.diagnostics and str(again) == str(raised.value)


def test_results_that_are_not_numbers_come_back_as_they_were(start):
    tool = toolkiln.compile(
        'tool label(n: integer)\ndescription "A label"\n{\n  return "many" if n > 2 else [n, 1.50, n > 1]\n}',
        optimize=False,
    )
    batch = [{"n": n} for n in range(6)]
    assert [outcome(r) for r in tool.run_many(batch, workers=2, chunk_size=2)] == [
        outcome(r) for r in tool.run_many(batch)
    ]


def test_a_process_with_another_thread_does_not_fork():
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not may_fork()
    finally:
        release.set()
        other.join()
