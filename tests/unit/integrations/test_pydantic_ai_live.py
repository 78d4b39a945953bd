"""pydantic-ai: the toolset is read at every step of a run, so a tool the model creates through
the meta-tool in one step is offered, and runs, in the next; a failure is pydantic-ai's failed
tool return (ToolFailed), which spends no retries and does not end the run."""

from __future__ import annotations

import asyncio
import json

from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.test import TestModel
from unit.integrations.framework_support import TRIPLE

from toolkiln import Registry
from toolkiln.integrations.pydantic_ai import RegistryToolset
from toolkiln.registry import hot_door
from toolkiln.registry.changes import WATCH_SECONDS


def returns(run) -> list[ToolReturnPart]:
    return [part for message in run.all_messages() for part in message.parts if isinstance(part, ToolReturnPart)]


def test_a_tool_created_in_one_step_is_offered_and_runs_in_the_next(registry):
    offered_per_step = []

    def model(messages, info):
        offered_per_step.append({tool.name for tool in info.function_tools})
        step = len(offered_per_step)
        if step == 1:
            return ModelResponse(parts=[ToolCallPart("create_compute_tool", {"definition": TRIPLE}, tool_call_id="c1")])
        if step == 2:
            return ModelResponse(parts=[ToolCallPart("triple", {"x": 1.5}, tool_call_id="c2")])
        return ModelResponse(parts=[TextPart("4.5")])

    run = Agent(FunctionModel(model), toolsets=[RegistryToolset(registry, include_meta=True)]).run_sync("Triple 1.5")
    assert "triple" not in offered_per_step[0] and "triple" in offered_per_step[1]
    created, ran = returns(run)
    assert json.loads(created.content)["ok"] is True
    assert (ran.tool_call_id, ran.content, ran.outcome) == ("c2", '{"ok": true, "result": 4.5}', "success")
    assert run.output == "4.5" and registry.get("triple").created_by == "llm"


def test_failures_spend_no_retries_and_the_run_goes_on(registry):
    calls = iter([{"x": "one"}, {"x": "two"}, {"x": "three"}, {"x": 2}])

    def model(messages, info):
        arguments = next(calls, None)
        if arguments is None:
            return ModelResponse(parts=[TextPart("2.20")])
        return ModelResponse(parts=[ToolCallPart("price", arguments)])

    run = Agent(FunctionModel(model), toolsets=[RegistryToolset(registry)]).run_sync("price 2")
    assert [part.outcome for part in returns(run)] == ["failed", "failed", "failed", "success"]
    assert run.output == "2.20" and registry.get("price").usage_count == 4


def test_pydantic_ais_test_model_calls_every_tool_with_arguments_from_the_schema(registry):
    run = Agent(TestModel(), toolsets=[RegistryToolset(registry)]).run_sync("go")
    (returned,) = returns(run)
    assert (returned.tool_name, returned.outcome) == ("price", "success")
    assert json.loads(returned.content)["ok"] is True and registry.get("price").usage_count == 1


def test_the_toolset_reads_the_registry_again_only_when_it_may_have_changed(registry, monkeypatch):
    """pydantic-ai asks for the tools at every step; the registry is read (in a worker thread)
    only when a change may have happened since the last read: any change through toolkiln at
    once, a hand edit of the folder after the watch interval."""
    now = [100.0]
    monkeypatch.setattr(hot_door, "_monotonic", lambda: now[0])
    toolset = RegistryToolset(registry)
    reads = []
    read = toolset._offered
    monkeypatch.setattr(toolset, "_offered", lambda: reads.append(1) or read())

    def names() -> set[str]:
        return set(asyncio.run(toolset.get_tools(None)))  # type: ignore[arg-type]

    assert [names() for _ in range(3)] == [{"price"}] * 3 and len(reads) == 1
    with Registry(registry.location) as other:  # (another process's change: the counter moves)
        other.create(TRIPLE)
    assert names() == {"price", "triple"} and len(reads) == 2
    now[0] += 2 * WATCH_SECONDS  # (what the folder's files say now is looked at again)
    assert names() == {"price", "triple"} and len(reads) == 3
