"""The provider-neutral conversation: what goes in (messages) and what comes out (a `Reply`).

Each client maps these to its wire format and back, so code above the clients never sees a
provider's JSON. A conversation with tools goes: `User` -> reply with `tool_calls` ->
`reply.message()` (an `Assistant`) and one `ToolResult` per call -> the next reply.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolkiln.llm.errors import LLMConfigError

# The tool choices every provider has; any other string names the one tool the model must call.
TOOL_CHOICE_MODES = ("auto", "none", "required")


@dataclass(frozen=True)
class ToolCall:
    """One call the model asked for. `arguments` is the parsed JSON object.

    A model may send arguments that are not a JSON object; that is its mistake to repair, not
    a broken reply, so the call is kept with `arguments={}`, the text in `raw_arguments` and the
    reason in `arguments_error`.
    """

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    raw_arguments: str | None = None
    arguments_error: str | None = None


@dataclass(frozen=True)
class Usage:
    """Tokens in and out, and the requests that used them (retries are not counted twice)."""

    input_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.requests + other.requests,
        )


@dataclass(frozen=True)
class System:
    text: str


@dataclass(frozen=True)
class User:
    text: str


@dataclass(frozen=True)
class Assistant:
    """What the model said before: its text and the tool calls it made."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))


@dataclass(frozen=True)
class ToolResult:
    """The answer to one tool call, sent back under the call's id."""

    tool_call_id: str
    content: str
    is_error: bool = False


Message = System | User | Assistant | ToolResult
MESSAGE_TYPES = (System, User, Assistant, ToolResult)


@dataclass(frozen=True)
class Reply:
    """One answer of a model, whatever the provider.

    `stop_reason` is "end", "tool_calls" or "max_tokens" when the provider's own reason means
    one of them, else the provider's word; `raw` is the parsed JSON as received.
    """

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    stop_reason: str | None = None
    raw: Any = field(default=None, repr=False, compare=False)
    model: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))

    def message(self) -> Assistant:
        """This reply as the assistant turn to append to the conversation."""
        return Assistant(self.text, self.tool_calls)


# A message as OpenAI's chat API and SDK write it: {"role": "user", "content": "..."}, an
# assistant's {"role": "assistant", "content": ..., "tool_calls": [...]}, {"role": "tool",
# "tool_call_id": ..., "content": ...}; taken wherever a conversation is.
MessageLike = Message | Mapping[str, Any]


def as_messages(messages: str | Sequence[MessageLike]) -> tuple[Message, ...]:
    """The conversation as a tuple of messages; a bare string is one `User` message, an
    OpenAI-style dict the message it says (`from_openai`)."""
    if isinstance(messages, str):
        return (User(messages),)
    result = tuple(
        from_openai(message, index) if isinstance(message, Mapping) else message
        for index, message in enumerate(messages)
    )
    for index, message in enumerate(result):
        if not isinstance(message, MESSAGE_TYPES):
            raise LLMConfigError(
                f"message {index} is a {type(message).__name__}, not a message",
                hint="use toolkiln.llm.System, User, Assistant or ToolResult, or a dict with role and content",
            )
    if not any(isinstance(message, User | ToolResult) for message in result):
        raise LLMConfigError("the conversation has no user message")
    return result


def from_openai(message: Mapping[str, Any], index: int = 0) -> Message:
    """An OpenAI-style message dict as toolkiln's message; LLMConfigError naming the message
    and the field when it is not one."""
    role = message.get("role")
    if role in ("system", "developer"):
        return System(_content(message, index))
    if role == "user":
        return User(_content(message, index))
    if role == "assistant":
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list | tuple):
            raise _bad(index, "`tool_calls` must be a list")
        text = _content(message, index) if message.get("content") is not None else ""
        return Assistant(text, tuple(_openai_call(call, index, n) for n, call in enumerate(calls)))
    if role == "tool":
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str):
            raise _bad(index, "a tool message needs `tool_call_id`, a string")
        return ToolResult(call_id, _content(message, index))
    raise _bad(index, f"`role` is {str(role)[:40]!r}", hint="use system, developer, user, assistant or tool")


def _content(message: Mapping[str, Any], index: int) -> str:
    """A message's text: a string, or a list of parts of which only text parts are taken."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list | tuple) and all(
        isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str)
        for part in content
    ):
        return "".join(part["text"] for part in content)
    raise _bad(index, "`content` must be a string or a list of text parts", hint='{"type": "text", "text": "..."}')


def _openai_call(call: Any, index: int, number: int) -> ToolCall:
    function = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(call, Mapping) or not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        raise _bad(index, f"`tool_calls[{number}]` needs `function` with a `name`")
    arguments = function.get("arguments", "{}")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            raise _bad(index, f"`tool_calls[{number}].function.arguments` is not JSON") from None
    if not isinstance(arguments, dict):
        raise _bad(index, f"`tool_calls[{number}].function.arguments` is not a JSON object")
    return ToolCall(str(call.get("id", "")), function["name"], arguments)


def _bad(
    index: int, problem: str, hint: str = "see the OpenAI chat format: role, content, tool_calls"
) -> LLMConfigError:
    return LLMConfigError(f"message {index}: {problem}", hint=hint)
