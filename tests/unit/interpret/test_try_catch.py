"""`try body catch error: handler` (issue 31): the handler runs on a coded failure of the body,
with the failure as a record; budgets, limits and internal failures are never caught."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

import toolkiln
from toolkiln.errors import CompileError, RunError


def tool(body: str, params: str = "a: number, b: number") -> toolkiln.Tool:
    return toolkiln.compile(f'tool t({params})\ndescription "d"\n{{\n{body}\n}}\n')


def test_the_body_value_when_it_does_not_fail_and_the_handler_does_not_run():
    t = tool("return try a / b catch e: 1 / 0")
    assert t.run({"a": 1, "b": 4}) == Decimal("0.25")


def test_a_coded_failure_runs_the_handler_with_the_failure_as_a_record():
    t = tool("return try a / b catch e: [e.code, e.message, e.value]")
    code, message, value = t.run({"a": 1, "b": 0})
    assert code == "E0501" and "zero" in message.lower() and value is None


def test_the_failure_of_the_handler_stops_the_run():
    t = tool("return try a / b catch e: b / a")
    with pytest.raises(RunError) as raised:
        t.run({"a": 0, "b": 0})
    assert raised.value.code == "E0501"


def test_an_operation_budget_exhausted_inside_try_still_stops_the_run():
    t = tool("return try sum([x * 2 for x in range(n)]) catch e: -1", "n: integer")
    assert t.run({"n": 10}) == 90
    with pytest.raises(RunError) as raised:
        t.run({"n": 50_000}, limits=toolkiln.Limits(max_operations=1_000))
    assert raised.value.code == "E0503"


def test_a_time_limit_reached_inside_try_still_stops_the_run():
    t = tool("return try len([x * 2 for x in range(n)]) catch e: -1", "n: integer")
    with pytest.raises(RunError) as raised:
        t.run({"n": 100_000}, limits=toolkiln.Limits(max_seconds=1e-9))
    assert raised.value.code == "E0507"


def test_a_size_limit_inside_try_still_stops_the_run():
    t = tool('return try repeat("ab", n) catch e: ""', "n: integer")
    with pytest.raises(RunError) as raised:
        t.run({"n": 10**6})
    assert raised.value.code == "E0504"


def test_the_handler_variable_is_typed_and_scoped():
    with pytest.raises(CompileError) as raised:
        tool("return try a / b catch e: e.nope")
    assert raised.value.diagnostics[0].code == "E0320"
    with pytest.raises(CompileError):
        tool("x = try a / b catch e: 0\nreturn e")


def test_the_type_is_the_join_of_body_and_handler():
    t = tool("return (try a / b catch e: 0) + 1")
    assert t.run({"a": 1, "b": 0}) == 1
    with pytest.raises(CompileError) as raised:
        tool("return (try a / b catch e: 0).total")
    assert raised.value.diagnostics[0].code.startswith("E03")


def test_try_and_catch_are_reserved_words():
    with pytest.raises(CompileError) as raised:
        tool("try = 1\nreturn try")
    assert raised.value.diagnostics


SOURCE = """tool t(a: number, b: number)
description "d"
{
  x = try a / b catch e: e.code
  y = format "r {{(try a / b catch e: 0)}}"
  return [try (try x catch f: 1) catch e: 2 if a > 0 else try 3 catch e: 4, y, (try 1 catch e: 2) + 1]
}
"""


@pytest.mark.parametrize("args", [{"a": 1, "b": 0}, {"a": 1, "b": 2}, {"a": -1, "b": 0}])
def test_both_printers_write_what_reads_back_the_same(args: dict[str, Any]):
    expected = toolkiln.compile(SOURCE).run(args)
    for printed in (toolkiln.to_text(SOURCE), toolkiln.to_json(SOURCE)):
        assert toolkiln.compile(printed).run(args) == expected
    assert toolkiln.to_text(toolkiln.to_text(SOURCE)) == toolkiln.to_text(SOURCE)
