"""LlamaIndex: an agent given `tool_retriever=retriever(registry)` reads the registry at every
step, so a tool the model creates through the meta-tool in one step is offered, and runs, in
the next; a `tools=` list stays as it was made, and a tool disabled since is refused as data."""

from __future__ import annotations

import asyncio
import json

from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage
from unit.integrations.drivers import LlamaIndex
from unit.integrations.framework_support import TRIPLE

from toolkiln.diagnostics import codes
from toolkiln.integrations.llamaindex import retriever, tools


def calling(name: str, arguments: dict) -> ChatMessage:
    return ChatMessage(
        role="assistant", blocks=[ToolCallBlock(tool_call_id=name, tool_name=name, tool_kwargs=arguments)]
    )


def test_a_tool_created_in_one_step_is_offered_by_the_retriever_and_runs_in_the_next(registry):
    offered_per_step = []

    def model(messages, **kwargs):
        offered_per_step.append({tool.metadata.name for tool in kwargs.get("tools") or []})
        step = len(offered_per_step)
        if step == 1:
            return calling("create_compute_tool", {"definition": TRIPLE})
        if step == 2:
            return calling("triple", {"x": 1.5})
        return ChatMessage(role="assistant", content="4.5")

    agent = {"tool_retriever": retriever(registry, include_meta=True)}
    created, ran = asyncio.run(LlamaIndex.run(model, None, **agent))
    assert "triple" not in offered_per_step[0] and "triple" in offered_per_step[1]
    assert json.loads(created.content)["ok"] is True and not created.is_error
    assert (ran.tool_name, ran.content, ran.is_error) == ("triple", '{"ok": true, "result": 4.5}', False)
    assert registry.get("triple").created_by == "llm"


def test_a_tool_disabled_after_the_list_was_made_is_refused_as_data(registry):
    (price,) = tools(registry)
    registry.disable("price")
    output = price.call(x=2)
    reply = json.loads(output.content)
    assert (reply["ok"], output.is_error) == (False, True)
    assert reply["errors"][0]["code"] == codes.TOOL_NOT_ACTIVE.code
    assert retriever(registry).retrieve("anything") == [] and registry.get("price").usage_count == 0
