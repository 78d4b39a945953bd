"""One HTTP exchange with retries: `Transport.request` sends, reads the answer under a deadline
and a size cap, and returns a `Response` whatever its status; the client decides what a status
means. Failures are `HTTPError`s whose messages and log lines hold no credential.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from toolkiln.http.deadline import pooled_transport, within
from toolkiln.http.decoding import ACCEPTED, NotDecoded, decoded
from toolkiln.http.errors import (
    BadOption,
    ConnectFailed,
    ConnectionLost,
    HTTPError,
    RequestFailed,
    TimedOut,
    TooLarge,
)
from toolkiln.http.urls import Scrubber, checked_url, shown_url, split_credentials, url_credentials

_PREVIEW = 200  # characters of an answer quoted in a log line


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait: delay n is `backoff * 2**(n-1)`, capped at `max_backoff`,
    with `jitter` times a random factor in [0.5, 1) so that clients failing together do not
    retry together. A failure before anything was sent is always worth another try; with
    `resend`, so are a lost connection, 429 and 5xx (the request may have reached the server,
    so only a caller for whom that is harmless says so). A Retry-After replaces the computed
    delay; one longer than `max_retry_after` is not waited for (the answer is returned)."""

    max_retries: int = 2
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 60.0
    jitter: bool = True
    resend: bool = False

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise BadOption(f"retries must be 0 or more, got {self.max_retries}")
        if self.backoff < 0 or self.max_backoff < 0 or self.max_retry_after < 0:
            raise BadOption("backoff, max_backoff and max_retry_after must not be negative")

    def delay(self, retry: int, chance: Callable[[], float]) -> float:
        wait = min(self.max_backoff, self.backoff * 2.0 ** (retry - 1))
        return wait * (0.5 + chance() / 2) if self.jitter else wait

    def retries_status(self, status: int) -> bool:
        return self.resend and (status == 429 or status >= 500)


@dataclass(frozen=True)
class Response:
    """An answer read whole (within the cap): `url` is the one asked, without credentials."""

    status: int
    reason: str
    headers: httpx.Headers
    content: bytes
    url: str
    attempts: int

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


class _Retry(Exception):
    """A failure worth another try; `error` is raised if no try is left."""

    def __init__(self, error: HTTPError) -> None:
        self.error = error


