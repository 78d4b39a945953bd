"""A builtin called on scalars (work 0 beyond its own operation) is counted against the
operation budget without a look at the clock, as an operator is (calls.charged, runtime.count);
its operations are what they were, and a loop of such calls still stops at the budget and at
the deadline."""

from __future__ import annotations

import itertools

import pytest
from test_memory_budget import operations_needed

import toolkiln
from toolkiln.errors import RunError
from toolkiln.interpret import runtime


def _tool(body: str) -> toolkiln.Tool:
    return toolkiln.compile(f'tool t(a: any, xs: array[number])\ndescription "d"\n{{\n  return {body}\n}}\n')


def _clock_reads(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    reads: list[float] = []
    real = runtime.time.monotonic

    def counted() -> float:
        reads.append(real())
        return reads[-1]

    monkeypatch.setattr(runtime.time, "monotonic", counted)
    return reads


def test_a_call_on_scalars_reads_no_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    scalars = _tool("[js_compare(a, 1), js_compare(a, 2), js_compare(a, 3)]")
    lists = _tool("[js_compare(a, 1), js_in(a, xs), js_in(a, xs)]")
    scalars.run({"a": 2, "xs": [1]}), lists.run({"a": 2, "xs": [1]})  # (compiled, warmed)
    reads = _clock_reads(monkeypatch)
    scalars.run({"a": 2, "xs": [1]})
    at_start = len(reads)  # the deadline, read once a run
    lists.run({"a": 2, "xs": [1]})
    assert at_start == 1
    assert len(reads) - at_start == 3  # the deadline and the two calls on a list


def test_a_call_on_scalars_still_counts_one_operation() -> None:
    loop = _tool("[js_compare(a, x) for x in xs]")
    plain = _tool("[x for x in xs]")
    per_item = (
        operations_needed(loop, {"a": 1, "xs": [0] * 200}) - operations_needed(loop, {"a": 1, "xs": [0] * 100})
    ) // 100
    without = (
        operations_needed(plain, {"a": 1, "xs": [0] * 200}) - operations_needed(plain, {"a": 1, "xs": [0] * 100})
    ) // 100
    assert per_item - without == 3  # the element's size (the call and `a`), and the call's 1


def test_a_loop_of_calls_on_scalars_stops_at_its_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = itertools.count(step=0.01)  # a clock that moves 10 ms a look
    monkeypatch.setattr(runtime.time, "monotonic", lambda: next(ticks))
    loop = _tool("[js_compare(a, x) for x in xs]")
    with pytest.raises(RunError) as stopped:
        loop.run({"a": 1, "xs": [0] * 100_000}, limits=toolkiln.Limits(max_seconds=1))
    assert stopped.value.code == "E0507"
