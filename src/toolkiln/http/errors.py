"""The transport's failures, under one base. Each carries what was asked (`method`, `url`
without credentials) and how many `attempts` were made; never a credential.

`ServiceError` is the base the clients built on the transport (n8n, the model providers) give
their own errors: one message shape and one dictionary shape for what a remote service said."""

from __future__ import annotations

from typing import Any

from toolkiln.errors import Error


class HTTPError(Error):
    """Base of every failure of the HTTP transport."""

    def __init__(
        self,
        message: str,
        *,
        method: str | None = None,
        url: str | None = None,
        status: int | None = None,
        attempts: int = 1,
    ) -> None:
        self.message = message
        self.method = method
        self.url = url
        self.status = status
        self.attempts = attempts
        where = f" ({method} {url})" if method and url else ""
        super().__init__(message + where)


class BadOption(HTTPError):
    """A URL or an option (timeout, cap, retries) the transport cannot work with."""


class ConnectFailed(HTTPError):
    """No connection was made (refused, unreachable, not in time) after the retries: nothing
    reached the server."""


class ConnectionLost(HTTPError):
    """The connection failed after the request was sent: the server may have acted on it."""


class TimedOut(HTTPError):
    """No complete answer within the deadline."""


class TooLarge(HTTPError):
    """The answer was bigger than the cap; it was refused while it streamed in."""


class RequestFailed(HTTPError):
    """Any other failure of the HTTP stack (a malformed answer, a bad header)."""


class ServiceError(Error):
    """What a remote service said (`message`, `status`, the parsed `body`, a `hint`) and what was
    asked (`method`, `url`, `attempts`), never a credential. `service` names it in the message:
    "n8n: not found (HTTP 404, GET http://...); hint: ..."."""

    def __init__(
        self,
        message: str,
        *,
        service: str | None = None,
        status: int | None = None,
        method: str | None = None,
        url: str | None = None,
        body: Any = None,
        attempts: int = 1,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.status = status
        self.method = method
        self.url = url
        self.body = body
        self.attempts = attempts
        self.hint = hint
        text = f"{service}: {message}" if service else message
        details = [f"HTTP {status}"] if status is not None else []
        if url:
            details.append(f"{method} {url}" if method else url)
        if attempts > 1:
            details.append(f"{attempts} attempts")
        if details:
            text += f" ({', '.join(details)})"
        if hint:
            text += f"; hint: {hint}"
        super().__init__(text)

    def to_dict(self) -> dict[str, Any]:
        return {
            "error": type(self).__name__,
            "message": self.message,
            "status": self.status,
            "method": self.method,
            "url": self.url,
            "attempts": self.attempts,
            "hint": self.hint,
        }
