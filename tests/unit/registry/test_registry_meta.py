"""Meta-tools: what a model sends, right and wrong, and what it gets back."""

import json
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkiln.registry import Registry

ERROR_KEYS = {
    "code",
    "name",
    "severity",
    "message",
    "file",
    "path",
    "line",
    "column",
    "end_line",
    "end_column",
    "in_file",
    "hint",
    "source",
    "input",
    "expected",
    "fix",
}


def failed(reply):
    assert reply["ok"] is False and reply["errors"] and reply["message"]
    for error in reply["errors"]:
        assert set(error) == ERROR_KEYS and error["code"] and error["message"], error
    json.dumps(reply)  # a reply is always plain JSON
    return reply["errors"]


def test_create_a_tool_and_see_it_at_once(reg, make_def):
    reply = reg.call_meta("create_compute_tool", {"definition": make_def()})
    assert reply["ok"] is True and "active" in reply["message"]
    assert reply["tool"]["name"] == "double" and reply["tool"]["created_by"] == "llm"
    assert reply["tool"]["parameters"]["required"] == ["x"]
    assert [d["name"] for d in reg.definitions("anthropic")] == ["double"]
    assert reg.run("double", {"x": 5}) == 10


def test_arguments_as_json_text_and_a_definition_as_text(reg, make_def):
    reply = reg.call_meta("create_compute_tool", json.dumps({"definition": json.dumps(make_def())}))
    assert reply["ok"] is True
    reply = reg.call_meta(
        "create_compute_tool", {"definition": 'tool halve(x: number)\ndescription "Halves"\n{\n  return x / 2\n}\n'}
    )
    assert reply["ok"] is True and reg.run("halve", {"x": 3}) == 1.5


def test_the_definitions_fields_directly_as_arguments(reg, make_def):
    assert reg.call_meta("create_compute_tool", make_def())["ok"] is True


def test_every_compile_error_comes_back_with_location_and_hint(reg, make_def):
    definition = make_def()
    definition["logic"]["steps"] = [{"op": "math", "expresion": "x * 2", "output": "r"}, {"op": "retrun", "value": "r"}]
    errors = failed(reg.call_meta("create_compute_tool", {"definition": definition}))
    found = {(e["code"], e["path"]) for e in errors}
    assert ("E0107", "logic.steps[1].op") in found
    assert any(e["code"] in ("E0108", "E0109") and e["path"].startswith("logic.steps[0]") for e in errors)
    assert all(e["hint"] for e in errors)
    assert len(reg) == 0


def test_type_errors_carry_line_and_column_inside_the_expression(reg, make_def):
    definition = make_def(expression='x * "two"')
    (error,) = failed(reg.call_meta("test_custom_tool", {"definition": definition, "args": {"x": 1}}))
    assert error["code"] == "E0301" and error["path"] == "logic.steps[0].expression"
    assert error["line"] == 1 and error["column"] >= 1 and error["hint"]


def test_test_custom_tool_runs_without_saving(reg, make_def):
    reply = reg.call_meta("test_custom_tool", {"definition": make_def(expression="x / 3"), "args": {"x": 1}})
    assert reply["ok"] is True and reply["result"] == Decimal(1) / 3 and reply["result_type"] == "number"
    assert reply["parameters"]["properties"]["x"]["type"] == "number"
    reply = reg.call_meta("test_custom_tool", {"definition": make_def(), "args": '{"x": 4}'})
    assert reply["result"] == 8
    reply = reg.call_meta("test_custom_tool", {"definition": make_def()})
    assert reply["ok"] is True and "result" not in reply and "args" in reply["message"]
    assert len(reg) == 0 and reg.audit_log() == []


def test_run_errors_of_a_dry_run(reg, make_def):
    (error,) = failed(
        reg.call_meta("test_custom_tool", {"definition": make_def(expression="10 / x"), "args": {"x": 0}})
    )
    assert (error["code"], error["name"], error["path"]) == ("E0501", "division-by-zero", "logic.steps[0].expression")
    (error,) = failed(reg.call_meta("test_custom_tool", {"definition": make_def(), "args": {"y": 1}}))
    assert error["code"] == "E0508" and error["hint"]


def test_duplicates_and_updates(reg, make_def):
    reg.call_meta("create_compute_tool", {"definition": make_def()})
    (error,) = failed(reg.call_meta("create_compute_tool", {"definition": make_def(expression="x * 3")}))
    assert error["name"] == "duplicate-tool" and "update: true" in error["hint"]
    reply = reg.call_meta("create_compute_tool", {"definition": make_def(expression="x * 3"), "update": True})
    assert reply["ok"] is True and reply["tool"]["version"] == 2 and reg.run("double", {"x": 1}) == 3


