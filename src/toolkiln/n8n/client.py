"""A small client for n8n's public API (`/api/v1`, header `X-N8N-API-KEY`) and its webhooks.

    with N8nClient.from_env() as n8n:               # TOOLKILN_N8N_URL, TOOLKILN_N8N_API_KEY
        wf = n8n.create_workflow(workflow_json)
        n8n.activate_workflow(wf["id"])
        reply = n8n.trigger_webhook("orders", {"id": 7})
        reply.status, reply.data

Errors are `toolkiln.n8n.errors.N8nError` subclasses carrying the server's message and
status, never the API key or the URL's password. The exchange is `toolkiln.http`'s: a deadline
for each request, answers capped at MAX_ANSWER_BYTES, and only connection failures (nothing was
sent) retried, with exponential backoff, so a retry can never run a workflow twice.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Self
from urllib.parse import quote

import httpx

from toolkiln.http import errors as http
from toolkiln.http.transport import Response, RetryPolicy, Transport, json_or_none
from toolkiln.http.urls import checked_url, shown_url
from toolkiln.n8n.errors import (
    N8nConfigError,
    N8nConflict,
    N8nConnectionError,
    N8nError,
    N8nResponseError,
    N8nTimeout,
    from_response,
)

URL_ENV = "TOOLKILN_N8N_URL"
API_KEY_ENV = "TOOLKILN_N8N_API_KEY"
API_KEY_HEADER = "X-N8N-API-KEY"

# The fields the public API accepts when creating or updating a workflow. Everything else in an
# editor export (id, active, tags, versionId, meta, pinData, ...) is refused there with a 400.
WORKFLOW_FIELDS = ("name", "nodes", "connections", "settings", "staticData")
DEFAULT_SETTINGS: Mapping[str, Any] = {"executionOrder": "v1"}

# n8n 2.x (un)registers webhooks after it answers: how long after an activation a webhook's 404
# is retried, and how often (at most 50 x 0.2 s); the same bounds for a delete that waits for
# the unpublishing.
REGISTER_WINDOW = 10.0
REGISTER_POLLS = 50
REGISTER_INTERVAL = 0.2
# The largest answer read (an execution with its data can be large; a cap keeps a wrong or
# hostile server from filling the memory).
MAX_ANSWER_BYTES = 64 * 1024 * 1024
_PAGE_SIZE = 100  # the public API's largest page
_MAX_PAGES = 1000  # a bound on cursor loops, whatever the server sends


@dataclass(frozen=True)
class WebhookResponse:
    """What a webhook answered: status, headers, raw text, and `data` (parsed JSON, or None)."""

    status: int
    headers: dict[str, str] = field(repr=False)
    text: str
    data: Any = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def workflow_body(workflow: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a workflow the public API accepts: name, nodes, connections, settings, staticData.

    Read-only and editor-only fields are dropped; a missing `settings` becomes
    {"executionOrder": "v1"} (n8n requires the key), and settings that are null (unset) are left
    out. Anything else is sent as given, so the
    server, not this function, judges the nodes and settings.
    """
    if not isinstance(workflow, Mapping):
        raise N8nConfigError(f"a workflow must be a JSON object, not {type(workflow).__name__}")
    missing = [key for key in ("name", "nodes", "connections") if key not in workflow]
    if missing:
        raise N8nConfigError(
            f"the workflow has no {', '.join(missing)}", hint="an n8n workflow needs name, nodes and connections"
        )
    body = {key: workflow[key] for key in WORKFLOW_FIELDS if key in workflow and workflow[key] is not None}
    body.setdefault("settings", dict(DEFAULT_SETTINGS))
    if isinstance(body["settings"], Mapping):
        # Exports carry unset settings as null (`"errorWorkflow": null`), which the editor's
        # import takes and the public API refuses ("must be string"): unset is left out.
        body["settings"] = {key: value for key, value in body["settings"].items() if value is not None}
    return body


