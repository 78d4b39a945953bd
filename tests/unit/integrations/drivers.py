"""One driver per framework: the adapter's tools, what the framework shows its model of them,
and one call through the framework's own invocation path (test_framework_adapters.py runs
every check against every driver)."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

from toolkiln import Registry


class Driver:
    framework: str  # the extra's name
    module: str  # the adapter
    needs: str  # the module of the framework it imports

    def tools(self, registry: Registry, **options: Any) -> Any:
        """What the adapter gives the framework (a list of tools, or a toolset)."""
        return importlib.import_module(self.module).tools(registry, **options)

    def schemas(self, registry: Registry, **options: Any) -> dict[str, dict[str, Any]]:
        """The JSON Schema of each tool's parameters, by name, as the framework sends it."""
        raise NotImplementedError

    def invoke(self, tools: Any, name: str, arguments: Any) -> tuple[str, bool | None]:
        """The text the framework hands its model for one call of `name`, and whether it
        marked the call as failed (None: it has no such mark)."""
        raise NotImplementedError

    def call(self, registry: Registry, name: str, arguments: Any, **options: Any) -> tuple[str, bool | None]:
        return self.invoke(self.tools(registry, **options), name, arguments)


def named(tools: list[Any], name: str) -> Any:
    (tool,) = [tool for tool in tools if tool.name == name]
    return tool


class LangChain(Driver):
    framework, module, needs = "langchain", "toolkiln.integrations.langchain", "langchain_core"

    def schemas(self, registry: Registry, **options: Any) -> dict[str, dict[str, Any]]:
        from langchain_core.utils.function_calling import convert_to_openai_tool

        return {
            tool.name: convert_to_openai_tool(tool)["function"]["parameters"]
            for tool in self.tools(registry, **options)
        }

    def invoke(self, tools: Any, name: str, arguments: Any) -> tuple[str, bool | None]:
        message = named(tools, name).invoke({"type": "tool_call", "id": "call-1", "name": name, "args": arguments})
        return message.content, message.status == "error"


class PydanticAI(Driver):
    """An Agent run with pydantic-ai's FunctionModel: it makes the call, then answers."""

    framework, module, needs = "pydantic-ai", "toolkiln.integrations.pydantic_ai", "pydantic_ai"

    def tools(self, registry: Registry, **options: Any) -> Any:
        from toolkiln.integrations.pydantic_ai import RegistryToolset

        return RegistryToolset(registry, **options)

    def schemas(self, registry: Registry, **options: Any) -> dict[str, dict[str, Any]]:
        shown: dict[str, dict[str, Any]] = {}

        def model(messages, info):
            from pydantic_ai.messages import ModelResponse, TextPart

            shown.update({tool.name: tool.parameters_json_schema for tool in info.function_tools})
            return ModelResponse(parts=[TextPart("done")])

        self._agent(model, self.tools(registry, **options)).run_sync("list")
        return shown

    def invoke(self, tools: Any, name: str, arguments: Any) -> tuple[str, bool | None]:
        from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart

        def model(messages, info):
            if len(messages) == 1:
                return ModelResponse(parts=[ToolCallPart(name, arguments, tool_call_id="call-1")])
            return ModelResponse(parts=[TextPart("done")])

        run = self._agent(model, tools).run_sync("call")
        (returned,) = [p for m in run.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
        return returned.model_response_str(wrap_if_error=False), returned.outcome != "success"

    @staticmethod
    def _agent(model: Any, toolset: Any) -> Any:
        from pydantic_ai import Agent
        from pydantic_ai.models.function import FunctionModel

        return Agent(FunctionModel(model), toolsets=[toolset])


class LlamaIndex(Driver):
    """A FunctionAgent run with llama-index-core's MockFunctionCallingLLM: it makes the call,
    then answers; what the call gave is the agent's ToolCallResult event."""

    framework, module, needs = "llamaindex", "toolkiln.integrations.llamaindex", "llama_index"

    def schemas(self, registry: Registry, **options: Any) -> dict[str, dict[str, Any]]:
        shown: dict[str, dict[str, Any]] = {}

        def model(messages, **kwargs):
            from llama_index.core.llms import ChatMessage

            for tool in kwargs.get("tools") or []:
                function = tool.metadata.to_openai_tool()["function"]
                shown[function["name"]] = function["parameters"]
            return ChatMessage(role="assistant", content="done")

        asyncio.run(self.run(model, self.tools(registry, **options)))
        return shown

    def invoke(self, tools: Any, name: str, arguments: Any) -> tuple[str, bool | None]:
        from llama_index.core.base.llms.types import ToolCallBlock
        from llama_index.core.llms import ChatMessage

        def model(messages, **kwargs):
            if any(message.role == "tool" for message in messages):
                return ChatMessage(role="assistant", content="done")
            call = ToolCallBlock(tool_call_id="call-1", tool_name=name, tool_kwargs=arguments)
            return ChatMessage(role="assistant", blocks=[call])

        (output,) = asyncio.run(self.run(model, tools))
        return output.content, output.is_error

    @staticmethod
    async def run(model: Any, tools: Any, **agent: Any) -> list[Any]:
        """The tool outputs of one FunctionAgent run (`tools=`, or `agent`'s keywords)."""
        from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
        from llama_index.core.llms.mock import MockFunctionCallingLLM

        llm = MockFunctionCallingLLM(response_generator=model)
        handler = FunctionAgent(**({"tools": tools} if tools is not None else agent), llm=llm).run("go")
        outputs = [event.tool_output async for event in handler.stream_events() if isinstance(event, ToolCallResult)]
        await handler
        return outputs


class OpenAIAgents(Driver):
    """An Agent run against FakeLLMServer (OpenAI's chat completions on 127.0.0.1, through the
    SDK's own OpenAIChatCompletionsModel): the model makes the call, then answers; tracing off."""

    framework, module, needs = "openai-agents", "toolkiln.integrations.openai_agents", "agents"

    def schemas(self, registry: Registry, **options: Any) -> dict[str, dict[str, Any]]:
        from unit.llm.fake_llm_server import FakeLLMServer, Text

        with FakeLLMServer() as server:
            server.script(Text("done"))
            self.run(server, self.tools(registry, **options))
            sent = server.seen[0].body.get("tools") or []
        return {tool["function"]["name"]: tool["function"]["parameters"] for tool in sent}

    def invoke(self, tools: Any, name: str, arguments: Any) -> tuple[str, bool | None]:
        from unit.llm.fake_llm_server import Calls, FakeLLMServer, Text

        with FakeLLMServer() as server:
            server.script(Calls([(name, arguments)]), Text("done"))
            run = self.run(server, tools)
        (output,) = [item.output for item in run.new_items if type(item).__name__ == "ToolCallOutputItem"]
        return output, None

    @staticmethod
    def run(server: Any, tools: Any, **agent: Any) -> Any:
        from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner
        from openai import AsyncOpenAI
        from unit.llm.fake_llm_server import KEY

        client = AsyncOpenAI(base_url=server.openai_url, api_key=KEY, max_retries=0)
        model = OpenAIChatCompletionsModel(model="fake", openai_client=client)
        clerk = Agent(name="clerk", model=model, tools=tools, **agent)
        return Runner.run_sync(clerk, "go", run_config=RunConfig(tracing_disabled=True))


DRIVERS = [LangChain(), PydanticAI(), LlamaIndex(), OpenAIAgents()]
