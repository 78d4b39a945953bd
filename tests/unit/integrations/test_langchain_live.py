"""LangChain: a run driven by langchain-core's own fake chat model, the tools read again each
turn (as docs/frameworks.md says to): a tool the model creates through the meta-tool in one
turn is offered, and runs, in the next; a list kept from before a tool was disabled gets the
refusal as data."""

from __future__ import annotations

import json

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from unit.integrations.framework_support import TRIPLE

from toolkiln.diagnostics import codes
from toolkiln.integrations.langchain import tools


def said(name: str, arguments: dict, call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": arguments, "id": call_id, "type": "tool_call"}])


def test_a_tool_created_in_one_turn_is_offered_and_runs_in_the_next(registry):
    model = GenericFakeChatModel(
        messages=iter(
            [
                said("create_compute_tool", {"definition": TRIPLE}, "c1"),
                said("triple", {"x": 1.5}, "c2"),
                AIMessage(content="4.5"),
            ]
        )
    )
    history, offered_per_turn = [HumanMessage("Triple 1.5")], []
    for _turn in range(5):
        offered = {tool.name: tool for tool in tools(registry, include_meta=True)}
        offered_per_turn.append(set(offered))
        reply = model.invoke(history)
        history.append(reply)
        if not reply.tool_calls:
            break
        history += [offered[call["name"]].invoke(call) for call in reply.tool_calls]
    assert "triple" not in offered_per_turn[0] and "triple" in offered_per_turn[1]
    created, ran = [m for m in history if isinstance(m, ToolMessage)]
    assert json.loads(created.content)["ok"] is True and created.status == "success"
    assert (ran.tool_call_id, ran.content, ran.status) == ("c2", '{"ok": true, "result": 4.5}', "success")
    assert registry.get("triple").created_by == "llm" and history[-1].content == "4.5"


def test_a_tool_disabled_after_the_list_was_made_is_refused_as_data(registry):
    (price,) = tools(registry)
    registry.disable("price")
    message = price.invoke({"type": "tool_call", "id": "c1", "name": "price", "args": {"x": 2}})
    reply = json.loads(message.content)
    assert (reply["ok"], message.status) == (False, "error")
    assert reply["errors"][0]["code"] == codes.TOOL_NOT_ACTIVE.code and "disabled" in reply["message"]
    assert tools(registry) == [] and registry.get("price").usage_count == 0
