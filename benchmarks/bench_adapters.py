"""What a call costs through each agent-framework adapter, against `reg.run` and `reg.invoke`.

    python benchmarks/bench_adapters.py [--rounds N]   (default 10)

One registry with `price` (x * 1.10). Rows, each the best of N rounds (a round measures every row
once, in turn), in microseconds a call:
  * `reg.run`: the fast path (no policy, no approval, raises);
  * `reg.invoke`: the one door every adapter goes through (policy, held calls, the Outcome);
  * `Calls.text`: the adapters' shared part (invoke, the reply, its JSON text with the digits);
  * per framework, a call through the framework's own invocation path with the framework's own
    bare function tool around `reg.run` (what a user would write by hand, skipping the door),
    then with toolkiln's tool (the Agents SDK also with `LiveTools`, as its docs show it), so
    the adapter's own share is the difference: the last column, the target of issue 30 (1.2x).
LangChain and LlamaIndex tools are invoked directly (`tool.invoke(tool_call)`, `tool.call`);
pydantic-ai and the OpenAI Agents SDK only call tools inside an agent run, so their rows are a
whole run with a scripted model that makes one call (tracing off, nothing leaves the machine).
A script, not a test; about a minute.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import timeit
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")

from toolkiln import Registry
from toolkiln.integrations.calls import Calls, offered
from toolkiln.registry.principals import LOCAL_MODEL
from toolkiln.semantics.values import to_json

PRICE = {
    "name": "price",
    "description": "The price with 10% tax",
    "parameters": {"x": {"type": "number", "description": "The net price"}},
    "logic": {"steps": [{"op": "return", "value": "x * 1.10"}]},
}
ARGS = {"x": 2}


def best_us(rows: list[tuple[str, Callable[[], Any], int]], rounds: int) -> list[tuple[str, float]]:
    """Each row's best round, in us a call. A round measures every row once, in turn, so a row
    and the row it is compared with see the same load (on a shared machine it changes by the
    second); the first round warms up and is dropped."""
    best = [float("inf")] * len(rows)
    for round_ in range(rounds + 1):
        for index, (_, call, number) in enumerate(rows):
            us = timeit.timeit(call, number=number) / number * 1e6
            best[index] = min(best[index], us) if round_ else best[index]
    return [(name, us) for (name, _, _), us in zip(rows, best, strict=True)]


def by_hand(reg: Registry) -> Callable[..., str]:
    """The bare function a user would wrap in a framework's tool: reg.run, as JSON."""

    def price(x: float) -> str:
        return to_json(reg.run("price", {"x": x}), exact=True)

    return price


def langchain_rows(reg: Registry) -> list[tuple[str, Callable[[], Any], int]]:
    from langchain_core.tools import StructuredTool

    from toolkiln.integrations.langchain import tools

    (ours,) = tools(reg)
    bare = StructuredTool.from_function(by_hand(reg), name="price", description="bare")
    call = {"type": "tool_call", "id": "c1", "name": "price", "args": ARGS}
    return [
        ("LangChain: bare StructuredTool around reg.run", lambda: bare.invoke(call), 500),
        ("LangChain: toolkiln's StructuredTool", lambda: ours.invoke(call), 500),
    ]


def llamaindex_rows(reg: Registry) -> list[tuple[str, Callable[[], Any], int]]:
    from llama_index.core.tools import FunctionTool

    from toolkiln.integrations.llamaindex import tools

    (ours,) = tools(reg)
    bare = FunctionTool.from_defaults(by_hand(reg), name="price", description="bare")
    return [
        ("LlamaIndex: bare FunctionTool around reg.run", lambda: bare.call(**ARGS), 1000),
        ("LlamaIndex: toolkiln's FunctionTool", lambda: ours.call(**ARGS), 1000),
    ]


def pydantic_ai_rows(reg: Registry) -> list[tuple[str, Callable[[], Any], int]]:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.toolsets import FunctionToolset

    from toolkiln.integrations.pydantic_ai import RegistryToolset

    def model(messages: list[Any], info: Any) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("price", ARGS)])
        return ModelResponse(parts=[TextPart("done")])

    bare = Agent(FunctionModel(model), toolsets=[FunctionToolset([by_hand(reg)])])
    ours = Agent(FunctionModel(model), toolsets=[RegistryToolset(reg)])
    return [
        ("pydantic-ai: a run, bare function tool around reg.run", lambda: bare.run_sync("go"), 30),
        ("pydantic-ai: a run, toolkiln's toolset", lambda: ours.run_sync("go"), 30),
    ]


def openai_agents_rows(reg: Registry) -> list[tuple[str, Callable[[], Any], int]]:
    from agents import Agent, ModelResponse, RunConfig, Runner, Usage, function_tool
    from agents.models.interface import Model
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    from toolkiln.integrations.openai_agents import LiveTools, tools

    class OneCall(Model):
        async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
            if any(isinstance(item, dict) and item.get("type") == "function_call_output" for item in input):
                text = ResponseOutputText(type="output_text", text="done", annotations=[])
                said: Any = ResponseOutputMessage(
                    id="m", type="message", role="assistant", status="completed", content=[text]
                )
            else:
                said = ResponseFunctionToolCall(
                    type="function_call", call_id="c", name="price", arguments=json.dumps(ARGS)
                )
            return ModelResponse(output=[said], usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    config = RunConfig(tracing_disabled=True)
    bare = Agent(name="bare", model=OneCall(), tools=[function_tool(by_hand(reg))])
    ours = Agent(name="ours", model=OneCall(), tools=tools(reg))
    live = Agent(name="live", model=OneCall(), tools=tools(reg), hooks=LiveTools(reg))
    return [
        (
            "OpenAI Agents SDK: a run, bare function_tool around reg.run",
            lambda: Runner.run_sync(bare, "go", run_config=config),
            30,
        ),
        (
            "OpenAI Agents SDK: a run, toolkiln's FunctionTool",
            lambda: Runner.run_sync(ours, "go", run_config=config),
            30,
        ),
        (
            "OpenAI Agents SDK: a run, toolkiln's FunctionTool and LiveTools",
            lambda: Runner.run_sync(live, "go", run_config=config),
            30,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    rounds = parser.parse_args().rounds
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder, Registry(Path(folder) / "reg", durable=False) as reg:
        reg.create(PRICE)
        (tool,) = offered(reg)
        calls = Calls(reg)
        rows = [
            ("reg.run", lambda: reg.run("price", ARGS), 10000),
            ("reg.invoke (the one door)", lambda: reg.invoke("price", ARGS, principal=LOCAL_MODEL), 3000),
            ("Calls.text (invoke, reply, JSON: every adapter)", lambda: calls.text(tool, ARGS), 3000),
        ]
        for more in (langchain_rows, llamaindex_rows, pydantic_ai_rows, openai_agents_rows):
            rows += more(reg)
        measured = best_us(rows, rounds)
    run_us = measured[0][1]
    invoke_us = measured[1][1]
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    loads = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    print(f"{when}, python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, {loads}")
    print(f"best of {rounds} rounds\n")
    print("| path | us a call | x reg.run | x reg.invoke | x the framework's bare tool |")
    print("| --- | ---: | ---: | ---: | ---: |")
    bare = None
    for name, us in measured:
        if " bare " in name:  # (each framework's rows: its bare tool first, then toolkiln's)
            bare = us
        against_bare = f"{us / bare:.2f}" if bare and " bare " not in name else ""
        print(f"| {name} | {us:,.1f} | {us / run_us:.1f} | {us / invoke_us:.2f} | {against_bare} |")


if __name__ == "__main__":
    main()
