"""A call held for a person's approval pauses the agent loops (native and prompted) and MCP,
which resume with its outcome: the run's result once approved, the denial with its reason as
data (R0731), never an exception."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from toolkiln import Registry
from toolkiln.llm import Reply, ScriptedClient, ToolCall, ToolResult, agent_loop
from toolkiln.llm.prompted import registry_tools
from toolkiln.registry.call_rules import CallRule
from toolkiln.registry.policy import Policy
from toolkiln.registry.principals import LOCAL_USER
from toolkiln.server.mcp_tools import call_tool, settle

DOUBLE = {
    "name": "double",
    "description": "Doubles x",
    "parameters": {"x": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "x * 2"}]},
}
MODELS_WAIT = Policy(call_rules=(CallRule.parse("principal=model"),))


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    with Registry(tmp_path / "r", policy=MODELS_WAIT, durable=False) as reg:
        reg.create(DOUBLE)
        yield reg


def a_person_decides(path: Path, *, approve: bool, reason: str | None = None) -> threading.Thread:
    """A person, in another registry on the folder (as a server would be), deciding the first
    call that waits."""

    def decide() -> None:
        with Registry(path, durable=False) as other:
            deadline = time.monotonic() + 30
            while not other.calls() and time.monotonic() < deadline:
                time.sleep(0.02)
            other.decide_call(other.calls()[0].id, approve=approve, by=LOCAL_USER, reason=reason)

    thread = threading.Thread(target=decide)
    thread.start()
    return thread


def tool_results(transcript) -> list[dict]:
    return [json.loads(message.content) for message in transcript if isinstance(message, ToolResult)]


def test_the_native_loop_pauses_until_approved_and_the_model_reads_the_result(registry: Registry) -> None:
    person = a_person_decides(registry.path, approve=True)
    client = ScriptedClient([Reply(tool_calls=[ToolCall("c1", "double", {"x": 21})]), "It is 42."])
    lines: list[str] = []
    result = agent_loop(client, "Double 21.", registry, include_meta=False, progress=lines.append)
    person.join()
    ((answer),) = tool_results(result.transcript)
    call = registry.calls("approved")[0].id
    assert (answer["ok"], answer["result"]) == (True, 42) and answer["call"] == call
    assert lines == [f"turn 1: double -> waiting for a person's approval of call {call} (toolkiln calls approve|deny)",
                     "turn 1: double -> ok"]  # fmt: skip
    assert result.answer == "It is 42."


def test_the_native_loop_gives_a_denial_to_the_model_as_data_with_the_reason(registry: Registry) -> None:
    person = a_person_decides(registry.path, approve=False, reason="ask finance first")
    client = ScriptedClient([Reply(tool_calls=[ToolCall("c1", "double", {"x": 21})]), "Sorry."])
    result = agent_loop(client, "Double 21.", registry, include_meta=False, conversation_id="support-17")
    person.join()
    ((answer),) = tool_results(result.transcript)
    assert registry.calls("denied")[0].conversation == "support-17"  # what the person saw
    assert answer["ok"] is False and answer["errors"][0]["code"] == "R0731"
    assert "ask finance first" in answer["message"] and result.answer == "Sorry."
    assert registry.get("double").usage_count == 0


def test_a_prompted_tool_pauses_until_approved(registry: Registry) -> None:
    (tool,) = registry_tools(registry)
    person = a_person_decides(registry.path, approve=True)
    ran = tool.run({"x": Decimal(4)})
    person.join()
    assert (ran.ok, ran.result) == (True, Decimal(8))


def test_mcp_answers_a_held_call_once_a_person_decided(registry: Registry) -> None:
    held = call_tool(registry, "double", {"x": 5})
    assert held.pending is not None and held.payload["errors"][0]["code"] == "R0730"
    assert settle(registry, held.pending, 0).pending == held.pending  # one look: the MCP server polls
    person = a_person_decides(registry.path, approve=True)
    settled = settle(registry, held.pending)
    person.join()
    assert (settled.is_error, settled.payload) == (False, {"ok": True, "result": 10, "call": held.pending})
