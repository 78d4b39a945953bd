"""Composition in the language: the `call` step in both front ends, the checker's codes for
it, both printers, the optimizer and the interpreter (results and error propagation)."""

from decimal import Decimal

import pytest

import toolkiln
from toolkiln.ast import compute as n
from toolkiln.optimize import optimize
from toolkiln.syntax.loader import parse_source

SHIPPING = """tool shipping_cost(
  weight_kg: number,
  express: boolean = false,
)
description "Shipping cost"
{
  cost = weight_kg * 2.5 + 5
  if express {
    cost = cost * 2
  }
  return cost
}
"""

RATIO = """tool ratio(a: number, b: number)
description "a / b"
{
  return a / b
}
"""


@pytest.fixture(scope="module")
def tools():
    return {"shipping_cost": toolkiln.compile(SHIPPING), "ratio": toolkiln.compile(RATIO)}


def codes(source, tools):
    return [d.code for d in toolkiln.check(source, tools=tools) if d.is_error]


# --- front ends -----------------------------------------------------------------------------


def test_text_call_step_parses_to_a_call_tool_node():
    program = parse_source("cost = call shipping_cost(weight_kg = w * 2, express = true)\nreturn cost").program
    step = program.steps[0]
    assert isinstance(step, n.CallTool)
    assert (step.target, step.tool, [a.name for a in step.args]) == ("cost", "shipping_cost", ["weight_kg", "express"])
    assert isinstance(step.args[0].value, n.Binary) and isinstance(step.args[1].value, n.BoolLit)


def test_text_call_step_allows_newlines_in_parentheses_and_no_arguments():
    program = parse_source("c = call f(\n  a = 1,\n  b = 2,\n)\nd = call g()\nreturn c + d").program
    assert [len(s.args) for s in program.steps[:2]] == [2, 0]


def test_json_call_step_with_expressions_and_literals():
    program = parse_source(
        {
            "steps": [
                {
                    "op": "call",
                    "tool": "shipping_cost",
                    "args": {"weight_kg": "w * 2", "express": True},
                    "output": "cost",
                },
                {"op": "return", "value": "cost"},
            ]
        }
    ).program
    step = program.steps[0]
    assert isinstance(step, n.CallTool) and step.args[1].value == n.BoolLit(value=True, span=step.args[1].value.span)
    assert step.args[0].span.path == "steps[0].args.weight_kg"


def test_json_call_step_errors_carry_their_paths():
    diagnostics = toolkiln.check(
        {
            "steps": [
                {"op": "call", "tool": "Bad-Name", "args": {"weight_kg": "w *"}, "output": "cost"},
                {"op": "call", "tool": "f", "args": [1], "output": "x"},
                {"op": "call", "args": {}, "output": "y"},
                {"op": "return", "value": "cost"},
            ]
        }
    )
    found = {(d.code, d.span.path if d.span else None) for d in diagnostics}
    assert ("E0110", "steps[0].tool") in found
    assert ("E0101", "steps[0].args.weight_kg") in found
    assert ("E0106", "steps[1].args") in found
    assert ("E0108", "steps[2]") in found


def test_an_unknown_op_like_calculate_is_not_taken_for_call():
    diagnostics = toolkiln.check({"steps": [{"op": "calculate", "expression": "1", "output": "c"}]})
    assert diagnostics[0].code == "E0107"
    assert diagnostics[0].hint.startswith("did you mean `math`? (op is one of:")
    diagnostics = toolkiln.check({"steps": [{"op": "cal", "tool": "f", "output": "c"}]})
    assert diagnostics[0].code == "E0107"
    assert diagnostics[0].hint.startswith("did you mean `call`? (op is one of:")


def test_call_is_a_reserved_word_in_json_too():
    """(In text: tests/unit/check/data/syntax.test.)"""
    assert "E0110" in [
        d.code
        for d in toolkiln.check(
            {"steps": [{"op": "math", "expression": "1", "output": "call"}, {"op": "return", "value": "1"}]}
        )
    ]


# --- checker ------------------------------------------------------------------------------


def test_a_correct_call_checks_and_takes_the_callee_result_type(tools):
    tool = toolkiln.compile("cost = call shipping_cost(weight_kg = w)\nreturn cost", tools=tools)
    assert tool.result_type == "number"
    assert tool.parameters["properties"] == {"w": {"type": "number"}}  # inferred from the callee's parameter
    # the result is a number: using it as text is an operand error
    assert "E0301" in codes("cost = call shipping_cost(weight_kg = 1)\nreturn cost + 'x'", tools)


def test_unknown_tool_is_e0211_with_did_you_mean(tools):
    diagnostics = toolkiln.check("c = call shiping_cost(weight_kg = 1)\nreturn c", tools=tools)
    assert [d.code for d in diagnostics] == ["E0211"]
    assert diagnostics[0].hint == "did you mean `shipping_cost`?"
    without = toolkiln.check("c = call shipping_cost(weight_kg = 1)\nreturn c")
    assert [d.code for d in without] == ["E0211"] and "tools=" in without[0].hint


def test_unknown_missing_and_duplicate_arguments_are_e0212(tools):
    assert codes("c = call shipping_cost(weight = 1)\nreturn c", tools) == ["E0212", "E0212"]  # unknown + missing
    assert codes("c = call shipping_cost()\nreturn c", tools) == ["E0212"]
    assert codes("c = call shipping_cost(weight_kg = 1, weight_kg = 2)\nreturn c", tools) == ["E0212"]
    assert codes("c = call shipping_cost(weight_kg = 1)\nreturn c", tools) == []  # express has a default
    unknown = toolkiln.check("c = call shipping_cost(weight = 1, weight_kg = 1)\nreturn c", tools=tools)
    assert unknown[0].hint == "did you mean `weight_kg`?"


