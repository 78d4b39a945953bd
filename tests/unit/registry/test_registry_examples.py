"""Examples in tool definitions: run before every save (create, update, rollback), whoever
creates the tool; a failing example is a diagnostic with the arguments, the expected and the
actual value, and nothing is written."""

import json

import pytest
from unit.registry.stores import put_table

from toolkiln import Registry
from toolkiln.errors import CompileError
from toolkiln.registry.examples import MAX_EXAMPLES

EXAMPLES = [{"args": {"x": 1}, "expect": 2}, {"args": {"x": 2.5}, "expect": 5.0}, {"args": {"x": 0}, "expect": 0}]


def _with_examples(make_def, examples, **kwargs):
    return {**make_def(**kwargs), "examples": examples}


def _codes(error):
    return [(d.code, d.span.path if d.span else None) for d in error.value.diagnostics]


@pytest.mark.parametrize("created_by", ["user", "llm"])
def test_passing_examples_are_stored_with_the_definition(reg, make_def, created_by):
    record = reg.create(_with_examples(make_def, EXAMPLES), created_by=created_by)
    assert record.definition["examples"] == EXAMPLES
    assert reg.run("double", {"x": 4}) == 8
    reopened = Registry(reg.location)
    assert reopened.get("double").definition["examples"] == EXAMPLES
    assert not reopened.problems


@pytest.mark.parametrize("created_by", ["user", "llm"])
def test_a_failing_example_is_a_diagnostic_and_nothing_is_written(reg, make_def, created_by):
    bad = [*EXAMPLES, {"args": {"x": 3}, "expect": 7}]
    with pytest.raises(CompileError) as error:
        reg.create(_with_examples(make_def, bad), created_by=created_by)
    (diagnostic,) = error.value.diagnostics
    assert diagnostic.code == "E0611"
    assert diagnostic.span.path == "examples[3].expect"
    assert diagnostic.message == 'example 4: with args {"x": 3} expected 7, got 6'
    assert "double" not in reg
    assert reg.audit_log() == []


def test_an_example_whose_run_fails_names_the_run_error(reg, make_def):
    definition = _with_examples(make_def, [{"args": {"x": 0}, "expect": 1}], expression="1 / x")
    with pytest.raises(CompileError) as error:
        reg.create(definition)
    (diagnostic,) = error.value.diagnostics
    assert diagnostic.code == "E0612"
    assert "[E0501]" in diagnostic.message and '{"x": 0}' in diagnostic.message


def test_an_example_with_a_wrong_argument_fails_as_a_run(reg, make_def):
    with pytest.raises(CompileError) as error:
        reg.create(_with_examples(make_def, [{"args": {"y": 1}, "expect": 2}]))
    assert _codes(error) == [("E0612", "examples[0].args")]


@pytest.mark.parametrize(
    ("examples", "expected"),
    [
        ({"args": {}, "expect": 1}, [("E0610", "examples")]),
        ([1], [("E0610", "examples[0]")]),
        ([{"input": {"x": 1}, "output": 2}], [("E0610", "examples[0]")]),
        ([{"args": [1], "expect": 2}], [("E0610", "examples[0].args")]),
        ([{"args": {"x": 1}, "expect": 2}] * (MAX_EXAMPLES + 1), [("E0610", "examples")]),
        ([{"args": {"x": 1}, "now": "2026-01-31", "expect": 2}], [("E0610", "examples[0].now")]),
    ],
    ids=["not-a-list", "not-an-object", "wrong-keys", "args-not-an-object", "too-many", "now-not-a-datetime"],
)
def test_malformed_examples(reg, make_def, examples, expected):
    with pytest.raises(CompileError) as error:
        reg.create(_with_examples(make_def, examples))
    assert _codes(error) == expected


def test_malformed_examples_are_reported_with_the_compile_errors(reg, make_def):
    definition = _with_examples(make_def, [{"args": {"x": 1}}], expression="x * ")
    with pytest.raises(CompileError) as error:
        reg.create(definition)
    assert {code for code, _ in _codes(error)} == {"E0101", "E0610"}


def test_examples_in_json_text(reg, make_def):
    text = json.dumps(_with_examples(make_def, EXAMPLES))
    assert reg.create(text).definition["examples"] == EXAMPLES


