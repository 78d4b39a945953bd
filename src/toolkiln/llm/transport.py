"""What the model clients add to the HTTP transport (`toolkiln.http`): POST a JSON body, get a
JSON object back, and every failure as an `LLMError` with the provider's own message.

The transport owns what every server needs alike: the whole-request deadline, retries with
exponential backoff and jitter (here also on lost connections, 429 and 5xx, honouring
Retry-After: asking a model again is harmless), the size cap checked while the body streams in,
and keeping the API key out of every message, error and log line.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from toolkiln.http import errors as http
from toolkiln.http.transport import Response, RetryPolicy, Transport, json_or_none, retry_after
from toolkiln.llm.errors import (
    LLMAuthenticationError,
    LLMBadResponse,
    LLMConfigError,
    LLMConnectionError,
    LLMError,
    LLMRateLimited,
    LLMReplyTooLarge,
    LLMRequestError,
    LLMServerError,
    LLMTimeout,
)

log = logging.getLogger("toolkiln.llm")

MAX_REPLY_BYTES = 10 * 1024 * 1024
_SHOWN = 500  # characters of a non-JSON error body kept in the message

# The transport's failures as the model clients' documented errors.
_ERRORS: dict[type[http.HTTPError], type[LLMError]] = {
    http.BadOption: LLMConfigError,
    http.ConnectFailed: LLMConnectionError,
    http.ConnectionLost: LLMConnectionError,
    http.TimedOut: LLMTimeout,
    http.TooLarge: LLMReplyTooLarge,
}


def retry_policy(max_retries: int, backoff: float, max_backoff: float, max_retry_after: float) -> RetryPolicy:
    """The clients' retries: a model may be asked again, so lost connections, 429 and 5xx are retried."""
    try:
        return RetryPolicy(max_retries, backoff, max_backoff, max_retry_after, resend=True)
    except http.HTTPError as error:
        raise LLMConfigError(error.message) from None


class ProviderTransport:
    """POSTs JSON to one provider. Use `close()` (the clients do) when done."""

    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        headers: Mapping[str, str],
        secret: str | None,
        timeout: float,
        retry: RetryPolicy,
        max_reply_bytes: int = MAX_REPLY_BYTES,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.strip():
            raise LLMConfigError("no base URL", hint="pass base_url or set TOOLKILN_LLM_BASE_URL")
        self.provider = provider
        try:
            self.http = Transport(
                base_url,
                name=provider,
                timeout=timeout,
                retry=retry,
                max_bytes=max_reply_bytes,
                headers=headers,
                secrets=[secret],
                transport=transport,
                sleep=sleep,
                log=log,
            )
        except http.BadOption as error:
            hint = "e.g. http://127.0.0.1:8000/v1" if "URL" in error.message else None
            raise LLMConfigError(error.message, hint=hint) from None
        self.base_url = self.http.base_url

    def close(self) -> None:
        self.http.close()

    def post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """The JSON object the provider answered, after at most `max_retries` retries."""
        try:
            response = self.http.request("POST", path, body=body)
        except http.HTTPError as error:
            kind = _ERRORS.get(type(error), LLMError)
            raise kind(error.message, **self._where(error.url, error.attempts), status=error.status) from None
        if 200 <= response.status < 300:
            return self._json_object(response)
        raise self._failure(response)

    def _where(self, url: str | None, attempts: int) -> dict[str, Any]:
        return {"provider": self.provider, "url": url, "attempts": attempts}

    def _json_object(self, response: Response) -> dict[str, Any]:
        where = self._where(response.url, response.attempts)
        parsed = json_or_none(response.text)
        if parsed is None:
            shown = _preview(self.http.scrub(response.text))
            raise LLMBadResponse(f"the reply is not JSON: {shown!r}", status=response.status, **where)
        if not isinstance(parsed, dict):
            raise LLMBadResponse(
                f"the reply is JSON but not an object: {type(parsed).__name__}", status=response.status, **where
            )
        return parsed

    def _failure(self, response: Response) -> LLMError:
        status = response.status
        text = self.http.scrub(response.text)
        body = json_or_none(text)
        message = provider_message(body) or _preview(text.strip()) or response.reason or f"HTTP {status}"
        details = {"status": status, "body": body, **self._where(response.url, response.attempts)}
        if status in (401, 403):
            return LLMAuthenticationError(message, hint="check the API key", **details)
        if status == 429:
            after = retry_after(response.headers)
            longest = self.http.retry.max_retry_after
            hint = None
            if after is not None and after > longest:
                hint = f"the server asks to wait {after:g}s, longer than max_retry_after ({longest:g}s)"
            return LLMRateLimited(message, retry_after=after, hint=hint, **details)
        if status >= 500:
            return LLMServerError(message, **details)
        if status >= 400:
            return LLMRequestError(message, **details)
        return LLMBadResponse(f"unexpected HTTP {status}: {message}", **details)


def provider_message(body: Any) -> str | None:
    """The error message in the shapes providers use: OpenAI's and Anthropic's
    `{"error": {"message": ...}}`, Ollama's `{"error": "..."}`, `{"message": ...}`, `{"detail": ...}`."""
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    if isinstance(error, str):
        return error
    for key in ("message", "detail"):
        if isinstance(body.get(key), str):
            return str(body[key])
    return None


def _preview(text: str, size: int = _SHOWN) -> str:
    return text if len(text) <= size else text[:size] + "..."