class N8nClient:
    """Talks to one n8n server. Use as a context manager, or call `close()`."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        timeout: float = 30.0,
        retries: int = 3,
        backoff: float = 0.5,
        webhook_prefix: str = "webhook",
        test_webhook_prefix: str = "webhook-test",
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = check_url(base_url)
        self._api_key = api_key or None
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.webhook_prefix = webhook_prefix.strip("/")
        self.test_webhook_prefix = test_webhook_prefix.strip("/")
        self._sleep = sleep
        self._activated_at: float | None = None  # time.monotonic() of this client's last activation
        try:
            # A webhook runs a workflow: only what never reached n8n is sent again.
            retry = RetryPolicy(max_retries=retries, backoff=backoff, max_backoff=float("inf"), jitter=False)
            self._http = Transport(
                self.base_url,
                name="n8n",
                timeout=timeout,
                retry=retry,
                max_bytes=max_answer_bytes,
                secrets=[self._api_key],
                transport=transport,
                sleep=sleep,
                log=logging.getLogger("toolkiln.n8n"),
            )
        except http.BadOption as error:
            raise N8nConfigError(error.message) from None

    @classmethod
    def from_env(
        cls,
        base_url: str | None = None,
        api_key: str | None = None,
        environ: Mapping[str, str] | None = None,
        **options: Any,
    ) -> N8nClient:
        """A client with the URL and key given, else from TOOLKILN_N8N_URL / TOOLKILN_N8N_API_KEY."""
        env = os.environ if environ is None else environ
        url = base_url or env.get(URL_ENV)
        if not url:
            raise N8nConfigError("no n8n URL", hint=f"pass one or set {URL_ENV}, e.g. http://127.0.0.1:5678")
        return cls(url, api_key or env.get(API_KEY_ENV), **options)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def __repr__(self) -> str:
        return f"N8nClient({shown_url(self.base_url)!r})"

    # -- workflows -------------------------------------------------------------------------

    def list_workflows(
        self, *, active: bool | None = None, name: str | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """Every workflow (following the cursor), or the first `limit`."""
        params: dict[str, Any] = {}
        if active is not None:
            params["active"] = "true" if active else "false"
        if name is not None:
            params["name"] = name
        return list(self._pages("/api/v1/workflows", params, limit))

    def get_workflow(self, workflow_id: str) -> dict[str, Any]:
        return self._api("GET", f"/api/v1/workflows/{_seg(workflow_id)}", with_id=True)

    def create_workflow(self, workflow: Mapping[str, Any]) -> dict[str, Any]:
        """Create a workflow (see `workflow_body` for what is sent); returns it with its new `id`."""
        return self._api("POST", "/api/v1/workflows", json_body=workflow_body(workflow), with_id=True)

    def update_workflow(self, workflow_id: str, workflow: Mapping[str, Any]) -> dict[str, Any]:
        """Replace a workflow's name, nodes, connections and settings."""
        path = f"/api/v1/workflows/{_seg(workflow_id)}"
        return self._api("PUT", path, json_body=workflow_body(workflow), with_id=True)

    def activate_workflow(self, workflow_id: str) -> dict[str, Any]:
        """Activate: n8n registers its webhooks and triggers, or answers 400 with why not.
        n8n 2.x registers the webhooks after it answers: see `trigger_webhook`."""
        saved = self._api("POST", f"/api/v1/workflows/{_seg(workflow_id)}/activate", with_id=True)
        self._activated_at = time.monotonic()
        return saved

    def deactivate_workflow(self, workflow_id: str) -> dict[str, Any]:
        self._activated_at = None  # a 404 after this is the answer, not a registration under way
        return self._api("POST", f"/api/v1/workflows/{_seg(workflow_id)}/deactivate", with_id=True)

    def delete_workflow(self, workflow_id: str) -> dict[str, Any]:
        """Delete. n8n 2.x refuses to delete an active workflow (409 "Unpublish it before
        deleting"): it is deactivated first, and the delete is sent again while n8n answers 409
        "still being unpublished" (every REGISTER_INTERVAL s, REGISTER_POLLS times at most)."""
        path = f"/api/v1/workflows/{_seg(workflow_id)}"
        attempt = 0
        while True:
            try:
                return self._api("DELETE", path)
            except N8nConflict as error:
                message = error.message.lower()
                if attempt == 0 and "unpublish it before" in message:
                    self.deactivate_workflow(workflow_id)
                elif "being unpublished" in message and attempt < REGISTER_POLLS:
                    self._sleep(REGISTER_INTERVAL)
                else:
                    raise
            attempt += 1

    # -- credentials -----------------------------------------------------------------------

    def create_credential(self, name: str, type_: str, data: Mapping[str, Any]) -> dict[str, Any]:
        """Create a credential; n8n answers it without its data (never read back)."""
        body = {"name": name, "type": type_, "data": dict(data)}
        return self._api("POST", "/api/v1/credentials", json_body=body, with_id=True)

    def update_credential(self, credential_id: str, name: str, data: Mapping[str, Any]) -> dict[str, Any]:
        """Replace a credential's name and data (n8n 2.x; 1.x has no such route: 405 on 1.123.50)."""
        body = {"name": name, "data": dict(data)}
        return self._api("PATCH", f"/api/v1/credentials/{_seg(credential_id)}", json_body=body, with_id=True)

    def delete_credential(self, credential_id: str) -> dict[str, Any]:
        return self._api("DELETE", f"/api/v1/credentials/{_seg(credential_id)}")

    def list_credentials(self) -> list[dict[str, Any]]:
        """Every credential's id, name and type, never its data (n8n 2.x; 1.123.50 answers 405)."""
        return list(self._pages("/api/v1/credentials", {}, None))

    def credential_schema(self, type_: str) -> dict[str, Any]:
        """The JSON Schema of a credential type's data (n8n 1.x and 2.x); N8nNotFound for a type
        n8n does not know."""
        return self._api("GET", f"/api/v1/credentials/schema/{_seg(type_)}")

    # -- executions ------------------------------------------------------------------------

    def list_executions(
        self,
        *,
        workflow_id: str | None = None,
        status: str | None = None,
        include_data: bool = False,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """Executions, newest first; `status` is one of success, error, waiting (n8n's filter)."""
        params: dict[str, Any] = {"includeData": "true" if include_data else "false"}
        if workflow_id is not None:
            params["workflowId"] = workflow_id
        if status is not None:
            params["status"] = status
        return list(self._pages("/api/v1/executions", params, limit))

    def get_execution(self, execution_id: str | int, *, include_data: bool = False) -> dict[str, Any]:
        return self._api(
            "GET",
            f"/api/v1/executions/{_seg(str(execution_id))}",
            params={"includeData": "true" if include_data else "false"},
            with_id=True,
        )

    # -- webhooks --------------------------------------------------------------------------

    def webhook_url(self, path: str, *, test: bool = False) -> str:
        """The production (`/webhook/PATH`) or test (`/webhook-test/PATH`) URL of a webhook path."""
        prefix = self.test_webhook_prefix if test else self.webhook_prefix
        return f"{self.base_url}/{prefix}/{quote(path.strip('/'), safe='/:')}"

    def trigger_webhook(
        self,
        path: str,
        data: Any = None,
        *,
        method: str = "POST",
        test: bool = False,
        query: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        raise_for_status: bool = True,
    ) -> WebhookResponse:
        """Call a webhook and return what the workflow answered.

        `data` is sent as a JSON body (not for GET/HEAD, where `query` carries the input). No API
        key is sent: webhooks are public URLs. With `raise_for_status` (the default) a 4xx/5xx
        answer raises: `WebhookNotRegistered` for 404, `N8nServerError` when the workflow failed.
        """
        method = method.upper()
        url = self.webhook_url(path, test=test)
        if data is not None and method in ("GET", "HEAD"):
            raise N8nConfigError(f"a {method} webhook takes its input in `query`, not a body")
        request = {"body": data, "params": dict(query or {}), "headers": dict(headers or {}), "timeout": timeout}
        response = self._send(method, url, **request)
        if not test:
            response = self._until_registered(response, method, url, request)
        if raise_for_status and response.status >= 400:
            raise self._error(method, response, webhook=True)
        return WebhookResponse(
            status=response.status, headers=dict(response.headers), text=response.text, data=json_or_none(response.text)
        )

    def _until_registered(self, response: Response, method: str, url: str, request: dict[str, Any]) -> Response:
        """n8n 2.x answers an activation before it has registered the workflow's webhooks (a
        call right after got 404 "not registered" for 0.1-0.5 s). Within REGISTER_WINDOW s of
        this client's last activation such a 404 is sent again; a 404 ran nothing."""
        if self._activated_at is None or time.monotonic() - self._activated_at > REGISTER_WINDOW:
            return response
        for _ in range(REGISTER_POLLS):
            if response.status != 404:
                break
            self._sleep(REGISTER_INTERVAL)
            response = self._send(method, url, **request)
        return response

    # -- plumbing --------------------------------------------------------------------------

    def _pages(self, path: str, params: dict[str, Any], limit: int | None) -> Iterator[dict[str, Any]]:
        if limit is not None and limit <= 0:
            return
        cursor: str | None = None
        produced = 0
        for _ in range(_MAX_PAGES):
            page_params = dict(params, limit=min(_PAGE_SIZE, limit - produced) if limit else _PAGE_SIZE)
            if cursor:
                page_params["cursor"] = cursor
            page = self._api("GET", path, params=page_params)
            items = page.get("data")
            if not isinstance(items, list):
                raise N8nResponseError("a list response has no `data` list", method="GET", url=path, body=page)
            for item in items:
                yield _with_id(item, "GET", path)
                produced += 1
                if limit is not None and produced >= limit:
                    return
            cursor = page.get("nextCursor")
            if cursor is not None and not isinstance(cursor, str):
                raise N8nResponseError(
                    f"a list response's `nextCursor` is not text: {_preview(repr(cursor))}", method="GET", url=path
                )
            if not cursor or not items:
                return
        raise N8nResponseError(f"more than {_MAX_PAGES} pages; stopped", method="GET", url=path)

    def _api(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        with_id: bool = False,
    ) -> dict[str, Any]:
        """The JSON object n8n answered; with `with_id`, one that has the `id` callers index."""
        if not self._api_key:
            raise N8nConfigError("no n8n API key", hint=f"pass one or set {API_KEY_ENV} (n8n: Settings > n8n API)")
        response = self._send(method, path, params=params, body=json_body, headers={API_KEY_HEADER: self._api_key})
        if response.status >= 400:
            raise self._error(method, response)
        parsed = json_or_none(response.text)
        if not isinstance(parsed, dict):
            raise N8nResponseError(
                f"expected a JSON object, got {_preview(self._http.scrub(response.text))!r}",
                status=response.status,
                method=method,
                url=response.url,
            )
        return _with_id(parsed, method, response.url) if with_id else parsed

    def _send(self, method: str, url: str, **request: Any) -> Response:
        try:
            return self._http.request(method, url, **request)
        except http.HTTPError as error:
            kind, hint = _ERRORS.get(type(error), (N8nError, None))
            shown = error.url or self._http.shown(url)
            raise kind(error.message, status=error.status, method=method, url=shown, hint=hint) from None

    def _error(self, method: str, response: Response, *, webhook: bool = False) -> N8nError:
        """The error for an error status, from what n8n said (which may echo the key: scrubbed)."""
        text = self._http.scrub(response.text)
        body = json_or_none(text)
        return from_response(
            response.status, body, text, response.reason, method=method, url=response.url, webhook=webhook
        )


# The transport's failures as the client's documented errors, with a hint.
_ERRORS: dict[type[http.HTTPError], tuple[type[N8nError], str | None]] = {
    http.ConnectFailed: (N8nConnectionError, "is n8n running at that URL?"),
    http.TimedOut: (N8nTimeout, None),
    http.TooLarge: (N8nResponseError, f"an answer is read up to max_answer_bytes ({MAX_ANSWER_BYTES} by default)"),
}


def check_url(base_url: str) -> str:
    """The URL without a trailing slash; N8nConfigError unless it is an http(s) URL without query."""
    if not isinstance(base_url, str) or not base_url.strip():
        raise N8nConfigError("no n8n URL", hint=f"pass one or set {URL_ENV}")
    try:
        return checked_url(base_url)
    except http.BadOption as error:
        raise N8nConfigError(error.message, hint="e.g. http://127.0.0.1:5678") from None


def _seg(value: str) -> str:
    if not isinstance(value, str) or not value:
        raise N8nConfigError(f"an id must be a non-empty string, got {value!r}")
    return quote(value, safe="")


def _with_id(answer: Any, method: str, url: str) -> dict[str, Any]:
    """A workflow or execution as n8n describes it: an object whose `id` is text (n8n before
    1.0 gave numbers: made text). Anything else is N8nResponseError, never a KeyError later."""
    if not isinstance(answer, dict):
        raise N8nResponseError(f"expected a JSON object, got {_preview(repr(answer))}", method=method, url=url)
    found = answer.get("id")
    if isinstance(found, int) and not isinstance(found, bool):
        return {**answer, "id": str(found)}
    if not isinstance(found, str) or not found:
        shown = "no `id`" if "id" not in answer else f"the `id` {_preview(repr(found))}"
        raise N8nResponseError(
            f"n8n's answer has {shown}, which every workflow and execution has",
            method=method,
            url=url,
            body=answer,
            hint="is the URL an n8n server's, and is it n8n 1.0 or later?",
        )
    return answer


def _preview(text: str, size: int = 200) -> str:
    return text if len(text) <= size else text[:size] + "..."
