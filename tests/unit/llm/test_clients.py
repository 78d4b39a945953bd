"""OpenAIChat and AnthropicMessages against the fake server: text, tool calls both ways (a tool
result sent back under its call's id), usage, and the request each builds. Each test runs for
both providers unless its name says one."""

from __future__ import annotations

import pytest
from unit.llm.fake_llm_server import KEY, Calls, FakeLLMServer, Text

from toolkiln.llm import (
    AnthropicMessages,
    Assistant,
    LLMConfigError,
    OpenAIChat,
    Reply,
    System,
    ToolCall,
    ToolResult,
    Usage,
    User,
)
from toolkiln.registry.exports import ToolSpec

ADD = ToolSpec(
    "add",
    "Add two numbers.",
    {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
)
SHOUT = ToolSpec("shout", "Upper-case a text.", {"type": "object", "properties": {"text": {"type": "string"}}})


def test_a_text_reply(make, server: FakeLLMServer):
    server.script(Text("Hello there.", input_tokens=11, output_tokens=3))
    with make() as client:
        reply = client.chat("Say hello.")
    assert reply == Reply("Hello there.", (), Usage(11, 3, 1), "end", model="test-model")
    assert reply.raw["model"] == "test-model"
    assert server.hits == 1


def test_tool_calls_and_a_tool_result_sent_back(make, server: FakeLLMServer):
    server.script(Calls([("add", {"a": 2, "b": 3}), ("shout", {"text": "hi"})], text="Let me see."), Text("5 and HI"))
    client = make()
    conversation = [System("You add."), User("2 + 3, and shout hi")]
    first = client.chat(conversation, tools=[ADD, SHOUT])
    assert first.stop_reason == "tool_calls"
    assert first.text == "Let me see."
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("add", {"a": 2, "b": 3}), ("shout", {"text": "hi"})]
    assert len({c.id for c in first.tool_calls}) == 2
    conversation += [first.message(), ToolResult(first.tool_calls[0].id, "5"), ToolResult(first.tool_calls[1].id, "HI")]
    second = client.chat(conversation, tools=[ADD, SHOUT])
    assert second.text == "5 and HI"
    # The fake checked that each result answers a call of the turn before (else: a 400).
    sent = server.seen[1].body
    if isinstance(client, OpenAIChat):
        assert sent["messages"][0] == {"role": "system", "content": "You add."}
        assert sent["messages"][2]["tool_calls"][0]["function"] == {"name": "add", "arguments": '{"a": 2, "b": 3}'}
        assert sent["messages"][3:] == [
            {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": "5"},
            {"role": "tool", "tool_call_id": first.tool_calls[1].id, "content": "HI"},
        ]
    else:
        assert sent["system"] == "You add."
        assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]
        assert sent["messages"][1]["content"][1] == {
            "type": "tool_use",
            "id": first.tool_calls[0].id,
            "name": "add",
            "input": {"a": 2, "b": 3},
        }
        assert [b["tool_use_id"] for b in sent["messages"][2]["content"]] == [c.id for c in first.tool_calls]


def test_tools_are_sent_in_the_providers_format(make, server: FakeLLMServer):
    server.script(Text("ok"), Text("ok"))
    client = make()
    client.chat("hi", tools=[ADD], tool_choice="add")
    sent = server.seen[0].body
    if isinstance(client, OpenAIChat):
        assert sent["tools"] == [
            {
                "type": "function",
                "function": {"name": "add", "description": ADD.description, "parameters": ADD.parameters},
            }
        ]
        assert sent["tool_choice"] == {"type": "function", "function": {"name": "add"}}
    else:
        assert sent["tools"] == [{"name": "add", "description": ADD.description, "input_schema": ADD.parameters}]
        assert sent["tool_choice"] == {"type": "tool", "name": "add"}
    # Definitions already in the client's format (what registry.definitions(format) returns) go as given.
    client.chat("hi", tools=sent["tools"], tool_choice="required")
    assert server.seen[1].body["tools"] == sent["tools"]
    assert server.seen[1].body["tool_choice"] == ("required" if isinstance(client, OpenAIChat) else {"type": "any"})


def test_usage_is_counted_per_call_and_on_the_client(make, server: FakeLLMServer):
    server.script(
        Text("a", 10, 1), Calls([("add", {"a": 1, "b": 1})], input_tokens=30, output_tokens=4), Text("b", 5, 2)
    )
    client = make()
    replies = [client.chat("x", tools=[ADD]) for _ in range(3)]
    assert [r.usage for r in replies] == [Usage(10, 1, 1), Usage(30, 4, 1), Usage(5, 2, 1)]
    assert client.usage == Usage(45, 7, 3)
    assert client.usage.total_tokens == 52


def test_options_reach_the_request(make, server: FakeLLMServer):
    server.script(Text("ok"))
    client = make(model="big-model", headers={"X-Title": "toolkiln tests"})
    client.chat("hi", max_tokens=50, temperature=0.2, extra={"top_p": 0.5})
    seen = server.seen[0]
    assert (seen.body["model"], seen.body["max_tokens"], seen.body["temperature"], seen.body["top_p"]) == (
        "big-model",
        50,
        0.2,
        0.5,
    )
    assert seen.headers["x-title"] == "toolkiln tests"


