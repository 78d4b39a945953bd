"""One driver per framework: the adapter's tools, what the framework shows its model of one,
and one call through the framework's own invocation path (test_framework_adapters.py runs
every check against every driver)."""

from __future__ import annotations

from typing import Any

from toolkiln import Registry


class Driver:
    framework: str  # the extra's name
    module: str  # the adapter
    needs: str  # the module of the framework it imports

    def tools(self, registry: Registry, **options: Any) -> list[Any]:
        return __import__(self.module, fromlist=["tools"]).tools(registry, **options)

    def schemas(self, registry: Registry, **options: Any) -> dict[str, dict[str, Any]]:
        """The JSON Schema of each tool's parameters, by name, as the framework sends it."""
        return dict(self.schema(tool) for tool in self.tools(registry, **options))

    def call(self, registry: Registry, name: str, arguments: Any, **options: Any) -> tuple[str, bool | None]:
        return self.invoke(self.tools(registry, **options), name, arguments)

    def schema(self, tool: Any) -> tuple[str, dict[str, Any]]:
        raise NotImplementedError

    def invoke(self, tools: list[Any], name: str, arguments: Any) -> tuple[str, bool | None]:
        """The text the framework hands its model for one call of `name`, and whether it
        marked the call as failed (None: it has no such mark)."""
        raise NotImplementedError


def named(tools: list[Any], name: str) -> Any:
    (tool,) = [tool for tool in tools if tool.name == name]
    return tool


class LangChain(Driver):
    framework, module, needs = "langchain", "toolkiln.integrations.langchain", "langchain_core"

    def schema(self, tool: Any) -> tuple[str, dict[str, Any]]:
        from langchain_core.utils.function_calling import convert_to_openai_tool

        return tool.name, convert_to_openai_tool(tool)["function"]["parameters"]

    def invoke(self, tools: list[Any], name: str, arguments: Any) -> tuple[str, bool | None]:
        message = named(tools, name).invoke({"type": "tool_call", "id": "call-1", "name": name, "args": arguments})
        return message.content, message.status == "error"


DRIVERS = [LangChain()]
