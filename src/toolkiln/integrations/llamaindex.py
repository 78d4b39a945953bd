"""Registry tools as LlamaIndex tools (`FunctionTool`, from llama-index-core alone).

    from llama_index.core.agent.workflow import FunctionAgent
    from toolkiln.integrations.llamaindex import retriever, tools

    agent = FunctionAgent(tools=tools(registry), llm=llm)              # the tools of today
    agent = FunctionAgent(tool_retriever=retriever(registry), llm=llm)  # read at every step

Each tool's metadata gives LlamaIndex the registry's OpenAI export (name, description, JSON
Schema) unchanged. A call goes through the registry's one door (`Registry.invoke`, as the local
user's model by default; the async path in a worker thread) and its output is the Outcome's
reply as JSON text. A failure is LlamaIndex's own error as data: a `ToolOutput` with
`is_error=True` carrying the reply, and the run goes on. A call held for a person's approval
waits.

Live: an agent given `tool_retriever=retriever(registry)` asks it for its tools at every step,
and it reads the registry again whenever the registry may have changed since (calls.Kept), so a
tool created during a run is offered at the next step; a `tools=` list stays as it was made.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from toolkiln.integrations.calls import CallOptions, Calls, Kept, Offered, not_installed, offered

try:
    from llama_index.core.objects import ObjectRetriever
    from llama_index.core.tools import BaseTool, FunctionTool, ToolMetadata, ToolOutput
except ImportError:
    raise not_installed("llama-index-core", "llamaindex") from None

if TYPE_CHECKING:
    from llama_index.core.schema import QueryBundle
    from typing_extensions import Unpack  # (typing's own from Python 3.12)

    from toolkiln.registry.registry import Registry


@dataclass
class RegistryToolMetadata(ToolMetadata):
    """The metadata LlamaIndex sends a model, with the export's JSON Schema as it is (LlamaIndex
    would build one from a pydantic model and drop `additionalProperties`)."""

    parameters: dict[str, Any] = field(default_factory=dict)

    def get_parameters_dict(self) -> dict[str, Any]:
        return dict(self.parameters)

    @property
    def fn_schema_str(self) -> str:
        return json.dumps(self.parameters, ensure_ascii=False)


class RegistryTool(FunctionTool):
    """A FunctionTool that calls a registry tool: its keyword arguments are the tool's."""

    def __init__(self, tool: Offered, calls: Calls) -> None:
        metadata = RegistryToolMetadata(
            description=tool.description, name=tool.name, fn_schema=None, parameters=tool.parameters
        )
        super().__init__(fn=partial(calls.answer, tool), metadata=metadata)
        self._offered, self._calls = tool, calls

    def call(self, *args: Any, **kwargs: Any) -> ToolOutput:
        arguments = args[0] if len(args) == 1 and not kwargs else kwargs if not args else list(args)
        ok, text = self._calls.answer(self._offered, arguments)
        raw_input = {"args": args, "kwargs": kwargs}
        return ToolOutput(
            content=text, tool_name=self._offered.name, raw_input=raw_input, raw_output=text, is_error=not ok
        )

    async def acall(self, *args: Any, **kwargs: Any) -> ToolOutput:
        return await asyncio.to_thread(self.call, *args, **kwargs)


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
    return [RegistryTool(tool, calls) for tool in offered(registry, names, include_meta=include_meta)]


class RegistryToolRetriever(ObjectRetriever[BaseTool]):
    """An agent's `tool_retriever`: the registry's active tools, read again whenever it is asked
    and the registry may have changed since the last read (the query does not choose among them)."""

    def __init__(self, registry: Registry, names: Iterable[str] | None, include_meta: bool, options: CallOptions):
        # (no index behind it: ObjectRetriever's own retriever and node mapping are not used)
        wanted = None if names is None else tuple(names)
        self._kept = Kept(registry, partial(tools, registry, wanted, include_meta=include_meta, **options))

    def retrieve(self, str_or_query_bundle: str | QueryBundle) -> list[BaseTool]:
        return list(self._kept.get())

    async def aretrieve(self, str_or_query_bundle: str | QueryBundle) -> list[BaseTool]:
        return list(await self._kept.aget())


def retriever(
    registry: Registry,
    names: Iterable[str] | None = None,
    *,
    include_meta: bool = False,
    **options: Unpack[CallOptions],
) -> RegistryToolRetriever:
    """What `tools` gives, read again at every step of an agent given it as `tool_retriever`."""
    return RegistryToolRetriever(registry, names, include_meta, options)
