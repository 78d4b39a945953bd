"""Idioms with one toolkiln spelling get a certain fix (issue 33): `date.today()`,
`x between a and b`, `t = x.toFixed(2)`, and a JSON step's field under a name models use
(`condition`/`otherwise` on a condition, `expression` on a return). Where another reading
exists, the diagnostic keeps its hint and carries no fix."""

from __future__ import annotations

import datetime as dt
import json

import pytest

import toolkiln
from toolkiln.diagnostics.fixes import repair

CLOCK = dt.datetime(2026, 3, 4, 5, 6, 7, tzinfo=dt.UTC)


def repaired(text: str) -> str:
    result = repair(text, toolkiln.check)
    assert not [d for d in result.diagnostics if d.is_error], result.diagnostics
    return result.text


@pytest.mark.parametrize(
    ("broken", "meant"),
    [
        ("d = date.today()\nreturn d", "d = today()\nreturn d"),
        ("d = datetime.date.today()\nreturn d", "d = today()\nreturn d"),
        ("d = datetime.now()\nreturn d", "d = now()\nreturn d"),
        ("d = datetime.datetime.now()\nreturn d", "d = now()\nreturn d"),
    ],
)
def test_python_clock_calls_become_the_builtins_that_read_the_runs_clock(broken, meant):
    assert repaired(broken) == meant
    assert toolkiln.compile(repaired(broken)).run({}, clock=CLOCK) == toolkiln.compile(meant).run({}, clock=CLOCK)


@pytest.mark.parametrize(
    ("broken", "meant"),
    [
        ("return age between 18 and 65", "return (18 <= age and age <= 65)"),
        ("return age not between 18 and 65", "return not (18 <= age and age <= 65)"),
        ("ok = p.score between 0.5 and 1\nreturn ok", "ok = (0.5 <= p.score and p.score <= 1)\nreturn ok"),
        (
            "if age between 18 and 65 and member {\n  return 1\n}\nreturn 0",
            "if (18 <= age and age <= 65) and member {\n  return 1\n}\nreturn 0",
        ),
    ],
)
def test_between_is_inclusive_at_both_ends(broken, meant):
    assert repaired(broken) == meant
    tool = toolkiln.compile(repaired(broken))
    for age in (17, 18, 40, 65, 66):
        args = {"age": age, "member": True, "p": {"score": age / 100}}
        expected = toolkiln.compile(meant).run({k: v for k, v in args.items() if k in tool.parameters["properties"]})
        assert tool.run({k: v for k, v in args.items() if k in tool.parameters["properties"]}) == expected


@pytest.mark.parametrize(
    "text",
    [
        "ok = bonus + age between 18 and 65\nreturn ok",  # does `between` take `bonus + age`?
        "return age between 18 and 65 * 2",  # or `65 * 2`?
        "return age between low",  # no `and`
    ],
)
def test_between_with_another_reading_gets_a_hint_only(text):
    (error,) = [d for d in toolkiln.check(text) if d.is_error]
    assert error.code == "E0101" and "between" in error.message and error.hint and error.fix is None


@pytest.mark.parametrize(
    ("broken", "meant"),
    [
        ("t = price.toFixed(2)\nreturn t", 't = format "{{price:.2f}}"\nreturn t'),
        ("t = (price * 1.19).toFixed(2)\nreturn t", 't = format "{{(price * 1.19):.2f}}"\nreturn t'),
        ("t = order.total.toFixed()\nreturn t", 't = format "{{order.total:.0f}}"\nreturn t'),
    ],
)
def test_to_fixed_as_a_steps_whole_value_is_the_same_text_from_a_format_step(broken, meant):
    assert repaired(broken) == meant
    args = {"price": 12.345, "order": {"total": 99.5}}
    tool = toolkiln.compile(repaired(broken))
    used = {k: v for k, v in args.items() if k in tool.parameters["properties"]}
    assert tool.run(used) in ("12.35", "14.69", "100")


@pytest.mark.parametrize("text", ["return price.toFixed(2)", 'msg = "Total: " + price.toFixed(2)\nreturn msg'])
def test_to_fixed_inside_an_expression_gets_a_hint_only(text):
    # round(x, 2) is a number, toFixed's result a text ("3.10", not 3.1): not the same meaning
    (error,) = [d for d in toolkiln.check(text) if d.is_error]
    assert error.fix is None and "round" in (error.hint or "")


