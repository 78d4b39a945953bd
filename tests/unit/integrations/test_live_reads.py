"""The adapters that are live (pydantic-ai's toolset, LlamaIndex's retriever, the Agents SDK's
LiveTools) are asked for their tools at every step or turn; each reads the registry again
(export, tools, in a worker thread) only when the registry may have changed since its last
read: a change made through toolkiln in any process at once, a hand edit of the folder after
the watch interval. The clock is stopped, so only the change can make it read."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from agents import Agent
from unit.integrations.framework_support import TRIPLE

from toolkiln import Registry
from toolkiln.integrations.llamaindex import retriever
from toolkiln.integrations.openai_agents import LiveTools
from toolkiln.integrations.pydantic_ai import RegistryToolset
from toolkiln.registry import hot_door
from toolkiln.registry.changes import WATCH_SECONDS


def pydantic_ai(registry: Registry) -> tuple[object, Callable[[], set[str]]]:
    toolset = RegistryToolset(registry)
    return toolset, lambda: set(asyncio.run(toolset.get_tools(None)))  # type: ignore[arg-type]


def llamaindex(registry: Registry) -> tuple[object, Callable[[], set[str]]]:
    source = retriever(registry)
    return source, lambda: {tool.metadata.name for tool in asyncio.run(source.aretrieve("any"))}


def openai_agents(registry: Registry) -> tuple[object, Callable[[], set[str]]]:
    hooks, agent = LiveTools(registry), Agent(name="clerk", tools=[])

    def names() -> set[str]:
        asyncio.run(hooks.on_start(None, agent))  # type: ignore[arg-type]
        return {tool.name for tool in agent.tools}

    return hooks, names


@pytest.mark.parametrize("adapter", [pydantic_ai, llamaindex, openai_agents], ids=lambda a: a.__name__)
def test_the_registry_is_read_again_only_when_it_may_have_changed(adapter, registry, monkeypatch):
    now = [100.0]
    monkeypatch.setattr(hot_door, "_monotonic", lambda: now[0])
    source, names = adapter(registry)
    kept, reads = source._kept, []  # type: ignore[attr-defined]
    read = kept._read
    monkeypatch.setattr(kept, "_read", lambda: reads.append(1) or read())
    assert [names() for _ in range(3)] == [{"price"}] * 3 and len(reads) == 1
    with Registry(registry.location) as other:  # (another process's change: the counter moves)
        other.create(TRIPLE)
    assert names() == {"price", "triple"} and len(reads) == 2
    registry.disable("triple")  # (this process's own)
    assert names() == {"price"} and len(reads) == 3
    now[0] += 2 * WATCH_SECONDS  # (what the folder's files say now is looked at again)
    assert names() == {"price"} and len(reads) == 4
