"""Registry tools as a pydantic-ai toolset (from pydantic-ai-slim alone).

    from pydantic_ai import Agent
    from toolkiln.integrations.pydantic_ai import RegistryToolset

    agent = Agent(model, toolsets=[RegistryToolset(registry)])

Each tool's definition is the registry's OpenAI export (name, description, JSON Schema); the
registry checks the arguments itself, so pydantic-ai passes them on unvalidated. A call goes
through the registry's one door (`Registry.invoke`, as the local user's model by default) in a
worker thread, and its result is the Outcome's reply as JSON text. A failure is pydantic-ai's
`ToolFailed`: the model reads the failed reply, with its codes, and the run goes on without
spending the tool's retries (`ModelRetry` would end the run after them). A call held for a
person's approval waits.

Live: pydantic-ai asks a toolset for its tools at every step of a run, and this one reads the
registry's active tools whenever the registry may have changed since it last read them
(`Registry.unchanged_since`: any change made through toolkiln, in any process, at once; a hand
edit of the folder within 50 ms), so a tool created during a run is offered at the next step.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import anyio.to_thread

from toolkiln.integrations.calls import CallOptions, Calls, Kept, Offered, not_installed, offered

try:
    from pydantic_ai import RunContext, ToolDefinition, ToolFailed
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
    from pydantic_core import SchemaValidator, core_schema
except ImportError:
    raise not_installed("pydantic-ai-slim", "pydantic-ai") from None

if TYPE_CHECKING:
    from typing_extensions import Unpack  # (typing's own from Python 3.12)

    from toolkiln.registry.registry import Registry

# The arguments as they came: the registry checks them against the tool's parameters and says
# what is wrong as data (E0508), which a validation error of pydantic-ai's would not carry.
AS_THEY_CAME = SchemaValidator(core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema()))


class RegistryToolset(AbstractToolset[Any]):
    """The registry's active tools (those in `names`, when given; the meta-tools too with
    `include_meta`), read at every step of a run. `options`: `Calls`'s keywords (calls.py:
    principal, approval_timeout, conversation)."""

    def __init__(
        self,
        registry: Registry,
        names: Iterable[str] | None = None,
        *,
        include_meta: bool = False,
        id: str | None = "toolkiln",  # noqa: A002 - pydantic-ai's own name for it
        **options: Unpack[CallOptions],
    ) -> None:
        self.registry = registry
        self.names = None if names is None else tuple(names)
        self.include_meta = include_meta
        self.calls = Calls(registry, **options)
        self._id = id
        self._kept = Kept(registry, self._tools)  # (read again only when the registry may have changed)

    @property
    def id(self) -> str | None:
        return self._id

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        return dict(await self._kept.aget())

    def _tools(self) -> dict[str, ToolsetTool[Any]]:
        return {tool.name: self._toolset_tool(tool) for tool in self._offered()}

    def _offered(self) -> list[Offered]:
        return offered(self.registry, self.names, include_meta=self.include_meta)

    def _toolset_tool(self, tool: Offered) -> ToolsetTool[Any]:
        definition = ToolDefinition(
            name=tool.name,
            description=tool.description,
            parameters_json_schema=tool.parameters,
            metadata={"toolkiln_meta": tool.meta},
        )
        return ToolsetTool(toolset=self, tool_def=definition, max_retries=0, args_validator=AS_THEY_CAME)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> str:
        definition = tool.tool_def
        meta = bool((definition.metadata or {}).get("toolkiln_meta"))
        target = Offered(name, definition.description or "", definition.parameters_json_schema, meta)
        ok, text = await anyio.to_thread.run_sync(self.calls.answer, target, tool_args)
        if not ok:
            raise ToolFailed(text)
        return text
