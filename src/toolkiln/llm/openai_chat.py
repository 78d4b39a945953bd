"""OpenAI's chat completions API (`POST {base_url}/chat/completions`), which OpenRouter, vLLM,
Ollama, the llama.cpp server and the LiteLLM proxy speak too.

`base_url` includes the version, as the official SDK's does: https://api.openai.com/v1,
https://openrouter.ai/api/v1, http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:8000/v1 (vLLM).
"""

from __future__ import annotations

import json
from typing import Any, assert_never

from toolkiln.llm.client import BadShape, HTTPChatClient, count, expect
from toolkiln.llm.messages import Assistant, Message, Reply, System, ToolCall, ToolResult, Usage, User

STOP_REASONS = {"stop": "end", "tool_calls": "tool_calls", "function_call": "tool_calls", "length": "max_tokens"}


class OpenAIChat(HTTPChatClient):
    """A client of an OpenAI-compatible chat completions endpoint."""

    provider = "openai"
    tool_format = "openai"
    path = "/chat/completions"

    def _auth_headers(self, api_key: str | None) -> dict[str, str]:
        # Local servers (Ollama, vLLM, llama.cpp) need no key: then no header at all.
        return {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def _body(
        self,
        messages: tuple[Message, ...],
        tools: list[dict[str, Any]],
        tool_choice: str | None,
        max_tokens: int | None,
        temperature: float | None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": [wire_message(m) for m in messages]}
        if tools:
            body["tools"] = tools
        if tool_choice in ("auto", "none", "required"):
            body["tool_choice"] = tool_choice
        elif tool_choice is not None:
            body["tool_choice"] = {"type": "function", "function": {"name": tool_choice}}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if temperature is not None:
            body["temperature"] = temperature
        return body

    def _reply(self, raw: dict[str, Any]) -> Reply:
        choices = expect(raw.get("choices"), list, "choices")
        if not choices:
            raise BadShape("`choices` is empty")
        choice = expect(choices[0], dict, "choices[0]")
        message = expect(choice.get("message"), dict, "choices[0].message")
        usage: dict[str, Any] = raw["usage"] if isinstance(raw.get("usage"), dict) else {}
        finish = choice.get("finish_reason")
        return Reply(
            text=_text(message.get("content")),
            tool_calls=tuple(
                _tool_call(call, f"choices[0].message.tool_calls[{i}]")
                for i, call in enumerate(expect(message.get("tool_calls") or [], list, "choices[0].message.tool_calls"))
            ),
            usage=Usage(count(usage.get("prompt_tokens")), count(usage.get("completion_tokens")), 1),
            stop_reason=STOP_REASONS.get(finish, finish) if isinstance(finish, str) else None,
            raw=raw,
            model=raw.get("model") if isinstance(raw.get("model"), str) else None,
        )


def wire_message(message: Message) -> dict[str, Any]:
    """One neutral message as a chat completions message."""
    match message:
        case System(text):
            return {"role": "system", "content": text}
        case User(text):
            return {"role": "user", "content": text}
        case Assistant(text, tool_calls):
            # Null content is allowed only beside tool calls.
            wire: dict[str, Any] = {"role": "assistant", "content": text or (None if tool_calls else "")}
            if tool_calls:
                wire["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": call.name,
                            # The model's own text when it was not valid JSON: the history stays true.
                            "arguments": call.raw_arguments
                            if call.raw_arguments is not None
                            else json.dumps(call.arguments, ensure_ascii=False),
                        },
                    }
                    for call in tool_calls
                ]
            return wire
        case ToolResult(tool_call_id, content):
            # Chat completions has no error flag: the content says what went wrong.
            return {"role": "tool", "tool_call_id": tool_call_id, "content": content}
        case _:
            assert_never(message)


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    # Some compatible servers send content parts instead of a string.
    parts = expect(content, list, "choices[0].message.content")
    return "".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))


def _tool_call(call: Any, where: str) -> ToolCall:
    call = expect(call, dict, where)
    function = expect(call.get("function"), dict, f"{where}.function")
    name = expect(function.get("name"), str, f"{where}.function.name")
    call_id = expect(call.get("id"), str, f"{where}.id")
    arguments = function.get("arguments")
    if isinstance(arguments, dict):  # Some compatible servers send the object itself.
        return ToolCall(call_id, name, arguments)
    text = expect(arguments if arguments is not None else "", str, f"{where}.function.arguments")
    try:
        parsed = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        return ToolCall(call_id, name, {}, text, f"the arguments are not valid JSON: {exc}")
    if not isinstance(parsed, dict):
        return ToolCall(call_id, name, {}, text, f"the arguments are {type(parsed).__name__}, not a JSON object")
    return ToolCall(call_id, name, parsed, text)
