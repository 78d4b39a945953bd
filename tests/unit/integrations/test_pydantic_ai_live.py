"""pydantic-ai: the toolset is read at every step of a run, so a tool the model creates through
the meta-tool in one step is offered, and runs, in the next; a failure is pydantic-ai's failed
tool return (ToolFailed), which spends no retries and does not end the run."""

from __future__ import annotations

import json

from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.test import TestModel
from unit.integrations.framework_support import TRIPLE

from toolkiln.integrations.pydantic_ai import RegistryToolset


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
