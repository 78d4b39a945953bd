"""Registry tools as tools of the OpenAI Agents SDK (`FunctionTool`, package openai-agents).

    from agents import Agent, Runner
    from toolkiln.integrations.openai_agents import LiveTools, tools

    agent = Agent(name="clerk", tools=tools(registry), hooks=LiveTools(registry))

Each tool's `params_json_schema` is the registry's OpenAI export's JSON Schema as it is (not
made strict: a parameter with a default stays optional). A call goes through the registry's
one door (`Registry.invoke`, as the local user's model by default) in a worker thread, and its
output is the Outcome's reply as JSON text. A failure is the SDK's own error as data: the
tool returns the failed reply as its output, which the SDK sends the model, and the run goes
on. A call held for a person's approval waits.

Live: the SDK reads an agent's `tools` list at every turn; `LiveTools(registry)` as the agent's
hooks brings the registry's tools in that list up to date at the start and after every tool
call (reading the registry again whenever it may have changed since: calls.Kept), so a tool
created during a run is offered at the next turn.

The SDK exports traces of every run to OpenAI unless told not to: set
`OPENAI_AGENTS_DISABLE_TRACING=1`, call `agents.set_tracing_disabled(True)`, or run with
`RunConfig(tracing_disabled=True)` (docs/frameworks.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from toolkiln.integrations.calls import CallOptions, Calls, Kept, Offered, not_installed, offered

try:
    from agents import Agent, AgentHooks, FunctionTool, RunContextWrapper, Tool
    from agents.tool_context import ToolContext
except ImportError:
    raise not_installed("openai-agents", "openai-agents") from None

if TYPE_CHECKING:
    from typing_extensions import Unpack  # (typing's own from Python 3.12)

    from toolkiln.registry.registry import Registry


@dataclass
class RegistryFunctionTool(FunctionTool):
    """A FunctionTool that calls a registry tool (what `LiveTools` replaces when it refreshes)."""


def tools(
    registry: Registry,
    names: Iterable[str] | None = None,
    *,
    include_meta: bool = False,
    **options: Unpack[CallOptions],
) -> list[FunctionTool]:
    """The registry's active tools (those in `names`, when given; the meta-tools too with
    `include_meta`) as FunctionTools. `options`: `Calls`'s keywords (calls.py: principal,
    approval_timeout, conversation)."""
    calls = Calls(registry, **options)
    return [_tool(tool, calls) for tool in offered(registry, names, include_meta=include_meta)]


def _tool(tool: Offered, calls: Calls) -> FunctionTool:
    async def invoke(context: ToolContext[Any], arguments: str) -> str:
        return await asyncio.to_thread(calls.text_of_json, tool, arguments)

    return RegistryFunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=tool.parameters,
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )


class LiveTools(AgentHooks[Any]):
    """An agent's hooks that keep the registry's tools in its `tools` list current: at the
    start of a run and after each tool call (the SDK reads the list at every turn). The
    agent's other tools stay as they are. Same keywords as `tools`."""

    def __init__(
        self,
        registry: Registry,
        names: Iterable[str] | None = None,
        *,
        include_meta: bool = False,
        **options: Unpack[CallOptions],
    ) -> None:
        self.registry = registry
        self.names = None if names is None else tuple(names)
        self.include_meta = include_meta
        self.options = options
        self._kept = Kept(registry, partial(tools, registry, self.names, include_meta=include_meta, **options))

    async def on_start(self, context: RunContextWrapper[Any], agent: Agent[Any]) -> None:
        await self._refresh(agent)

    async def on_tool_end(self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Tool, result: object) -> None:
        await self._refresh(agent)

    async def _refresh(self, agent: Agent[Any]) -> None:
        current = await self._kept.aget()  # (read again only when the registry may have changed)
        agent.tools[:] = [*(tool for tool in agent.tools if not isinstance(tool, RegistryFunctionTool)), *current]
