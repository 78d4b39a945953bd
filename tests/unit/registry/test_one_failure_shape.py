"""One failure shape: MCP tool calls, the native and the prompted agent loops and the meta-tools
answer a failing call with the Outcome's reply: `Registry.invoke`'s errors, the same 16 keys
with a code and a hint, and one message."""

from __future__ import annotations

import json

import pytest
from unit.registry.stores import write_by_hand

from toolkiln.diagnostics import codes
from toolkiln.llm.agent import _outcome
from toolkiln.llm.messages import ToolCall
from toolkiln.llm.prompted.loop import _result
from toolkiln.llm.prompted.tools import registry_tools
from toolkiln.registry import Delete
from toolkiln.server.mcp_tools import call_tool


@pytest.fixture
def ready(reg, make_def):
    reg.create(make_def(expression="1 / x"))
    reg.create(make_def("waiting", risk="high"), created_by="llm")  # pending: not active
    write_by_hand(reg, "broken", "{not json")  # a record that does not load
    reg.refresh()
    return reg


FAILING = [
    ("double", {"x": 0}, [codes.DIVISION_BY_ZERO]),
    ("double", {"y": 1}, [codes.INVALID_ARGUMENT]),
    ("nope", {}, [codes.TOOL_NOT_FOUND]),
    ("waiting", {"x": 1}, [codes.TOOL_NOT_ACTIVE]),
    ("broken", {}, [codes.BROKEN_TOOL, codes.INVALID_JSON]),  # the refusal and the diagnostics it carries
]


@pytest.mark.parametrize(("name", "args", "found"), FAILING, ids=[found[0].name for *_, found in FAILING])
def test_mcp_and_the_agent_loop_answer_with_the_outcomes_errors(ready, name, args, found):
    expected = ready.invoke(name, args, principal="llm").error_dicts
    assert [e["code"] for e in expected] == [code.code for code in found]
    assert all(e["hint"] and len(e) == 16 for e in expected)
    reply = {"ok": False, "errors": expected, "message": ready.invoke(name, args, principal="llm").message}
    assert reply["message"].startswith(f"`{name}` failed")
    mcp = call_tool(ready, name, args)
    assert mcp.is_error and mcp.payload == reply
    agent = _outcome(ToolCall("c1", name, args), ready, [], "openai")
    assert agent == reply


@pytest.mark.parametrize(("name", "args", "found"), FAILING[:2], ids=["division", "arguments"])
def test_the_prompted_loop_feeds_back_the_same_reply(ready, name, args, found):
    (tool,) = [t for t in registry_tools(ready) if t.name == name]
    fed_back = _result(tool, args)
    assert fed_back.startswith("failed: ")
    reply = json.loads(fed_back.removeprefix("failed: "))
    assert reply == ready.invoke(name, args, principal="llm").reply()
    assert [e["code"] for e in reply["errors"]] == [code.code for code in found]


def test_the_meta_tools_fail_in_the_same_shape(ready):
    reply = ready.call_meta("delete_custom_tool", {"name": "double", "confirm": True}, created_by="llm")
    assert reply == ready.apply(Delete("double"), principal="llm").reply()  # a person's tool: refused
    assert [e["code"] for e in reply["errors"]] == [codes.PERMISSION_DENIED.code]
    unknown = ready.call_meta("delete_custom_tools", {})
    assert set(unknown) == {"ok", "errors", "message"} and unknown["errors"][0]["code"] == codes.INVALID_REQUEST.code
    assert all(len(e) == 16 and e["code"] and e["hint"] for e in [*reply["errors"], *unknown["errors"]])


def test_run_custom_tool_without_a_name_is_a_coded_error(ready):
    reply = call_tool(ready, "run_custom_tool", {"args": {}})
    assert reply.is_error and [e["code"] for e in reply.payload["errors"]] == [codes.INVALID_REQUEST.code]
    assert len(reply.payload["errors"][0]) == 16


def test_arguments_that_are_not_json_get_a_code_in_the_agent_loop(ready):
    call = ToolCall("c1", "double", {}, raw_arguments="{x: 1", arguments_error="Expecting property name")
    (error,) = _outcome(call, ready, [], "openai")["errors"]
    assert error["code"] == codes.INVALID_REQUEST.code and error["hint"] == "send a JSON object" and len(error) == 16


def test_a_success_is_the_result(ready):
    assert _outcome(ToolCall("c1", "double", {"x": 4}), ready, [], "openai")["result"] == ready.run("double", {"x": 4})
    assert call_tool(ready, "double", {"x": 4}).payload == {"ok": True, "result": 0.25}
    assert _result(next(t for t in registry_tools(ready) if t.name == "double"), {"x": 4}) == "0.25"