def test_anthropic_defaults_max_tokens_and_sends_its_version_and_key(make_anthropic, server: FakeLLMServer):
    server.script(Text("ok"))
    make_anthropic(max_tokens=123).chat("hi")
    seen = server.seen[0]
    assert seen.body["max_tokens"] == 123
    assert (seen.headers["x-api-key"], seen.headers["anthropic-version"]) == (KEY, "2023-06-01")


def test_anthropic_merges_user_content_and_marks_failed_tool_results(make_anthropic, server: FakeLLMServer):
    server.script(Text("ok"))
    call = ToolCall("toolu_9", "add", {"a": 1})
    make_anthropic().chat(
        [User("add"), Assistant("", (call,)), ToolResult("toolu_9", "b is missing", is_error=True), User("try again")],
        tools=[ADD],
    )
    turns = server.seen[0].body["messages"]
    assert turns[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_9", "content": "b is missing", "is_error": True},
            {"type": "text", "text": "try again"},
        ],
    }


def test_openai_sends_no_authorization_without_a_key(make_openai, server: FakeLLMServer):
    """Local servers (Ollama, vLLM) need no key; the fake refuses, which is what is checked."""
    server.script(Text("ok"))
    client = make_openai(api_key=None)
    with pytest.raises(Exception, match="Incorrect API key"):
        client.chat("hi")
    assert "authorization" not in server.seen[0].headers


def test_openai_keeps_a_call_with_arguments_that_are_not_json(make_openai, server: FakeLLMServer):
    server.script(Calls([("add", '{"a": 1, "b": '), ("add", "[1, 2]")]), Text("fixed"))
    client = make_openai()
    reply = client.chat("add", tools=[ADD])
    broken, listed = reply.tool_calls
    assert (broken.arguments, broken.raw_arguments) == ({}, '{"a": 1, "b": ')
    assert "not valid JSON" in broken.arguments_error
    assert "list, not a JSON object" in listed.arguments_error
    # Sent back as the model wrote it, so the history stays true.
    client.chat(
        [User("add"), reply.message(), ToolResult(broken.id, "bad JSON"), ToolResult(listed.id, "bad JSON")],
        tools=[ADD],
    )
    assert server.seen[1].body["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"a": 1, "b": '


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"tools": [{"name": "add"}]}, "not an"),
        ({"tools": [ADD, ADD]}, "two tools are named 'add'"),
        ({"tools": ["add"]}, "must be a ToolSpec or a definition"),
        ({"tools": [ADD], "tool_choice": "sub"}, "neither a mode nor one of the tools"),
        ({"tool_choice": "auto"}, "without tools"),
        ({"tools": [ToolSpec("bad name!", "", {"type": "object"})]}, "cannot be sent"),
        ({"max_tokens": 0}, "max_tokens must be positive"),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_sent(make, server: FakeLLMServer, arguments, problem):
    with pytest.raises(LLMConfigError, match=problem):
        make().chat("hi", **arguments)
    assert server.hits == 0


@pytest.mark.parametrize(
    ("messages", "problem"),
    [
        ([{"role": "user", "content": 3}], "message 0: `content` must be a string"),
        ([3], "message 0 is a int"),
        ([System("only a system prompt")], "no user message"),
    ],
)
def test_a_conversation_of_the_wrong_shape_is_refused(make, server: FakeLLMServer, messages, problem):
    with pytest.raises(LLMConfigError, match=problem):
        make().chat(messages)
    assert server.hits == 0


def test_a_tool_in_the_other_providers_format_is_refused(make, server: FakeLLMServer):
    client = make()
    other = AnthropicMessages if isinstance(client, OpenAIChat) else OpenAIChat
    from toolkiln.llm.tools import tool_definitions

    foreign = tool_definitions([ADD], other.tool_format)
    with pytest.raises(LLMConfigError, match=f"not an {client.tool_format} tool definition"):
        client.chat("hi", tools=foreign)


@pytest.mark.parametrize("url", ["", "ftp://x", "http://", "http://h/v1?x=1", "not a url"])
def test_a_bad_base_url_is_refused(url):
    with pytest.raises(LLMConfigError):
        OpenAIChat(url, KEY, "m")


@pytest.mark.parametrize("options", [{"timeout": 0}, {"max_retries": -1}, {"backoff": -1}, {"max_reply_bytes": 0}])
def test_bad_options_are_refused(options):
    with pytest.raises(LLMConfigError):
        AnthropicMessages("http://127.0.0.1:9", KEY, "m", **options)
    with pytest.raises(LLMConfigError, match="no model"):
        OpenAIChat("http://127.0.0.1:9", KEY, " ")


@pytest.mark.parametrize("earlier", ["Paris.", ""])
def test_an_earlier_answer_without_tool_calls_is_sent_back(make, server: FakeLLMServer, earlier):
    """An empty one too: OpenAI wants content beside no tool calls, Anthropic no empty turn."""
    server.script(Text("Berlin."))
    assert make().chat([User("France?"), Assistant(earlier), User("Germany?")]).text == "Berlin."
