"""ScriptedClient (replies in order, requests recorded, a clear error when it runs out) and
client_from_env (the TOOLKILN_LLM_* variables pick and configure the client)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from unit.llm.fake_llm_server import KEY, FakeLLMServer, Text

from toolkiln.llm import (
    AnthropicMessages,
    HTTPChatClient,
    LLMConfigError,
    LLMRateLimited,
    OpenAIChat,
    Reply,
    ScriptedClient,
    ScriptExhausted,
    System,
    ToolCall,
    ToolResult,
    Usage,
    User,
    client_from_env,
)
from toolkiln.registry.exports import ToolSpec

ADD = ToolSpec("add", "Add.", {"type": "object", "properties": {"a": {"type": "number"}}})


def test_scripted_replies_come_in_order_and_requests_are_recorded():
    call = ToolCall("c1", "add", {"a": 1})
    client = ScriptedClient(["first", Reply(tool_calls=[call], usage=Usage(5, 2))])
    assert client.chat("hi") == Reply("first", usage=Usage(0, 0, 1), stop_reason="end", model="scripted")
    second = client.chat([User("hi"), ToolResult("c0", "1")], tools=[ADD], tool_choice="add", max_tokens=9)
    assert second.tool_calls == (call,) and second.stop_reason == "tool_calls"
    assert client.usage == Usage(5, 2, 2)
    assert client.requests[0].messages == (User("hi"),)
    assert client.requests[1].tools[0]["function"]["name"] == "add"  # as OpenAIChat would send it
    assert (client.requests[1].tool_choice, client.requests[1].max_tokens) == ("add", 9)
    assert client.remaining == 0


def test_a_scripted_client_says_when_it_runs_out():
    client = ScriptedClient(["only one"])
    client.chat("hi")
    with pytest.raises(ScriptExhausted, match="the script has 1 replies and request 2 came"):
        client.chat("again")
    assert len(client.requests) == 1


def test_a_scripted_error_is_raised_in_its_turn():
    client = ScriptedClient([LLMRateLimited("slow down", retry_after=1.0), "after"])
    with pytest.raises(LLMRateLimited, match="slow down"):
        client.chat("hi")
    assert client.chat("hi").text == "after"


def test_a_scripted_client_checks_requests_as_the_real_ones_do():
    client = ScriptedClient(["x"], tool_format="anthropic")
    with pytest.raises(LLMConfigError, match="no user message"):
        client.chat([System("alone")])
    with pytest.raises(LLMConfigError, match="not an anthropic tool definition"):
        client.chat("hi", tools=[{"type": "function", "function": {"name": "add"}}])
    assert client.requests == [] and client.remaining == 1
    with pytest.raises(LLMConfigError, match="script item 0"):
        ScriptedClient([42])


def test_the_environment_picks_and_configures_the_client(server: FakeLLMServer):
    server.script(Text("from env"))
    environ = {
        "TOOLKILN_LLM_PROVIDER": "anthropic",
        "TOOLKILN_LLM_BASE_URL": server.url,
        "TOOLKILN_LLM_API_KEY": KEY,
        "TOOLKILN_LLM_MODEL": "claude-test",
    }
    with client_from_env(environ=environ, timeout=5) as client:
        assert isinstance(client, AnthropicMessages)
        assert client.chat("hi").text == "from env"
    assert server.seen[0].body["model"] == "claude-test"
    assert KEY not in repr(client)


def test_arguments_win_over_the_environment_and_openai_is_the_default(monkeypatch):
    monkeypatch.setenv("TOOLKILN_LLM_MODEL", "from-env")
    monkeypatch.setenv("TOOLKILN_LLM_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.delenv("TOOLKILN_LLM_PROVIDER", raising=False)
    client = client_from_env(model="llama3")
    assert isinstance(client, OpenAIChat)
    assert (client.model, client.base_url) == ("llama3", "http://127.0.0.1:11434/v1")
    assert repr(client) == "OpenAIChat(base_url='http://127.0.0.1:11434/v1', model='llama3')"
    assert client_from_env(environ={"TOOLKILN_LLM_MODEL": "m"}).base_url == "https://api.openai.com/v1"


@pytest.mark.parametrize(
    ("environ", "problem"),
    [
        ({"TOOLKILN_LLM_MODEL": "m", "TOOLKILN_LLM_PROVIDER": "gemini"}, "unknown provider 'gemini'"),
        ({}, "no model"),
        ({"TOOLKILN_LLM_MODEL": "m", "TOOLKILN_LLM_BASE_URL": "localhost:8000"}, "not an http"),
    ],
)
def test_a_bad_environment_is_a_config_error(environ, problem):
    with pytest.raises(LLMConfigError, match=problem):
        client_from_env(environ=environ)


def test_the_tool_loop_of_the_docs_works():
    """docs/llm-clients.md, "A tool loop", as written there."""
    add = ToolSpec(
        "add",
        "Add two numbers.",
        {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
    )
    model = ScriptedClient([Reply(tool_calls=[ToolCall("call_1", "add", {"a": 2, "b": 3})]), "2 + 3 = 5."])

    conversation = [User("What is 2 + 3?")]
    reply = model.chat(conversation, tools=[add])
    while reply.tool_calls:
        conversation.append(reply.message())
        for call in reply.tool_calls:
            result = call.arguments["a"] + call.arguments["b"]  # run the tool here
            conversation.append(ToolResult(call.id, str(result)))
        reply = model.chat(conversation, tools=[add])

    assert reply.text == "2 + 3 = 5."
    assert str(model.usage) == "Usage(input_tokens=0, output_tokens=0, requests=2)"
    assert model.requests[1].messages[-1] == ToolResult("call_1", "5")


def test_the_documented_defaults_are_the_codes():
    text = (Path(__file__).resolve().parents[3] / "docs" / "llm-clients.md").read_text(encoding="utf-8")
    documented = dict(re.findall(r"^\| `(\w+)` \| ([\d.]+) \|", text, re.M))
    defaults = {
        name: p.default
        for cls in (HTTPChatClient, AnthropicMessages)
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if isinstance(p.default, int | float) and not isinstance(p.default, bool)
    }
    assert documented.keys() <= defaults.keys()
    assert {name: float(value) for name, value in documented.items()} == {
        name: float(defaults[name]) for name in documented
    }
    assert set(documented) >= {"timeout", "max_retries", "max_retry_after", "max_tokens"}