def test_high_risk_tools_wait_for_approval(reg, make_def):
    reply = reg.call_meta("create_compute_tool", {"definition": make_def(risk="high")})
    assert reply["ok"] is True and "approve" in reply["message"] and reply["tool"]["status"] == "pending_approval"
    assert reg.definitions("openai") == []
    (error,) = failed(reg.call_meta("toggle_custom_tool", {"name": "double", "enabled": True}))
    assert error["name"] == "invalid-transition"


def test_list_custom_tools(reg, make_def):
    reg.create(make_def("a"))
    reg.call_meta("create_compute_tool", {"definition": make_def("b", risk="high")})
    reply = reg.call_meta("list_custom_tools", {})
    assert reply["count"] == 2 and [t["name"] for t in reply["tools"]] == ["a", "b"]
    assert reg.call_meta("list_custom_tools", None)["count"] == 2
    assert [t["name"] for t in reg.call_meta("list_custom_tools", {"status": "pending_approval"})["tools"]] == ["b"]
    (error,) = failed(reg.call_meta("list_custom_tools", {"status": "enabled"}))
    assert "active" in error["hint"]


def test_delete_needs_confirm_and_respects_who_created_it(reg, make_def):
    reg.create(make_def("users_tool"))
    reg.call_meta("create_compute_tool", {"definition": make_def("mine")})
    (error,) = failed(reg.call_meta("delete_custom_tool", {"name": "mine", "confirm": False}))
    assert error["path"] == "confirm" and "confirm" in error["message"]
    (error,) = failed(reg.call_meta("delete_custom_tool", {"name": "mine"}))
    assert error["message"].startswith("missing argument `confirm`")
    (error,) = failed(reg.call_meta("delete_custom_tool", {"name": "mine", "confirm": "yes"}))
    assert "must be true" in error["message"]
    (error,) = failed(reg.call_meta("delete_custom_tool", {"name": "users_tool", "confirm": True}))
    assert error["name"] == "permission-denied"
    assert reg.call_meta("delete_custom_tool", {"name": "mine", "confirm": True})["ok"] is True
    assert [r.name for r in reg.list()] == ["users_tool"]
    (error,) = failed(reg.call_meta("delete_custom_tool", {"name": "mine", "confirm": True}))
    assert error["name"] == "tool-not-found"


def test_toggle_is_idempotent(reg, make_def):
    reg.call_meta("create_compute_tool", {"definition": make_def()})
    assert reg.call_meta("toggle_custom_tool", {"name": "double", "enabled": False})["tool"]["status"] == "disabled"
    reply = reg.call_meta("toggle_custom_tool", {"name": "double", "enabled": False})
    assert reply["ok"] is True and "already" in reply["message"]
    assert reg.call_meta("toggle_custom_tool", {"name": "double", "enabled": True})["tool"]["status"] == "active"


def test_a_model_cannot_toggle_a_persons_tool_but_a_person_can(reg, make_def):
    reg.create(make_def())
    (error,) = failed(reg.call_meta("toggle_custom_tool", {"name": "double", "enabled": False}))
    assert error["name"] == "permission-denied"
    assert reg.call_meta("toggle_custom_tool", {"name": "double", "enabled": False}, created_by="user")["ok"]


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("create_compute_tool", "{not json", "not valid JSON"),
        ("create_compute_tool", [1, 2], "must be a JSON object"),
        ("create_compute_tool", {}, "missing argument `definition`"),
        ("create_compute_tool", {"definition": 3}, "must be the tool definition"),
        ("create_compute_tool", {"definition": {}, "colour": 1}, "unknown argument `colour`"),
        (
            "create_compute_tool",
            {"definition": {"name": "../etc", "description": "d", "logic": {"steps": []}}},
            "not a valid name",
        ),
        (
            "create_compute_tool",
            {
                "definition": {
                    "name": "list_custom_tools",
                    "description": "d",
                    "logic": {"steps": [{"op": "return", "value": "1"}]},
                }
            },
            "meta-tool",
        ),
        ("create_compute_tool", {"definition": "tool f(x: number) description"}, ""),
        ("create_workflow_tool", {}, "missing argument `workflow`"),
        (
            "create_workflow_tool",
            {"name": "w", "description": "d", "workflow": {"steps": []}},
            "must be the workflow DSL",
        ),
        (
            "create_workflow_tool",
            {"name": "w", "description": "d", "workflow": "x", "parameters": "{"},
            "not valid JSON",
        ),
        (
            "create_workflow_tool",
            {"name": "w", "description": "d", "workflow": "x", "definition": {}},
            "unknown argument `definition`",
        ),
        ("list_custom_tool", {}, "no meta-tool"),
        (None, {}, "no meta-tool"),
        ("toggle_custom_tool", {"name": "x", "enabled": "yes"}, "must be true or false"),
        ("toggle_custom_tool", {"name": "a/b", "enabled": True}, "not a valid tool name"),
        ("delete_custom_tool", {"name": 5, "confirm": True}, "must be the tool's name"),
        ("test_custom_tool", {"definition": {}, "args": [1]}, "must be an object of arguments"),
        ("test_custom_tool", {"definition": {}, "args": "{"}, ""),
    ],
)
def test_bad_model_input_never_raises(reg, name, args, expected):
    errors = failed(reg.call_meta(name, args))
    assert any(expected in e["message"] for e in errors), errors