def definition(*steps: dict) -> str:
    return json.dumps(
        {
            "name": "grade",
            "description": "A grade",
            "parameters": {"score": {"type": "number"}},
            "logic": {"steps": list(steps)},
        },
        indent=2,
    )


RETURN_A = {"op": "return", "value": "'A'"}
RETURN_B = {"op": "return", "value": "'B'"}


@pytest.mark.parametrize(
    ("step", "meant"),
    [
        (
            {"op": "condition", "condition": "score > 90", "then": [RETURN_A], "otherwise": [RETURN_B]},
            {"op": "condition", "if": "score > 90", "then": [RETURN_A], "else": [RETURN_B]},
        ),
        (
            {"op": "condition", "when": "score > 90", "then": [RETURN_A], "else": [RETURN_B]},
            {"op": "condition", "if": "score > 90", "then": [RETURN_A], "else": [RETURN_B]},
        ),
    ],
)
def test_a_condition_steps_fields_under_other_names_are_renamed(step, meant):
    fixed = repaired(definition(step))
    assert json.loads(fixed) == json.loads(definition(meant))
    assert [toolkiln.compile(fixed).run({"score": s}) for s in (95, 50)] == ["A", "B"]


@pytest.mark.parametrize(
    ("step", "meant"),
    [
        ({"op": "return", "expression": "score * 2"}, {"op": "return", "value": "score * 2"}),
        (
            {"op": "math", "formula": "score * 2", "result": "x"},
            {"op": "math", "expression": "score * 2", "output": "x"},
        ),
    ],
)
def test_expression_and_output_under_other_names_are_renamed(step, meant):
    steps = [step] if step["op"] == "return" else [step, {"op": "return", "value": "x"}]
    meant_steps = [meant] if meant["op"] == "return" else [meant, {"op": "return", "value": "x"}]
    assert json.loads(repaired(definition(*steps))) == json.loads(definition(*meant_steps))


@pytest.mark.parametrize(
    "step",
    [
        {"op": "condition", "condition": "score > 90", "when": "score > 50", "then": [RETURN_A]},  # which is `if`?
        {"op": "condition", "if": "score > 90", "condition": "score > 50", "then": [RETURN_A]},  # `if` is there
        {"op": "return", "expression": "score", "extra": 1},  # a field that is no alias
    ],
)
def test_a_rename_with_another_reading_is_a_hint_only(step):
    unknown = [d for d in toolkiln.check(definition(step, RETURN_B)) if d.code == "E0109"]
    assert unknown and all(d.fix is None for d in unknown)


@pytest.mark.parametrize(
    ("broken", "meant"),
    [
        ('if amount > 100:\n    return "high"\nreturn "low"', 'if amount > 100 {\n    return "high"\n}\nreturn "low"'),
        (
            'if amount > 100:  # big\n  r = "high"\nelif amount > 10:\n  r = "mid"\n\nelse:\n  r = "low"\nreturn r',
            'if amount > 100 {  # big\n  r = "high"\n} else if amount > 10 {\n  r = "mid"\n} else {\n  r = "low"\n}\nreturn r',
        ),
        (  # nested: the inner block is the next round's
            "if amount > 1:\n  if amount > 2:\n    return 2\n  return 1\nreturn 0",
            "if amount > 1 {\n  if amount > 2 {\n    return 2\n  }\n  return 1\n}\nreturn 0",
        ),
    ],
)
def test_a_python_block_whose_indentation_says_where_it_ends_gets_braces(broken, meant):
    assert repaired(broken) == meant
    for amount in (0, 1.5, 5, 50, 500):
        assert toolkiln.compile(repaired(broken)).run({"amount": amount}) == toolkiln.compile(meant).run(
            {"amount": amount}
        )


@pytest.mark.parametrize(
    "text",
    [
        "if amount > 1: return 1\nreturn 0",  # the body on the header's line
        "if amount > 1:\n    t = max(amount,\n1)\n    return t\nreturn 0",  # a bracket open across the dedent
        "if amount > 1:\nreturn 1",  # no indented body
        "  if amount > 1:\n\t  return 1\n  return 0",  # tabs against spaces
    ],
)
def test_a_python_block_with_another_reading_gets_a_hint_only(text):
    error = next(d for d in toolkiln.check(text) if d.is_error)
    assert error.code == "E0101" and error.hint and error.fix is None
