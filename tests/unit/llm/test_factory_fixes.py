"""The factory applies the certain fixes of a compute definition before it re-asks: a
mistake a fix repairs costs no model call, the attempt and the audit note name each fix,
and a re-ask for what remains shows the model the repaired definition and the fixes."""

import copy
import json

import pytest

from toolkiln import Registry
from toolkiln.llm import ScriptedClient
from toolkiln.llm.factory import Factory
from toolkiln.llm.prompts import COMPUTE_EXAMPLE

DESCRIPTION = "Shipping cost of a parcel: 5 plus 2.50 per kg, free from 100 of order value"


@pytest.fixture
def registry(tmp_path):
    with Registry(tmp_path / "reg", durable=False) as reg:
        yield reg


def with_js_habits(expect_first=10):
    """The shipping example as a model with JavaScript habits writes it."""
    definition = copy.deepcopy(COMPUTE_EXAMPLE)
    definition["logic"]["steps"][0]["if"] = "order_value >= 100 && weight_kg !== 0"
    definition["logic"]["steps"][1]["expression"] = "Math.abs(round(5 + weight_kg * 2.5, 2))"
    definition["examples"][0]["expect"] = expect_first
    return f"Here it is:\n```json\n{json.dumps(definition, indent=2)}\n```\n"


def test_certain_fixes_save_the_tool_without_a_second_model_call(registry):
    client = ScriptedClient([with_js_habits()] * 3)
    result = Factory(client, registry).create_compute(DESCRIPTION)

    assert result.ok and len(result.attempts) == 1 and len(client.requests) == 1
    fixes = [r.message for r in result.attempts[0].repairs if r.kind == "fix"]
    assert fixes == [
        "`&&` -> `and` at logic.steps[0].if",
        "`Math.abs` -> `abs` at logic.steps[1].expression",
        "`!==` -> `!=` at logic.steps[0].if",  # found once the first round's check parses further
    ]
    assert '"if": "order_value >= 100 and weight_kg != 0"' in result.attempts[0].source
    assert registry.run("shipping_cost", {"weight_kg": 2}) == 10
    (entry,) = registry.audit_log()
    assert "1 attempt(s); applied 3 fixes: `&&` -> `and` at logic.steps[0].if, " in entry.note


def test_the_reask_shows_the_repaired_definition_and_the_fixes_applied(registry):
    client = ScriptedClient([with_js_habits(expect_first=11), with_js_habits()])
    result = Factory(client, registry).create_compute(DESCRIPTION)

    assert result.ok and [[d.code for d in a.diagnostics] for a in result.attempts] == [["E0611"], []]
    answer, problems = (m.text for m in client.requests[1].messages[-2:])
    assert "&&" not in answer and "Math.abs" not in answer and "weight_kg != 0" in answer
    assert "These certain fixes were applied to it already: `&&` -> `and` at logic.steps[0].if;" in problems
    assert '"E0611"' in problems and "E0101" not in problems


def test_a_text_definition_is_repaired_too(registry):
    text = (
        'tool double(x: number)\ndescription "Double"\n{\n  if x > 0 && x < 10 {\n    return x * 2\n  }\n  return 0\n}'
    )
    client = ScriptedClient([f"```\n{text}\n```"])
    result = Factory(client, registry, max_attempts=1).create_compute("double a small number")

    (attempt,) = result.attempts
    assert [r.message for r in attempt.repairs if r.kind == "fix"] == ["`&&` -> `and` at line 4, column 12"]
    assert "if x > 0 and x < 10 {" in attempt.source
    assert [d.code for d in attempt.diagnostics] == ["E0606"]  # the text DSL has no examples


def test_a_mistake_with_no_certain_fix_still_goes_back_to_the_model(registry):
    wrong = with_js_habits().replace("Math.abs(", "Math.hypot(")
    client = ScriptedClient([wrong, with_js_habits()])
    result = Factory(client, registry).create_compute(DESCRIPTION)

    assert result.ok and len(client.requests) == 2
    assert "Math.hypot" in result.attempts[0].source  # no guess was made for it


def test_the_type_checks_fixes_apply_to_a_definition_with_examples(registry):
    # The examples are not part of the program: checked with them, the definition was E0109
    # and the type check's fixes (`.length` on a text -> len) never came.
    definition = {
        "name": "code_length",
        "description": "Length of a code",
        "parameters": {"code": {"type": "string"}},
        "logic": {"steps": [{"op": "return", "value": "code.length"}]},
        "examples": [{"args": {"code": c}, "expect": len(c)} for c in ("", "ab", "abcde")],
    }
    client = ScriptedClient([f"```json\n{json.dumps(definition, indent=2)}\n```"] * 3)
    result = Factory(client, registry).create_compute("length of a code")
    assert result.ok and len(client.requests) == 1
    assert registry.run("code_length", {"code": "abc"}) == 3
