"""The OpenAI Agents SDK against a real HTTP server on 127.0.0.1 speaking OpenAI's API: with
`LiveTools` as the agent's hooks, a tool the model creates through the meta-tool in one turn
is sent, and runs, in the next; the agent's own tools stay; tracing sends nothing anywhere."""

from __future__ import annotations

import json

from agents import function_tool
from unit.integrations.drivers import OpenAIAgents
from unit.integrations.framework_support import TRIPLE
from unit.llm.fake_llm_server import Calls, FakeLLMServer, Text

from toolkiln.diagnostics import codes
from toolkiln.integrations.openai_agents import LiveTools


@function_tool
def today() -> str:
    """The agent's own tool, beside the registry's."""
    return "2026-11-29"


def test_a_tool_created_in_one_turn_is_sent_and_runs_in_the_next(registry):
    with FakeLLMServer() as server:
        server.script(
            Calls([("create_compute_tool", {"definition": TRIPLE})]), Calls([("triple", {"x": 1.5})]), Text("4.5")
        )
        run = OpenAIAgents.run(server, [today], hooks=LiveTools(registry, include_meta=True))
        sent = [{tool["function"]["name"] for tool in seen.body["tools"]} for seen in server.seen]
    assert "triple" not in sent[0] and "triple" in sent[1] and all({"today", "price"} <= names for names in sent)
    created, ran = [item.output for item in run.new_items if type(item).__name__ == "ToolCallOutputItem"]
    assert json.loads(created)["ok"] is True and ran == '{"ok": true, "result": 4.5}'
    assert run.final_output == "4.5" and registry.get("triple").created_by == "llm"


def test_arguments_that_are_not_json_come_back_as_data(registry):
    with FakeLLMServer() as server:
        server.script(Calls([("price", '{"x": 2')]), Text("sorry"))
        run = OpenAIAgents.run(server, [], hooks=LiveTools(registry))
    (output,) = [item.output for item in run.new_items if type(item).__name__ == "ToolCallOutputItem"]
    reply = json.loads(output)
    assert (
        reply["ok"] is False
        and reply["errors"][0]["code"] == codes.INVALID_REQUEST.code
        and "not JSON" in reply["message"]
    )
    assert registry.get("price").usage_count == 0
