"""Errors of the model clients. Each derives from `toolkiln.Error` through `LLMError`.

An error carries what the provider said (`message`: its own error message when it sent one,
`status`, the parsed `body`) and what was asked (`provider`, `url`), never the API key: the
transport scrubs the key from anything a server echoes back.
"""

from __future__ import annotations

from typing import Any

from toolkiln.http.errors import ServiceError


class LLMError(ServiceError):
    """Base of every model client error; `provider` names who answered (every call is a POST)."""

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status: int | None = None,
        url: str | None = None,
        body: Any = None,
        attempts: int = 1,
        hint: str | None = None,
    ) -> None:
        self.provider = provider
        method = "POST" if url else None
        super().__init__(
            message, service=provider, status=status, method=method, url=url, body=body, attempts=attempts, hint=hint
        )

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "provider": self.provider}


class LLMConfigError(LLMError):
    """No usable base URL, model, provider or option; or tools in a shape the client cannot send."""


class LLMConnectionError(LLMError):
    """The server could not be reached or dropped the connection (after the retries)."""


class LLMTimeout(LLMError):
    """No complete reply within the timeout. Not retried: a slow model stays slow, and each try costs."""


class LLMAuthenticationError(LLMError):
    """401 or 403: a wrong, missing or under-privileged API key."""


class LLMRequestError(LLMError):
    """Another 4xx: the provider refused the request (unknown model, bad message list, too long)."""


class LLMRateLimited(LLMError):
    """429 after the retries, or a Retry-After longer than the client is willing to wait."""

    def __init__(self, message: str, *, retry_after: float | None = None, **details: Any) -> None:
        self.retry_after = retry_after
        super().__init__(message, **details)


class LLMServerError(LLMError):
    """5xx after the retries: the provider failed or is overloaded."""


class LLMBadResponse(LLMError):
    """A 2xx answer that is not JSON, or JSON that is not the shape the API documents."""


class LLMReplyTooLarge(LLMError):
    """The reply was bigger than the client's cap; it was refused while it streamed in."""


class ScriptExhausted(LLMError):
    """A `ScriptedClient` was asked for more replies than it was given."""
