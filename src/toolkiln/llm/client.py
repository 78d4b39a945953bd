"""What every model client offers (`ChatClient`) and the part the HTTP clients share.

A subclass says where to POST, which headers authenticate, how the neutral conversation becomes
its request body and how its answer becomes a `Reply`; this base does the rest: checking the
arguments, the transport (timeouts, retries, size cap, errors), and counting usage.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol, Self

import httpx

from toolkiln.http.urls import shown_url
from toolkiln.llm.errors import LLMBadResponse, LLMConfigError
from toolkiln.llm.messages import TOOL_CHOICE_MODES, Message, MessageLike, Reply, Usage, as_messages
from toolkiln.llm.tools import Tools, tool_definitions, tool_name
from toolkiln.llm.transport import MAX_REPLY_BYTES, ProviderTransport, retry_policy


class ChatClient(Protocol):
    """Anything that answers a conversation: the HTTP clients and `ScriptedClient`."""

    model: str
    usage: Usage

    @property
    def tool_format(self) -> str:
        """The format `chat` wants tools in: "openai" or "anthropic"."""
        ...

    def chat(
        self,
        messages: str | Sequence[MessageLike],
        *,
        tools: Tools | None = None,
        tool_choice: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Reply: ...


class BadShape(Exception):
    """Raised by a subclass's `_reply` when the JSON is not the documented shape."""


def expect(value: Any, kind: type | tuple[type, ...], where: str) -> Any:
    """`value` if it is a `kind`, else BadShape naming `where` (a path such as `choices[0].message`)."""
    if not isinstance(value, kind):
        raise BadShape(f"`{where}` is {type(value).__name__}, not what the API documents")
    return value


def count(value: Any) -> int:
    """A token count, or 0 when the provider left it out (some local servers do)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def checked_tool_choice(tool_choice: str | None, definitions: list[dict[str, Any]], format: str) -> str | None:  # noqa: A002
    if tool_choice is None:
        return None
    if not definitions:
        raise LLMConfigError(f"tool_choice={tool_choice!r} without tools")
    names = [tool_name(d, format) for d in definitions]
    if tool_choice not in TOOL_CHOICE_MODES and tool_choice not in names:
        raise LLMConfigError(
            f"tool_choice={tool_choice!r} is neither a mode nor one of the tools",
            hint=f"use {', '.join(TOOL_CHOICE_MODES)} or a tool name",
        )
    return tool_choice


class HTTPChatClient:
    """A chat API over HTTP. Use as a context manager, or call `close()`."""

    provider: ClassVar[str]
    tool_format: ClassVar[str]
    path: ClassVar[str]

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        model: str,
        *,
        timeout: float = 120.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_retry_after: float = 60.0,
        max_reply_bytes: int = MAX_REPLY_BYTES,
        headers: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise LLMConfigError("no model", hint="pass model or set TOOLKILN_LLM_MODEL")
        self.model = model.strip()
        self.usage = Usage()
        self._transport = ProviderTransport(
            provider=self.provider,
            base_url=base_url,
            headers={**(headers or {}), **self._auth_headers(api_key or None)},
            secret=api_key,
            timeout=timeout,
            retry=retry_policy(max_retries, backoff, max_backoff, max_retry_after),
            max_reply_bytes=max_reply_bytes,
            transport=transport,
            sleep=sleep,
        )
        self.base_url = self._transport.base_url

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={shown_url(self.base_url)!r}, model={self.model!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._transport.close()

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
        """The model's reply to `messages` (a string is one user message).

        `tools`: definitions in `tool_format` or `ToolSpec`s. `tool_choice`: "auto", "none",
        "required" or a tool's name. `extra`: more fields for the request body, as the provider
        names them (e.g. {"top_p": 0.9}); they override what the client would send.
        """
        conversation = as_messages(messages)
        definitions = tool_definitions(tools, self.tool_format)
        choice = checked_tool_choice(tool_choice, definitions, self.tool_format)
        if max_tokens is not None and max_tokens <= 0:
            raise LLMConfigError(f"max_tokens must be positive, got {max_tokens}")
        body = self._body(conversation, definitions, choice, max_tokens, temperature)
        body.update(extra or {})
        raw = self._transport.post(self.path, body)
        try:
            reply = self._reply(raw)
        except BadShape as problem:
            raise LLMBadResponse(
                f"the reply is not a {self.provider} answer: {problem}",
                provider=self.provider,
                url=shown_url(self.base_url + self.path),
            ) from None
        self.usage += reply.usage
        return reply

    def _auth_headers(self, api_key: str | None) -> dict[str, str]:
        raise NotImplementedError

    def _body(
        self,
        messages: tuple[Message, ...],
        tools: list[dict[str, Any]],
        tool_choice: str | None,
        max_tokens: int | None,
        temperature: float | None,
    ) -> dict[str, Any]:
        raise NotImplementedError

    def _reply(self, raw: dict[str, Any]) -> Reply:
        raise NotImplementedError
