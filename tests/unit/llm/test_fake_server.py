"""The fake server is faithful: what it answers validates against the official SDKs' response
models, and the official SDK clients themselves work against it (text, tool calls, a tool result
sent back, errors). Tests of toolkiln's clients against it mean something only because of this."""

from __future__ import annotations

import json

import anthropic
import httpx
import openai
import pytest
from anthropic.types import ErrorResponse, Message
from openai.types.chat import ChatCompletion
from openai.types.shared import ErrorObject
from unit.llm.fake_llm_server import KEY, Calls, Fail, FakeLLMServer, Text

ADD_OPENAI = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two numbers.",
        "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
    },
}
ADD_ANTHROPIC = {
    "name": "add",
    "description": "Add two numbers.",
    "input_schema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
}


def _post(url: str, body: dict, headers: dict) -> httpx.Response:
    return httpx.post(url, json=body, headers=headers, timeout=5)


@pytest.mark.parametrize(
    "step", [Text("hello"), Calls([("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 4})], text="Adding.")]
)
def test_openai_replies_validate_against_the_sdk_model(server: FakeLLMServer, step):
    server.script(step)
    response = _post(
        f"{server.openai_url}/chat/completions",
        {"model": "gpt-x", "messages": [{"role": "user", "content": "hi"}]},
        {"Authorization": f"Bearer {KEY}"},
    )
    completion = ChatCompletion.model_validate(response.json())
    assert completion.model == "gpt-x"
    assert completion.usage is not None and completion.usage.total_tokens == step.input_tokens + step.output_tokens


@pytest.mark.parametrize("step", [Text("hello"), Calls([("add", {"a": 1, "b": 2})], text="Adding.")])
def test_anthropic_replies_validate_against_the_sdk_model(server: FakeLLMServer, step):
    server.script(step)
    response = _post(
        f"{server.url}/v1/messages",
        {"model": "claude-x", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]},
        {"x-api-key": KEY, "anthropic-version": "2023-06-01"},
    )
    message = Message.model_validate(response.json())
    assert message.usage.input_tokens == step.input_tokens


@pytest.mark.parametrize("status", [400, 401, 429, 500, 529])
def test_error_bodies_validate_against_the_sdk_models(server: FakeLLMServer, status):
    server.script(Fail(status, "nope"), Fail(status, "nope"))
    openai_error = _post(
        f"{server.openai_url}/chat/completions",
        {"model": "m", "messages": [{"role": "user", "content": "x"}]},
        {"Authorization": f"Bearer {KEY}"},
    )
    assert ErrorObject.model_validate(openai_error.json()["error"]).message == "nope"
    anthropic_error = _post(
        f"{server.url}/v1/messages",
        {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]},
        {"x-api-key": KEY, "anthropic-version": "2023-06-01"},
    )
    assert ErrorResponse.model_validate(anthropic_error.json()).error.message == "nope"
    assert openai_error.status_code == anthropic_error.status_code == status


def test_the_official_openai_client_talks_to_the_fake(server: FakeLLMServer):
    server.script(Calls([("add", {"a": 1, "b": 2})]), Text("3"))
    sdk = openai.OpenAI(base_url=server.openai_url, api_key=KEY, max_retries=0)
    first = sdk.chat.completions.create(
        model="gpt-x", messages=[{"role": "user", "content": "1 + 2?"}], tools=[ADD_OPENAI]
    )
    call = first.choices[0].message.tool_calls[0]
    assert (call.function.name, json.loads(call.function.arguments)) == ("add", {"a": 1, "b": 2})
    assert first.choices[0].finish_reason == "tool_calls"
    second = sdk.chat.completions.create(
        model="gpt-x",
        messages=[
            {"role": "user", "content": "1 + 2?"},
            first.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": "3"},
        ],
        tools=[ADD_OPENAI],
    )
    assert second.choices[0].message.content == "3"
    assert server.seen[1].body["messages"][2] == {"role": "tool", "tool_call_id": call.id, "content": "3"}


def test_the_official_anthropic_client_talks_to_the_fake(server: FakeLLMServer):
    server.script(Calls([("add", {"a": 1, "b": 2})], text="Let me add."), Text("3"))
    sdk = anthropic.Anthropic(base_url=server.url, api_key=KEY, max_retries=0)
    first = sdk.messages.create(
        model="claude-x", max_tokens=100, messages=[{"role": "user", "content": "1 + 2?"}], tools=[ADD_ANTHROPIC]
    )
    use = next(block for block in first.content if block.type == "tool_use")
    assert (use.name, use.input, first.stop_reason) == ("add", {"a": 1, "b": 2}, "tool_use")
    second = sdk.messages.create(
        model="claude-x",
        max_tokens=100,
        messages=[
            {"role": "user", "content": "1 + 2?"},
            {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in first.content]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "3"}]},
        ],
        tools=[ADD_ANTHROPIC],
    )
    assert second.content[0].text == "3"


def test_the_official_clients_read_the_fakes_errors(server: FakeLLMServer):
    server.script(Fail(429, "Rate limit reached for requests", retry_after="1"), Fail(529, "Overloaded"))
    with pytest.raises(openai.RateLimitError) as caught:
        openai.OpenAI(base_url=server.openai_url, api_key=KEY, max_retries=0).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}]
        )
    assert caught.value.status_code == 429 and "Rate limit reached" in caught.value.message
    with pytest.raises(anthropic.APIStatusError) as caught_a:
        anthropic.Anthropic(base_url=server.url, api_key=KEY, max_retries=0).messages.create(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )
    assert caught_a.value.status_code == 529 and "Overloaded" in caught_a.value.message


def test_the_fake_refuses_what_the_real_apis_refuse(server: FakeLLMServer):
    """A tool result that answers no call, and two user turns in a row for Anthropic."""
    sdk = openai.OpenAI(base_url=server.openai_url, api_key=KEY, max_retries=0)
    with pytest.raises(openai.BadRequestError, match="must answer a preceding message"):
        sdk.chat.completions.create(model="m", messages=[{"role": "tool", "tool_call_id": "nope", "content": "3"}])
    with pytest.raises(anthropic.BadRequestError, match="alternate"):
        anthropic.Anthropic(base_url=server.url, api_key=KEY, max_retries=0).messages.create(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
        )
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=server.openai_url, api_key="wrong", max_retries=0).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}]
        )
    assert len(server.rejected) == 2
    server.rejected.clear()  # expected here; the fixture fails a test on any other refusal
