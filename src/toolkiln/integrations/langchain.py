"""Registry tools as LangChain tools (`StructuredTool`, from langchain-core alone).

    from toolkiln.integrations.langchain import tools
    model.bind_tools(tools(registry))          # read again each turn: see "live" below

Each tool's `args_schema` is the JSON Schema of the registry's OpenAI export. A call goes
through the registry's one door (`Registry.invoke` as the local user's model, by default): the
tool's content is the Outcome's reply as JSON text. A failure (bad arguments, a tool no longer
active, a refusal, a failed run) is LangChain's error as data: a `ToolException` the tool
handles itself (`handle_tool_error=True`), so the ToolMessage carries the reply with its codes
and `status="error"`, and the run goes on. A call held for a person's approval waits.

Live: LangChain binds a list of tools per model call; call `tools(registry)` each turn and a
tool created (and active) since the last turn is in it.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from toolkiln.integrations.calls import CallOptions, Calls, Offered, not_installed, offered

try:
    from langchain_core.tools import StructuredTool, ToolException
except ImportError:
    raise not_installed("langchain-core", "langchain") from None

if TYPE_CHECKING:
    from typing_extensions import Unpack  # (typing's own from Python 3.12)

    from toolkiln.registry.registry import Registry


class RegistryTool(StructuredTool):
    """A StructuredTool whose arguments are passed on as they came: LangChain's own keywords
    (`config`, `run_manager`, `callbacks`) are not given to it, so a tool parameter of one of
    those names reaches the registry unchanged."""

    def _run(self, **arguments: Any) -> Any:  # type: ignore[override]  # (no config, run_manager: see above)
        assert self.func is not None  # (always set by `tools`)
        return self.func(**arguments)


def tools(
    registry: Registry,
    names: Iterable[str] | None = None,
    *,
    include_meta: bool = False,
    **options: Unpack[CallOptions],
) -> list[StructuredTool]:
    """The registry's active tools (those in `names`, when given; the meta-tools too with
    `include_meta`) as StructuredTools. `options`: `Calls`'s keywords (calls.py: principal,
    approval_timeout, conversation)."""
    calls = Calls(registry, **options)
    return [_tool(tool, calls) for tool in offered(registry, names, include_meta=include_meta)]


def _tool(tool: Offered, calls: Calls) -> StructuredTool:
    return RegistryTool(
        name=tool.name,
        description=tool.description,
        args_schema=tool.parameters,
        func=partial(_call, calls, tool),
        handle_tool_error=True,
    )


def _call(calls: Calls, tool: Offered, /, **arguments: Any) -> str:
    ok, text = calls.answer(tool, arguments)
    if not ok:
        raise ToolException(text)  # (handled by the tool: the content, with status "error")
    return text
