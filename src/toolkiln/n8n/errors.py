"""Errors of the n8n client. Each derives from `toolkiln.Error` through `N8nError`
(a `toolkiln.http.ServiceError`: the message and dictionary shape of every remote service's error).

An error carries what the server said (`message`, `status`, the parsed `body` when it was JSON)
and what was asked (`method`, `url`), never the API key. `from_response` picks the subclass
from the HTTP status.
"""

from __future__ import annotations

from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.http.errors import ServiceError

_MAX_TEXT = 500  # characters of a non-JSON error body kept in the message


class N8nError(ServiceError):
    """Base of every n8n client error."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        method: str | None = None,
        url: str | None = None,
        body: Any = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, service="n8n", status=status, method=method, url=url, body=body, hint=hint)


class N8nConfigError(N8nError):
    """The client was not given a usable URL or API key."""


class N8nConnectionError(N8nError):
    """The server could not be reached (after the retries)."""


class N8nTimeout(N8nError):
    """The server accepted the connection but did not answer in time. Not retried."""


class N8nResponseError(N8nError):
    """The server answered 2xx with a body that is not what the public API documents."""


class UnknownWorkflow(N8nError):
    """No workflow has the name asked for."""


class AmbiguousWorkflow(N8nError):
    """Several workflows have the name asked for; n8n allows it, deploying by name does not."""


class WorkflowNameTaken(N8nError):
    """A workflow to be deployed as one's own has the name of a workflow someone else made."""


class ExecutionFailed(N8nError):
    """n8n recorded a workflow's run as failed (its webhook may still have answered 200)."""


class NoWebhook(N8nError):
    """The workflow has no (enabled) webhook trigger to call."""


class CredentialsLeft(N8nError):
    """A deploy failed after it made credentials in n8n that it could not delete again; the
    message names them (R0746: the one n8n error with a code, for the command line's output)."""

    code = codes.CREDENTIALS_LEFT_IN_N8N.code


class CredentialFieldUnknown(N8nError):
    """A credential to be made has a field its type does not have in n8n's schema; found before
    anything is made (R0745, as the definition's other credential mistakes)."""

    code = "R0745"


class N8nHTTPError(N8nError):
    """The server answered with an error status; `status` and the server's `message` say which."""


class N8nBadRequest(N8nHTTPError):
    """400: the request was refused, e.g. "request/body/active is read-only"."""


class N8nUnauthorized(N8nHTTPError):
    """401/403: the API key is missing, wrong, expired or lacks a scope."""


class N8nNotFound(N8nHTTPError):
    """404: no such workflow or execution."""


class N8nConflict(N8nHTTPError):
    """409: the request conflicts with the server's state."""


class N8nServerError(N8nHTTPError):
    """5xx: n8n failed while handling the request (for a webhook: the workflow failed)."""


class WebhookNotRegistered(N8nNotFound):
    """404 from a webhook URL: no active workflow (or test listener) has that method and path."""


_BY_STATUS: dict[int, type[N8nHTTPError]] = {
    400: N8nBadRequest,
    401: N8nUnauthorized,
    403: N8nUnauthorized,
    404: N8nNotFound,
    409: N8nConflict,
}

_HINTS: dict[type[N8nHTTPError], str] = {
    N8nUnauthorized: "check the API key (TOOLKILN_N8N_API_KEY) and its scopes",
    WebhookNotRegistered: "activate the workflow (production URL) or start a test listener in the editor "
    "(test URL); check the HTTP method and path",
}


def server_message(body: Any, text: str, reason: str) -> str:
    """The most useful message in an n8n error body: its `message` field, else the text, else the reason."""
    if isinstance(body, dict):
        message = body.get("message")
        if isinstance(message, str) and message.strip():
            return message.strip()
    text = text.strip()
    if text:
        return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT] + "..."
    return reason or "error"


def from_response(
    status: int, body: Any, text: str, reason: str, *, method: str, url: str, webhook: bool = False
) -> N8nHTTPError:
    """The error for an error response: the class from the status, the message from the server."""
    cls: type[N8nHTTPError]
    if webhook and status == 404:
        cls = WebhookNotRegistered
    elif status >= 500:
        cls = N8nServerError
    else:
        cls = _BY_STATUS.get(status, N8nHTTPError)
    hint = body.get("hint") if isinstance(body, dict) and isinstance(body.get("hint"), str) else None
    return cls(
        server_message(body, text, reason),
        status=status,
        method=method,
        url=url,
        body=body,
        hint=hint or _HINTS.get(cls),
    )