def test_unknown_arguments_get_a_suggestion(reg, make_def):
    unknown, missing = failed(reg.call_meta("toggle_custom_tool", {"name": "double", "enable": True}))
    assert (unknown["message"], unknown["hint"]) == ("unknown argument `enable`", "did you mean `enabled`?")
    assert missing["message"].startswith("missing argument `enabled`")


def test_every_problem_of_the_arguments_at_once(reg):
    errors = failed(reg.call_meta("delete_custom_tool", {"nam": "x", "confirm": 1}))
    assert {e["path"] for e in errors} == {"nam", "name", "confirm"}


def test_a_bad_creator_is_an_error_reply(reg, make_def):
    (error,) = failed(reg.call_meta("create_compute_tool", {"definition": make_def()}, created_by="robot"))
    assert error["name"] == "invalid-request"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
NAMES = st.sampled_from(
    [
        "create_compute_tool",
        "create_workflow_tool",
        "list_custom_tools",
        "test_custom_tool",
        "delete_custom_tool",
        "toggle_custom_tool",
        "other",
    ]
)
KEYS = st.sampled_from(
    [
        "definition",
        "args",
        "name",
        "confirm",
        "enabled",
        "status",
        "update",
        "logic",
        "description",
        "workflow",
        "parameters",
        "riskLevel",
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES, args=st.dictionaries(KEYS, JSON, max_size=4) | JSON)
def test_fuzzed_calls_always_get_a_reply(tmp_path_factory, name, args):
    reg = FUZZ_REGISTRY.setdefault("reg", Registry(tmp_path_factory.mktemp("fuzz")))
    reply = reg.call_meta(name, args)
    assert reply["ok"] in (True, False)
    json.dumps(reply)
    if not reply["ok"]:
        failed(reply)


WORKFLOW = (
    'workflow w\ndescription "d"\non webhook POST "/w" respond with node\nset s { t = body.x * 2 }\nrespond r s\n'
)


@st.composite
def mangled_workflows(draw):
    """The working workflow with a slice replaced by random text: near misses of every kind."""
    start = draw(st.integers(0, len(WORKFLOW)))
    end = draw(st.integers(start, len(WORKFLOW)))
    return WORKFLOW[:start] + draw(st.text(alphabet='{}()[]"=,.*\n abcxyz019_/', max_size=6)) + WORKFLOW[end:]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    workflow=mangled_workflows(),
    parameters=st.dictionaries(st.sampled_from(["x", "y", "X"]), JSON, max_size=2) | JSON,
    risk=JSON,
)
def test_fuzzed_workflow_tools_always_get_a_reply(tmp_path_factory, workflow, parameters, risk):
    reg = FUZZ_REGISTRY.setdefault("reg", Registry(tmp_path_factory.mktemp("fuzz")))
    reply = reg.call_meta(
        "create_workflow_tool",
        {
            "name": "w",
            "description": "d",
            "workflow": workflow,
            "parameters": parameters,
            "riskLevel": risk,
            "update": True,
        },
    )
    json.dumps(reply)
    if reply["ok"]:
        assert reply["tool"]["status"] == "pending_approval"  # nothing a model makes deploys by itself
    else:
        failed(reply)


FUZZ_REGISTRY: dict = {}
