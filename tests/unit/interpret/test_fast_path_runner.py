"""The fast path behind one handle (interpret/runner.py): `tool.runner()`, the closures that
carry no meaning on themselves, and the decimal scope's refusal told apart by its type."""

from __future__ import annotations

import types
from decimal import Context, Decimal, getcontext
from pathlib import Path
from typing import Any

import pytest

import toolkiln
from toolkiln.interpret.decimal_scope import DecimalScope

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SHIPPING = 'tool ship(weight_kg: number)\ndescription "d"\n{\n  return weight_kg * 2.5 + 5 if weight_kg <= 10 else (weight_kg * 2.5 + 5) * 0.9\n}\n'
LOOKUP = 'tool rate(country: string)\ndescription "d"\ntable rates: number\n{\n  r = lookup rates[country]\n  return r * 2\n}\n'


def test_a_tools_runner_runs_as_tool_run_does():
    tool = toolkiln.compile(SHIPPING)
    runner = tool.runner()
    assert runner is tool.runner() and runner.name == "ship"
    assert type(runner.run) is types.FunctionType  # one plain call, no method or __call__
    for weight in (2, 12.5, Decimal("10"), 10.0, 0):
        assert runner.run({"weight_kg": weight}) == tool.run({"weight_kg": weight})
    for bad in ({"weight_kg": "x"}, {}, {"weight": 1}, None, {"weight_kg": 1, "x": 2}):
        with pytest.raises(toolkiln.RunError) as by_runner:
            runner.run(bad)
        with pytest.raises(toolkiln.RunError) as by_run:
            tool.run(bad)
        assert (by_runner.value.code, by_runner.value.message) == (by_run.value.code, by_run.value.message)


def test_a_runner_reads_the_tools_own_tables():
    tool = toolkiln.compile(LOOKUP, tables={"rates": {"de": 0.19}})
    assert tool.runner().run({"country": "de"}) == Decimal("0.38")
    other = tool.with_tables({"rates": {"de": 0.5}})
    assert other.runner().run({"country": "de"}) == Decimal("1.0")


def _closures(fn: Any, seen: set[int]) -> list[types.FunctionType]:
    """Every Python function reachable from `fn` through closure cells and default values."""
    found, pending = [], [fn]
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, types.FunctionType):
            found.append(item)
            pending += [cell.cell_contents for cell in item.__closure__ or () if _filled(cell)]
            pending += list(item.__defaults__ or ())
        elif isinstance(item, tuple | list):
            pending += list(item)
    return found


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.iterdir() if p.suffix in (".json", ".tk")))
def test_no_closure_carries_meaning_in_attributes(example):
    """What one closure builder tells another (a chain, an update, a frame-less body) is in the
    program's typed Shapes (interpret/plan.py), never stuck on the functions."""
    tool = toolkiln.compile(EXAMPLES / example)
    closures = _closures(tool._default.execute, set())
    assert len(closures) > 3
    assert [(f.__qualname__, vars(f)) for f in closures if vars(f)] == []


def test_shipping_shapes_are_recorded_in_the_plan():
    program = toolkiln.compile(SHIPPING, optimize=False)._default
    assert program.shapes.takes_value(program.body)  # the tested chain, run without a frame


def test_a_plain_runtime_error_from_inside_the_scope_is_raised_once_as_it_was():
    scope, calls = DecimalScope(Context(prec=7)), []

    def fails() -> None:
        calls.append(getcontext().prec)
        raise RuntimeError("mine")

    with pytest.raises(RuntimeError, match="mine") as caught:
        scope.run(fails)
    assert calls == [7] and type(caught.value) is RuntimeError and caught.value.__context__ is None


def test_the_scope_in_use_is_refused_by_type_and_run_in_a_fresh_context():
    scope = DecimalScope(Context(prec=7))
    assert scope.run(lambda: scope.run(lambda: getcontext().prec)) == 7
    assert scope.run_sealed(lambda: scope.run_sealed(lambda: getcontext().prec)) == 7
