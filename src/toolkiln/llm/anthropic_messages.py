"""Anthropic's messages API (`POST {base_url}/v1/messages`).

`base_url` is the host, as the official SDK's is: https://api.anthropic.com. The API wants the
system prompt apart from the messages, strictly alternating user and assistant turns, tool
results inside a user turn, and `max_tokens` on every request; the mapping below provides each.
"""

from __future__ import annotations

from typing import Any, assert_never

from toolkiln.llm.client import BadShape, HTTPChatClient, count, expect
from toolkiln.llm.errors import LLMConfigError
from toolkiln.llm.messages import Assistant, Message, Reply, System, ToolCall, ToolResult, Usage, User

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
STOP_REASONS = {"end_turn": "end", "stop_sequence": "end", "tool_use": "tool_calls", "max_tokens": "max_tokens"}
TOOL_CHOICES = {"auto": {"type": "auto"}, "none": {"type": "none"}, "required": {"type": "any"}}


class AnthropicMessages(HTTPChatClient):
    """A client of the Anthropic messages API. `max_tokens` (required by the API) defaults to 4096."""

    provider = "anthropic"
    tool_format = "anthropic"
    path = "/v1/messages"

    def __init__(
        self, base_url: str, api_key: str | None, model: str, *, max_tokens: int = DEFAULT_MAX_TOKENS, **options: Any
    ) -> None:
        if max_tokens <= 0:
            raise LLMConfigError(f"max_tokens must be positive, got {max_tokens}")
        self.max_tokens = max_tokens
        super().__init__(base_url, api_key, model, **options)

    def _auth_headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    def _body(
        self,
        messages: tuple[Message, ...],
        tools: list[dict[str, Any]],
        tool_choice: str | None,
        max_tokens: int | None,
        temperature: float | None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens or self.max_tokens}
        system = "\n\n".join(m.text for m in messages if isinstance(m, System))
        if system:
            body["system"] = system
        body["messages"] = wire_messages(messages)
        if tools:
            body["tools"] = tools
        if tool_choice is not None:
            body["tool_choice"] = TOOL_CHOICES.get(tool_choice) or {"type": "tool", "name": tool_choice}
        if temperature is not None:
            body["temperature"] = temperature
        return body

    def _reply(self, raw: dict[str, Any]) -> Reply:
        content = expect(raw.get("content"), list, "content")
        texts: list[str] = []
        calls: list[ToolCall] = []
        for index, block in enumerate(content):
            where = f"content[{index}]"
            block = expect(block, dict, where)
            match block.get("type"):
                case "text":
                    texts.append(expect(block.get("text"), str, f"{where}.text"))
                case "tool_use":
                    calls.append(
                        ToolCall(
                            expect(block.get("id"), str, f"{where}.id"),
                            expect(block.get("name"), str, f"{where}.name"),
                            expect(block.get("input"), dict, f"{where}.input"),
                        )
                    )
                case None:
                    raise BadShape(f"`{where}` has no type")
                # Other blocks (thinking, server tools) are not part of the neutral reply; `raw` has them.
        usage: dict[str, Any] = raw["usage"] if isinstance(raw.get("usage"), dict) else {}
        # Cached input is input too: the three counts together are what the prompt cost.
        input_tokens = sum(
            count(usage.get(key)) for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        stop = raw.get("stop_reason")
        return Reply(
            text="".join(texts),
            tool_calls=tuple(calls),
            usage=Usage(input_tokens, count(usage.get("output_tokens")), 1),
            stop_reason=STOP_REASONS.get(stop, stop) if isinstance(stop, str) else None,
            raw=raw,
            model=raw.get("model") if isinstance(raw.get("model"), str) else None,
        )


def wire_messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """The turns without the system prompt; consecutive user content (text, tool results) is
    merged into one turn, since the API wants user and assistant to alternate."""
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for message in messages:
        match message:
            case System():
                pass
            case User(text):
                add("user", [{"type": "text", "text": text}])
            case Assistant(text, tool_calls):
                blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
                blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in tool_calls]
                if blocks:  # the API refuses an empty turn
                    add("assistant", blocks)
            case ToolResult(tool_call_id, content, is_error):
                block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_call_id, "content": content}
                if is_error:
                    block["is_error"] = True
                add("user", [block])
            case _:
                assert_never(message)
    return turns
