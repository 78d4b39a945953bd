"""The one place the model clients touch HTTP: POST a JSON body, get a JSON object back.

It owns what every provider needs alike: the whole-request deadline, retries with exponential
backoff and jitter on connection failures, 429 and 5xx (honouring Retry-After, in seconds or as
an HTTP date), the size cap (checked while the body streams in, so a huge reply is never held
whole), turning failures into `LLMError`s with the provider's own message, and keeping the API
key out of every message, error and log line.
"""

from __future__ import annotations

import json
import logging
import random
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

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
_MASK = "***"


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait: delay n is `backoff * 2**(n-1)`, capped at `max_backoff`,
    times a random factor in [0.5, 1) so that clients failing together do not retry together.
    A Retry-After from the server replaces the computed delay; one longer than `max_retry_after`
    is not waited for (the error is raised at once, carrying `retry_after`)."""

    max_retries: int = 2
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise LLMConfigError(f"max_retries must be 0 or more, got {self.max_retries}")
        if self.backoff < 0 or self.max_backoff < 0 or self.max_retry_after < 0:
            raise LLMConfigError("backoff, max_backoff and max_retry_after must not be negative")

    def delay(self, retry: int, jitter: float) -> float:
        return min(self.max_backoff, self.backoff * 2.0 ** (retry - 1)) * (0.5 + jitter / 2)


class _Retryable(Exception):
    """A failure worth another try; `error` is raised if no try is left."""

    def __init__(self, error: LLMError, retry_after: float | None = None) -> None:
        self.error = error
        self.retry_after = retry_after


class Transport:
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
        if not timeout > 0:
            raise LLMConfigError(f"timeout must be positive, got {timeout}")
        if max_reply_bytes <= 0:
            raise LLMConfigError(f"max_reply_bytes must be positive, got {max_reply_bytes}")
        self.provider = provider
        self.base_url = check_url(base_url)
        self.timeout = timeout
        self.retry = retry
        self.max_reply_bytes = max_reply_bytes
        # The key as a whole token: a placeholder key such as "x" (local servers) must not
        # garble every word that contains the letter.
        self._secret = re.compile(rf"(?<![\w-]){re.escape(secret)}(?![\w-])") if secret else None
        self._sleep = sleep
        self._random = random.Random()
        self._http = httpx.Client(
            timeout=timeout,
            transport=transport,
            headers={"Content-Type": "application/json", "Accept": "application/json", **headers},
            follow_redirects=False,
        )

    def close(self) -> None:
        self._http.close()

    def post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """The JSON object the provider answered, after at most `max_retries` retries."""
        url = self.base_url + path
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        attempt = 1
        while True:
            try:
                return self._attempt(url, payload, attempt)
            except _Retryable as failure:
                error = failure.error
                if attempt > self.retry.max_retries:
                    raise error from None
                if failure.retry_after is not None and failure.retry_after > self.retry.max_retry_after:
                    raise error from None
                wait = failure.retry_after
                if wait is None:
                    wait = self.retry.delay(attempt, self._random.random())
                log.warning(
                    "%s: %s; retry %d of %d in %.2fs",
                    self.provider,
                    error.message,
                    attempt,
                    self.retry.max_retries,
                    wait,
                )
                self._sleep(wait)
                attempt += 1

    def _attempt(self, url: str, payload: bytes, attempt: int) -> dict[str, Any]:
        where: dict[str, Any] = {"provider": self.provider, "url": shown_url(url), "attempts": attempt}
        deadline = time.monotonic() + self.timeout
        try:
            with self._http.stream("POST", url, content=payload) as response:
                content = self._read_capped(response, deadline, where)
        except httpx.ConnectTimeout:
            raise _Retryable(LLMConnectionError("could not connect in time", **where)) from None
        except httpx.TimeoutException as exc:
            raise LLMTimeout(f"no reply within {self.timeout:g}s ({type(exc).__name__})", **where) from None
        except (httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            message = self._scrub(f"{type(exc).__name__}: {exc}")
            raise _Retryable(LLMConnectionError(message, **where)) from None
        except httpx.HTTPError as exc:
            raise LLMError(self._scrub(f"request failed: {type(exc).__name__}: {exc}"), **where) from None
        status = response.status_code
        if 200 <= status < 300:
            return self._json_object(content, status, where)
        raise self._failure(response, content, where)

    def _read_capped(self, response: httpx.Response, deadline: float, where: dict[str, Any]) -> bytes:
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > self.max_reply_bytes:
            raise LLMReplyTooLarge(
                f"the reply declares {int(declared)} bytes, more than the cap of {self.max_reply_bytes}",
                status=response.status_code,
                **where,
            )
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_reply_bytes:
                raise LLMReplyTooLarge(
                    f"the reply is larger than the cap of {self.max_reply_bytes} bytes",
                    status=response.status_code,
                    **where,
                )
            # httpx's timeout bounds each read; a server trickling bytes must not outlast ours.
            if time.monotonic() > deadline:
                raise LLMTimeout(f"no complete reply within {self.timeout:g}s", **where)
            chunks.append(chunk)
        return b"".join(chunks)

    def _json_object(self, content: bytes, status: int, where: dict[str, Any]) -> dict[str, Any]:
        try:
            parsed = json.loads(content)
        except ValueError:
            raise LLMBadResponse(
                f"the reply is not JSON: {_preview(self._scrub(_text(content)))!r}", status=status, **where
            ) from None
        if not isinstance(parsed, dict):
            raise LLMBadResponse(
                f"the reply is JSON but not an object: {type(parsed).__name__}", status=status, **where
            )
        return parsed

    def _failure(self, response: httpx.Response, content: bytes, where: dict[str, Any]) -> Exception:
        status = response.status_code
        text = self._scrub(_text(content))
        body = _parsed_or_none(text)
        message = provider_message(body) or _preview(text.strip()) or response.reason_phrase or f"HTTP {status}"
        details = {"status": status, "body": body, **where}
        if status in (401, 403):
            return LLMAuthenticationError(message, hint="check the API key", **details)
        if status == 429:
            after = retry_after(response.headers)
            hint = None
            if after is not None and after > self.retry.max_retry_after:
                hint = (
                    f"the server asks to wait {after:g}s, longer than max_retry_after ({self.retry.max_retry_after:g}s)"
                )
            return _Retryable(LLMRateLimited(message, retry_after=after, hint=hint, **details), after)
        if status >= 500:
            return _Retryable(LLMServerError(message, **details), retry_after(response.headers))
        if status >= 400:
            return LLMRequestError(message, **details)
        return LLMBadResponse(f"unexpected HTTP {status}: {message}", **details)

    def _scrub(self, text: str) -> str:
        return self._secret.sub(_MASK, text) if self._secret else text


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


def retry_after(headers: httpx.Headers) -> float | None:
    """Seconds to wait from `retry-after-ms` (OpenAI) or `Retry-After` (seconds or an HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def check_url(base_url: str) -> str:
    """The URL without a trailing slash; LLMConfigError unless it is an http(s) URL without query."""
    if not isinstance(base_url, str) or not base_url.strip():
        raise LLMConfigError("no base URL", hint="pass base_url or set TOOLKILN_LLM_BASE_URL")
    url = base_url.strip().rstrip("/")
    try:
        parts = urlsplit(url)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 0) >= 0
        httpx.URL(url)
    except (ValueError, httpx.InvalidURL):
        valid = False
    if not valid:
        raise LLMConfigError(f"not an http(s) URL: {shown_url(base_url)!r}", hint="e.g. http://127.0.0.1:8000/v1")
    if parts.query or parts.fragment:
        raise LLMConfigError(f"the base URL must not have a query or fragment: {shown_url(url)!r}")
    return url


def shown_url(url: str) -> str:
    """The URL without user:password, which may hold a key."""
    try:
        parts = urlsplit(url)
        if parts.username is None and parts.password is None:
            return url
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
    except ValueError:
        return "<unparsable URL>"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _text(content: bytes) -> str:
    return content.decode("utf-8", errors="replace")


def _parsed_or_none(text: str) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def _preview(text: str, size: int = _SHOWN) -> str:
    return text if len(text) <= size else text[:size] + "..."
