"""The transport's failures, under one base. Each carries what was asked (`method`, `url`
without credentials) and how many `attempts` were made; never a credential."""

from __future__ import annotations

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