class Transport:
    """Requests to one server (`base_url`); relative URLs are joined to it. Use `close()`."""

    def __init__(
        self,
        base_url: str,
        *,
        name: str,
        timeout: float,
        retry: RetryPolicy,
        max_bytes: int,
        headers: Mapping[str, str] | None = None,
        secrets: Iterable[str | None] = (),
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        log: logging.Logger | None = None,
    ) -> None:
        if not timeout > 0:
            raise BadOption(f"timeout must be positive, got {timeout}")
        if max_bytes <= 0:
            raise BadOption(f"the size cap must be positive, got {max_bytes}")
        self.base_url = checked_url(base_url)
        self.name, self.timeout, self.retry, self.max_bytes = name, timeout, retry, max_bytes
        self.scrub = Scrubber([*secrets, *url_credentials(self.base_url)])
        self._bare_url, auth = split_credentials(self.base_url)
        self._sleep = sleep
        self._log = log or logging.getLogger("toolkiln.http")
        self._chance = random.Random().random
        self._http = httpx.Client(
            base_url=self._bare_url,
            auth=auth,
            timeout=timeout,
            transport=transport or pooled_transport(),
            headers={"Accept": "application/json", "Accept-Encoding": ACCEPTED, **(headers or {})},
            follow_redirects=False,
        )

    def close(self) -> None:
        self._http.close()

    def shown(self, url: str) -> str:
        """`url` (relative to the base URL or absolute) as messages show it: no credentials."""
        return shown_url(url if "://" in url else self._bare_url + url)

    def _relative(self, url: str) -> str:
        """A URL on this server as a path, so that it goes out with the base URL's credentials
        as auth, never in the URL."""
        return url[len(self.base_url) :] if url.startswith(self.base_url + "/") else url

    def request(
        self,
        method: str,
        url: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> Response:
        """The answer to `method url` with `body` as JSON (none when None), after at most
        `max_retries` retries; HTTPError when there is none to give."""
        sent = dict(headers or {})
        content = None
        if body is not None:
            content = json.dumps(body, ensure_ascii=False).encode("utf-8")
            sent.setdefault("Content-Type", "application/json")
        request = self._http.build_request(
            method, self._relative(url), content=content, params=params, headers=sent, timeout=timeout or self.timeout
        )
        attempt = 1
        while True:
            try:
                response = self._attempt(request, timeout or self.timeout, attempt)
            except _Retry as failure:
                if attempt > self.retry.max_retries:
                    raise failure.error from None
                wait, why = self.retry.delay(attempt, self._chance), failure.error.message
            else:
                after = self._wait_for(response, attempt)
                if after is None:
                    return response
                wait, why = after, f"HTTP {response.status}: {self.scrub(_preview(response.text))}"
            self._log.warning("%s: %s; retry %d of %d in %.2fs", self.name, why, attempt, self.retry.max_retries, wait)
            self._sleep(wait)
            attempt += 1

    def _wait_for(self, response: Response, attempt: int) -> float | None:
        """How long to wait before sending again, or None when `response` is the answer."""
        if not self.retry.retries_status(response.status) or attempt > self.retry.max_retries:
            return None
        after = retry_after(response.headers)
        if after is None:
            return self.retry.delay(attempt, self._chance)
        return after if after <= self.retry.max_retry_after else None

    def _attempt(self, request: httpx.Request, seconds: float, attempt: int) -> Response:
        shown = shown_url(str(request.url))
        where: dict[str, Any] = {"method": request.method, "url": shown, "attempts": attempt}
        deadline = time.monotonic() + seconds
        try:
            with within(seconds):
                response = self._http.send(request, stream=True)
                try:
                    content = self._read_capped(response, deadline, seconds, where)
                except httpx.TimeoutException:  # the answer began, and did not end in time
                    status = response.status_code
                    raise TimedOut(f"no complete reply within {seconds:g}s", status=status, **where) from None
                except NotDecoded as error:
                    raise RequestFailed(str(error), status=response.status_code, **where) from None
                finally:
                    response.close()
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            # Nothing reached the server, so trying again cannot act twice.
            message = f"cannot connect after {attempt} attempt(s): {self._described(exc)}"
            raise _Retry(ConnectFailed(message, **where)) from None
        except httpx.TimeoutException as exc:
            raise TimedOut(f"no reply within {seconds:g}s ({type(exc).__name__})", **where) from None
        except (httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            lost = ConnectionLost(self._described(exc), **where)
            if self.retry.resend:
                raise _Retry(lost) from None
            raise lost from None
        except httpx.HTTPError as exc:
            raise RequestFailed(f"request failed: {self._described(exc)}", **where) from None
        return Response(response.status_code, response.reason_phrase, response.headers, content, shown, attempt)

    def _read_capped(self, response: httpx.Response, deadline: float, seconds: float, where: dict[str, Any]) -> bytes:
        declared = response.headers.get("Content-Length", "")
        status = response.status_code
        if declared.isdigit() and int(declared) > self.max_bytes:
            message = f"the reply declares {int(declared)} bytes, more than the cap of {self.max_bytes}"
            raise TooLarge(message, status=status, **where)
        chunks: list[bytes] = []
        size = 0
        for chunk in decoded(response, self.max_bytes):
            size += len(chunk)
            if size > self.max_bytes:
                raise TooLarge(f"the reply is larger than the cap of {self.max_bytes} bytes", status=status, **where)
            # httpx's timeout bounds each read; a server trickling bytes must not outlast ours.
            if time.monotonic() > deadline:
                raise TimedOut(f"no complete reply within {seconds:g}s", status=status, **where)
            chunks.append(chunk)
        return b"".join(chunks)

    def _described(self, exc: Exception) -> str:
        return self.scrub(f"{type(exc).__name__}: {exc}")


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


def json_or_none(text: str) -> Any:
    """The JSON in `text`, or None when it is empty or not JSON."""
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def _preview(text: str, size: int = _PREVIEW) -> str:
    text = text.strip()
    return text if len(text) <= size else text[:size] + "..."
