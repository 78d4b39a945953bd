"""The n8n client shows no credential: not the API key a server echoes back, not the password
of its URL; in no error message, error dict, repr or log line (it printed both before it used
toolkiln.http)."""

from __future__ import annotations

import logging

import httpx
import pytest

from toolkiln.n8n import errors
from toolkiln.n8n.client import N8nClient

KEY = "n8n-key-do-not-print-4242"
PASSWORD = "pw-do-not-print-7777"
BASE = f"http://admin:{PASSWORD}@127.0.0.1:5678"


def shown(error: BaseException, client: N8nClient, log: str) -> list[str]:
    texts = [str(error), repr(error), repr(client), log]
    if isinstance(error, errors.N8nError):
        texts += [str(error.to_dict()), str(error.url), str(error.body)]
    return texts


def leaked(texts: list[str]) -> list[str]:
    return [text for text in texts if KEY in text or PASSWORD in text]


def test_a_refused_connection_shows_neither_the_key_nor_the_password(caplog):
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"cannot reach {request.url} with key {KEY}")

    client = N8nClient(BASE, KEY, retries=1, transport=httpx.MockTransport(refuse), sleep=lambda _: None)
    with caplog.at_level(logging.DEBUG), pytest.raises(errors.N8nConnectionError) as caught:
        client.list_workflows()
    assert "retry 1 of 1" in caplog.text  # the retry was logged, without the credentials
    assert caught.value.url.startswith("http://127.0.0.1:5678/api/v1/workflows")
    assert leaked(shown(caught.value, client, caplog.text)) == []


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (httpx.Response(401, json={"message": f"the API key {KEY} is not valid"}), errors.N8nUnauthorized),
        (httpx.Response(500, text=f"crashed with X-N8N-API-KEY={KEY}"), errors.N8nServerError),
        (httpx.Response(200, text=f"[{KEY!r}]"), errors.N8nResponseError),  # JSON, but no object
    ],
)
def test_a_key_the_server_echoes_is_masked(answer, error, caplog):
    client = N8nClient(BASE, KEY, transport=httpx.MockTransport(lambda request: answer))
    with caplog.at_level(logging.DEBUG), pytest.raises(error) as caught:
        client.get_workflow("1")
    assert "***" in caught.value.message
    assert leaked(shown(caught.value, client, caplog.text)) == []


def test_a_failed_webhook_run_masks_the_key():
    answer = httpx.Response(500, json={"message": f"Error in workflow: bad header {KEY}"})
    client = N8nClient(BASE, KEY, transport=httpx.MockTransport(lambda request: answer))
    with pytest.raises(errors.N8nServerError) as caught:
        client.trigger_webhook("orders", {"id": 7})
    assert caught.value.message == "Error in workflow: bad header ***"
    assert caught.value.url == "http://127.0.0.1:5678/webhook/orders"
    assert leaked(shown(caught.value, client, "")) == []


def test_the_repr_and_a_bad_url_show_no_password():
    client = N8nClient(BASE, KEY)
    assert repr(client) == "N8nClient('http://127.0.0.1:5678')"
    with pytest.raises(errors.N8nConfigError) as caught:
        N8nClient(f"http://admin:{PASSWORD}@127.0.0.1:5678/?a=1", KEY)
    assert "query" in caught.value.message and PASSWORD not in str(caught.value)


def test_the_password_still_authenticates():
    """Hiding the URL's credentials is for what is shown; the requests still carry them."""
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("Authorization", ""))
        return httpx.Response(200, json={"id": "1"})

    N8nClient(BASE, KEY, transport=httpx.MockTransport(answer)).get_workflow("1")
    assert seen and seen[0].startswith("Basic ")
