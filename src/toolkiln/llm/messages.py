"""The provider-neutral conversation: what goes in (messages) and what comes out (a `Reply`).

Each client maps these to its wire format and back, so code above the clients never sees a
provider's JSON. A conversation with tools goes: `User` -> reply with `tool_calls` ->
`reply.message()` (an `Assistant`) and one `ToolResult` per call -> the next reply.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def as_messages(messages: str | Sequence[Message]) -> tuple[Message, ...]:
    """The conversation as a tuple of messages; a bare string is one `User` message."""
    if isinstance(messages, str):
        return (User(messages),)
    result = tuple(messages)
    for index, message in enumerate(result):
        if not isinstance(message, MESSAGE_TYPES):
            raise LLMConfigError(
                f"message {index} is a {type(message).__name__}, not a message",
                hint="use toolkiln.llm.System, User, Assistant or ToolResult",
            )
    if not any(isinstance(message, User | ToolResult) for message in result):
        raise LLMConfigError("the conversation has no user message")
    return result
