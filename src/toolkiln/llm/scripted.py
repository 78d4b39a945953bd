"""`ScriptedClient`: a model that says what a test or an example tells it to, in order.

    client = ScriptedClient(["first answer", Reply(tool_calls=[ToolCall("c1", "add", {"a": 1})])])
    client.chat("hi").text          # "first answer"
    client.requests[0].messages     # (User("hi"),)

It checks its arguments as the HTTP clients do, so code that works against it sends requests
the real clients accept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from toolkiln.llm.client import checked_tool_choice
from toolkiln.llm.errors import LLMConfigError, LLMError, ScriptExhausted
from toolkiln.llm.messages import Message, MessageLike, Reply, Usage, as_messages
from toolkiln.llm.tools import Tools, tool_definitions
from toolkiln.registry.formats import CHAT_FORMATS

ScriptItem = str | Reply | LLMError


@dataclass(frozen=True)
class ScriptedRequest:
    """What one `chat` call asked for; tools as they would have been sent."""

    messages: tuple[Message, ...]
    tools: tuple[dict[str, Any], ...] = ()
    tool_choice: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class ScriptedClient:
    """Returns the scripted replies in order: a string is a text reply, a `Reply` is returned as
    given (with tool calls, usage...), an `LLMError` is raised. Records every request in
    `requests`; one request more than the script raises `ScriptExhausted`."""

    provider = "scripted"

    def __init__(self, replies: Iterable[ScriptItem], *, model: str = "scripted", tool_format: str = "openai") -> None:
        if tool_format not in CHAT_FORMATS:
            raise LLMConfigError(f"tool_format must be one of {', '.join(CHAT_FORMATS)}, got {tool_format!r}")
        self._script = list(replies)
        for index, item in enumerate(self._script):
            if not isinstance(item, str | Reply | LLMError):
                raise LLMConfigError(f"script item {index} is a {type(item).__name__}, not a str, Reply or LLMError")
        self.model = model
        self.tool_format = tool_format
        self.usage = Usage()
        self.requests: list[ScriptedRequest] = []

    def __repr__(self) -> str:
        return f"ScriptedClient({len(self.requests)} of {len(self._script)} replies used)"

    @property
    def remaining(self) -> int:
        return len(self._script) - len(self.requests)

    def chat(
        self,
        messages: str | Sequence[MessageLike],
        *,
        tools: Tools | None = None,
        tool_choice: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Reply:
        conversation = as_messages(messages)
        definitions = tool_definitions(tools, self.tool_format)
        choice = checked_tool_choice(tool_choice, definitions, self.tool_format)
        if len(self.requests) >= len(self._script):
            raise ScriptExhausted(
                f"the script has {len(self._script)} replies and request {len(self.requests) + 1} came",
                provider=self.provider,
                hint="add a reply to the script, or look for a loop that asks once more than expected",
            )
        item = self._script[len(self.requests)]
        request = ScriptedRequest(conversation, tuple(definitions), choice, max_tokens, temperature, dict(extra or {}))
        self.requests.append(request)
        if isinstance(item, LLMError):
            raise item
        reply = Reply(text=item) if isinstance(item, str) else item
        # Each scripted answer is one request, whatever usage the script wrote for it.
        reply = replace(
            reply,
            usage=replace(reply.usage, requests=1),
            model=reply.model or self.model,
            stop_reason=reply.stop_reason or ("tool_calls" if reply.tool_calls else "end"),
        )
        self.usage += reply.usage
        return reply