def test_examples_from_a_json_file(reg, make_def, tmp_path):
    path = tmp_path / "triple.json"
    path.write_text(json.dumps(_with_examples(make_def, [{"args": {"x": 1}, "expect": 3}], name="triple")))
    with pytest.raises(CompileError) as error:
        reg.create(path)
    assert _codes(error) == [("E0611", "examples[0].expect")]


def test_update_reruns_the_stored_examples_against_new_logic(reg, make_def):
    reg.create(_with_examples(make_def, EXAMPLES))
    with pytest.raises(CompileError) as error:
        reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    assert [code for code, _ in _codes(error)] == ["E0611", "E0611"]  # x=0 still holds
    assert reg.get("double").version == 1
    updated = reg.update("double", {"examples": [{"args": {"x": 5}, "expect": 10}]})
    assert updated.version == 2 and updated.definition["examples"] == [{"args": {"x": 5}, "expect": 10}]
    assert "examples" not in reg.update("double", {"examples": None}).definition


def test_rollback_reruns_examples_with_todays_tables(reg, make_def):
    lookup = {
        "name": "rate",
        "description": "A rate",
        "parameters": {"zone": {"type": "string"}},
        "logic": {
            "steps": [
                {"op": "lookup", "table": "rates", "key": "zone", "default": 0, "output": "r"},
                {"op": "return", "value": "r"},
            ]
        },
    }
    put_table(reg, "rates.json", json.dumps({"rates": {"eu": 4}}))
    reg.create({**lookup, "examples": [{"args": {"zone": "eu"}, "expect": 4}]})
    reg.update("rate", {"examples": None})
    put_table(reg, "rates.json", json.dumps({"rates": {"eu": 5}}))
    with pytest.raises(CompileError) as error:
        reg.rollback("rate", 1)
    assert _codes(error) == [("E0611", "examples[0].expect")]
    assert reg.get("rate").version == 2


def test_workflow_tools_take_no_examples(reg):
    definition = {
        "kind": "workflow",
        "name": "hook",
        "description": "A webhook",
        "workflow": 'workflow hook\ndescription "d"\non webhook POST "/h"\nset a { x = 1 }\n',
        "examples": [{"args": {}, "expect": 1}],
    }
    with pytest.raises(CompileError) as error:
        reg.create(definition, created_by="llm")
    assert _codes(error) == [("E0610", "examples")]


def test_check_definition_runs_the_examples(reg, make_def):
    with pytest.raises(CompileError) as error:
        reg.check_definition(_with_examples(make_def, [{"args": {"x": 1}, "expect": 3}]))
    assert _codes(error) == [("E0611", "examples[0].expect")]


def test_the_meta_tool_reports_a_failing_example_to_the_model(reg, make_def):
    definition = _with_examples(make_def, [{"args": {"x": 1}, "expect": 3}])
    reply = reg.call_meta("create_compute_tool", {"definition": definition})
    assert reply["ok"] is False
    assert [e["code"] for e in reply["errors"]] == ["E0611"]
    assert "double" not in reg


def test_the_audit_entry_keeps_the_note(reg, make_def):
    reg.create(make_def(), note="from a description")
    assert reg.audit_log("double")[0].note == "from a description"


def test_an_example_of_a_tool_that_reads_the_clock_runs_at_its_now(reg):
    """`now` fixes what today() and now() read, so the example passes on any day; a date result
    is compared as its ISO text."""
    definition = {
        "name": "renewal",
        "description": "The renewal date a month from today",
        "parameters": {"months": {"type": "integer", "default": 1}},
        "logic": {"steps": [{"op": "return", "value": "add_months(today(), months)"}]},
        "examples": [
            {"args": {}, "now": "2026-01-31T09:00:00Z", "expect": "2026-02-28"},
            {"args": {"months": 12}, "now": "2024-02-29T23:30:00-01:00", "expect": "2025-03-01"},
        ],
    }
    assert reg.create(definition).definition["examples"] == definition["examples"]
    wrong = {
        **definition,
        "name": "renewal_two",
        "examples": [{"args": {}, "now": "2026-01-31T09:00:00Z", "expect": "2026-03-31"}],
    }
    with pytest.raises(CompileError) as error:
        reg.create(wrong)
    assert _codes(error) == [("E0611", "examples[0].expect")]
    assert 'got "2026-02-28"' in error.value.diagnostics[0].message