def test_an_argument_of_the_wrong_type_is_e0303(tools):
    diagnostics = toolkiln.check(
        {
            "steps": [
                {"op": "call", "tool": "shipping_cost", "args": {"weight_kg": "'heavy'", "express": 1}, "output": "c"},
                {"op": "return", "value": "c"},
            ]
        },
        tools=tools,
    )
    assert sorted((d.code, d.span.path) for d in diagnostics) == [
        ("E0303", "steps[0].args.express"),
        ("E0303", "steps[0].args.weight_kg"),
    ]


# --- printers -----------------------------------------------------------------------------

CALLER_JSON = {
    "name": "order_total",
    "description": "Order total",
    "parameters": {"w": {"type": "number"}, "fast": {"type": "boolean", "default": False}},
    "logic": {
        "steps": [
            {
                "op": "call",
                "tool": "shipping_cost",
                "args": {"weight_kg": "w * 2", "express": "fast"},
                "output": "cost",
            },
            {
                "op": "condition",
                "if": "cost > 10",
                "then": [
                    {"op": "call", "tool": "ratio", "args": {"a": "cost", "b": 2}, "output": "r"},
                    {"op": "return", "value": "r"},
                ],
            },
            {"op": "return", "value": "cost"},
        ]
    },
}


def test_json_to_text_to_json_is_the_identity_with_call_steps():
    text = toolkiln.to_text(CALLER_JSON)
    assert "  cost = call shipping_cost(weight_kg = w * 2, express = fast)\n" in text
    assert "    r = call ratio(a = cost, b = 2)\n" in text
    expected = {**CALLER_JSON, "logic": {"steps": [*CALLER_JSON["logic"]["steps"]]}}
    expected["logic"]["steps"][1] = {
        **expected["logic"]["steps"][1],
        "then": [
            {"op": "call", "tool": "ratio", "args": {"a": "cost", "b": "2"}, "output": "r"},
            {"op": "return", "value": "r"},
        ],
    }
    assert toolkiln.to_json(text) == expected  # a literal argument prints as an expression string
    assert toolkiln.to_json(toolkiln.to_text(expected)) == expected
    assert toolkiln.to_text(text) == text  # fmt is idempotent


# --- optimizer ----------------------------------------------------------------------------


def test_an_unused_call_is_kept_and_copies_are_propagated_into_its_arguments():
    program = parse_source("x = w\nunused = call ratio(a = x, b = 0)\nreturn w").program
    optimized = optimize(program)
    calls = [s for s in optimized.steps if isinstance(s, n.CallTool)]
    assert len(calls) == 1 and calls[0].args[0].value == n.Name(name="w", span=calls[0].args[0].value.span)
    assert not any(isinstance(s, n.Assign) for s in optimized.steps)  # the copy itself is gone


def test_a_call_target_stops_copy_propagation():
    program = parse_source("c = 1\nc = call ratio(a = 1, b = 2)\nreturn c").program
    optimized = optimize(program)
    assert isinstance(optimized.steps[-1].value, n.Name)  # not the stale constant 1


# --- interpreter --------------------------------------------------------------------------


def test_calls_run_the_callee_with_the_arguments(tools):
    caller = toolkiln.compile(CALLER_JSON, tools=tools)
    assert caller.run({"w": 1}) == Decimal("10.0")  # 2 kg: 2 * 2.5 + 5
    assert caller.run({"w": 0.4, "fast": True}) == Decimal("7")  # (0.8 * 2.5 + 5) * 2 = 14, / 2
    assert set(caller.tools) == {"shipping_cost", "ratio"}


def test_an_unused_call_still_runs_and_can_fail(tools):
    caller = toolkiln.compile("unused = call ratio(a = 1, b = b)\nreturn 1", tools=tools)
    assert caller.run({"b": 2}) == 1
    with pytest.raises(toolkiln.RunError) as error:
        caller.run({"b": 0})
    assert error.value.code == "E0501"


def test_a_callee_failure_keeps_its_code_and_is_located_at_the_call(tools):
    source = "x = 1\nr = call ratio(a = x, b = b)\nreturn r"
    caller = toolkiln.compile(source, tools=tools)
    with pytest.raises(toolkiln.RunError) as error:
        caller.run({"b": 0})
    assert error.value.code == "E0501"
    assert error.value.message == "in tool `ratio`: division by zero"
    assert (error.value.span.line, error.value.span.column) == (2, 1)
    outer = toolkiln.compile(
        'tool outer(b: number)\ndescription "o"\n{\n  r = call inner(b = b)\n  return r\n}', tools={"inner": caller}
    )
    with pytest.raises(toolkiln.RunError) as error:
        outer.run({"b": 0})
    assert error.value.message == "in tool `inner`: in tool `ratio`: division by zero"
    assert error.value.span.line == 4


def test_callee_argument_errors_propagate_too(tools):
    caller = toolkiln.compile("r = call shipping_cost(weight_kg = o.kg)\nreturn r", tools=tools)
    with pytest.raises(toolkiln.RunError) as error:
        caller.run({"o": {"kg": "heavy"}})
    assert error.value.code == "E0508" and error.value.message.startswith("in tool `shipping_cost`: argument")


def test_a_callee_reads_the_callers_tables():
    reader = toolkiln.compile("r = lookup rates[zone]\nreturn r")
    caller = toolkiln.compile("r = call reader(zone = z)\nreturn r", tools={"reader": reader})
    assert caller.run({"z": "eu"}, tables={"rates": {"eu": 3}}) == 3
