"""Tool definitions in the format a client sends: "openai" or "anthropic" (the registry's exports).

A client takes either definitions already in its format (`registry.definitions(client.tool_format)`)
or neutral `ToolSpec`s, which are exported here. A definition in the wrong format is refused
before anything is sent, because providers answer that with an unhelpful 400.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolkiln.llm.errors import LLMConfigError

if TYPE_CHECKING:
    from toolkiln.registry.exports import ToolSpec

Tools = Sequence["Mapping[str, Any] | ToolSpec"]


def tool_definitions(tools: Tools | None, format: str) -> list[dict[str, Any]]:  # noqa: A002
    """The definitions to send, in order; LLMConfigError for a wrong shape or a name used twice."""
    definitions: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, tool in enumerate(tools or ()):
        definition = dict(tool) if isinstance(tool, Mapping) else _exported(tool, format)
        name = tool_name(definition, format)
        if name is None:
            raise LLMConfigError(
                f"tool {index} is not an {format} tool definition",
                hint=f"pass ToolSpecs, or definitions in the client's format: registry.definitions({format!r})",
            )
        if name in seen:
            raise LLMConfigError(f"two tools are named {name!r}")
        seen.add(name)
        definitions.append(definition)
    return definitions


def tool_name(definition: Mapping[str, Any], format: str) -> str | None:  # noqa: A002
    """The tool's name if `definition` has the shape of `format`, else None."""
    if format == "openai":
        function = definition.get("function")
        if definition.get("type") == "function" and isinstance(function, Mapping):
            name = function.get("name")
            return name if isinstance(name, str) else None
        return None
    name = definition.get("name")
    return name if isinstance(name, str) and isinstance(definition.get("input_schema"), Mapping) else None


def _exported(tool: Any, format: str) -> dict[str, Any]:  # noqa: A002
    # Loaded only for ToolSpecs: plain definitions need none of the registry.
    from toolkiln.registry.exports import ToolSpec, export

    if not isinstance(tool, ToolSpec):
        raise LLMConfigError(f"a tool must be a ToolSpec or a definition (a dict), not {type(tool).__name__}")
    result = export([tool], format)
    if result.skipped:
        raise LLMConfigError(f"tool {tool.name!r} cannot be sent to an {format} API: {result.skipped[0].message}")
    return result.definitions[0]
