"""Retries, errors, the size cap and the timeout, against the fake server, for both providers.

Clients get `sleep=sleeps.append` (see conftest), so the waits they ask for are checked without
being slept; one test sleeps for real."""

from __future__ import annotations

import logging
import socket
import time
from email.utils import formatdate

import httpx
import pytest
from unit.llm.fake_llm_server import KEY, MB, Drop, Fail, FakeLLMServer, Huge, Raw, Slow, Text, Trickle

from toolkiln.errors import Error
from toolkiln.http.transport import retry_after
from toolkiln.llm import (
    LLMAuthenticationError,
    LLMBadResponse,
    LLMConnectionError,
    LLMError,
    LLMRateLimited,
    LLMReplyTooLarge,
    LLMRequestError,
    LLMServerError,
    LLMTimeout,
    OpenAIChat,
)


def test_a_server_error_is_retried_after_a_backoff_with_jitter(make, server: FakeLLMServer, sleeps):
    server.script(Fail(500, "boom"), Fail(503, "busy"), Text("fine"))
    reply = make(backoff=0.2, max_retries=2).chat("hi")
    assert reply.text == "fine"
    assert server.hits == 3
    first, second = sleeps
    assert 0.1 <= first <= 0.2 and 0.2 <= second <= 0.4  # doubled, times a factor in [0.5, 1)


def test_the_backoff_is_capped(make, server: FakeLLMServer, sleeps):
    server.script(*[Fail(500, "boom")] * 4, Text("fine"))
    make(backoff=1.0, max_backoff=1.5, max_retries=4).chat("hi")
    assert all(delay <= 1.5 for delay in sleeps) and sleeps[-1] >= 0.75


def test_server_errors_past_the_retries_raise_with_the_servers_message(make, server: FakeLLMServer, sleeps):
    server.script(*[Fail(500, "The server had an error while processing your request")] * 3)
    with pytest.raises(LLMServerError) as caught:
        make(max_retries=2).chat("hi")
    error = caught.value
    assert error.message == "The server had an error while processing your request"
    assert (error.status, error.attempts, server.hits, len(sleeps)) == (500, 3, 3, 2)
    assert isinstance(error, LLMError) and isinstance(error, Error)
    assert error.to_dict()["error"] == "LLMServerError"


def test_retry_after_in_seconds_is_honoured(make, server: FakeLLMServer, sleeps):
    server.script(Fail(429, "Rate limit reached", retry_after="0.25"), Text("fine"))
    assert make().chat("hi").text == "fine"
    assert sleeps == [0.25]


def test_retry_after_as_an_http_date_is_honoured(make, server: FakeLLMServer, sleeps):
    server.script(Fail(429, "Rate limit reached", retry_after=formatdate(time.time() + 30, usegmt=True)), Text("fine"))
    make().chat("hi")
    assert 28 <= sleeps[0] <= 30


def test_a_retry_after_longer_than_allowed_is_not_waited_for(make, server: FakeLLMServer, sleeps):
    server.script(Fail(429, "Try again in an hour", retry_after="3600"))
    with pytest.raises(LLMRateLimited) as caught:
        make(max_retry_after=60).chat("hi")
    assert (caught.value.retry_after, caught.value.message, server.hits, sleeps) == (
        3600,
        "Try again in an hour",
        1,
        [],
    )
    assert "3600s" in caught.value.hint


def test_rate_limits_past_the_retries_raise(make, server: FakeLLMServer, sleeps):
    server.script(*[Fail(429, "Rate limit reached", retry_after="0")] * 2)
    with pytest.raises(LLMRateLimited, match="Rate limit reached") as caught:
        make(max_retries=1).chat("hi")
    assert (caught.value.status, caught.value.retry_after, server.hits) == (429, 0, 2)


def test_retries_really_sleep_by_default(make, server: FakeLLMServer):
    server.script(Fail(500, "boom"), Text("fine"))
    started = time.monotonic()
    assert make(sleep=time.sleep, backoff=0.05).chat("hi").text == "fine"
    assert 0.025 <= time.monotonic() - started < 2


def test_a_dropped_connection_is_retried(make, server: FakeLLMServer, sleeps):
    server.script(Drop(), Text("fine"))
    assert make().chat("hi").text == "fine"
    assert (server.hits, len(sleeps)) == (2, 1)


def test_dropped_connections_past_the_retries_raise(make, server: FakeLLMServer):
    server.script(Drop(), Drop())
    with pytest.raises(LLMConnectionError) as caught:
        make(max_retries=1).chat("hi")
    assert caught.value.attempts == 2 and server.hits == 2


def test_no_server_is_a_connection_error(make, sleeps):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = make(base_url=f"http://127.0.0.1:{port}/v1", max_retries=2)
    with pytest.raises(LLMConnectionError, match="ConnectError"):
        client.chat("hi")
    assert len(sleeps) == 2


def test_a_wrong_key_is_an_authentication_error_never_retried_and_never_shown(
    make, server: FakeLLMServer, sleeps, caplog
):
    secret = "sk-live-do-not-print-4242"
    client = make(api_key=secret)
    with caplog.at_level(logging.DEBUG, logger="toolkiln.llm"), pytest.raises(LLMAuthenticationError) as caught:
        client.chat("hi")
    error = caught.value
    assert error.status == 401 and server.hits == 1 and sleeps == []
    assert error.message == "Incorrect API key provided: ***"  # the server echoed the key; we did not
    shown = [str(error), repr(error), str(error.to_dict()), str(error.body), repr(client), caplog.text]
    assert not [text for text in shown if secret in text]


def test_a_short_placeholder_key_is_masked_as_a_word_only():
    """Local servers take any key, often "x": masking it must not garble every word with an x."""
    with FakeLLMServer(api_key="x") as local, OpenAIChat(local.openai_url, "x", "m", max_retries=0) as client:
        local.script(Fail(400, "max_tokens too large for key x (x-large plan)"))
        with pytest.raises(LLMRequestError) as caught:
            client.chat("hi")
    assert caught.value.message == "max_tokens too large for key *** (x-large plan)"


def test_logs_of_retries_name_no_key(make, server: FakeLLMServer, caplog):
    server.script(Fail(503, f"upstream refused key {KEY}"), Text("fine"))
    with caplog.at_level(logging.WARNING, logger="toolkiln.llm"):
        make().chat("hi")
    assert "retry 1 of 2" in caplog.text and "upstream refused key ***" in caplog.text
    assert KEY not in caplog.text


def test_a_refused_request_is_a_request_error_with_the_providers_message(make, server: FakeLLMServer, sleeps):
    server.script(Fail(400, "The model `nope` does not exist"))
    with pytest.raises(LLMRequestError, match="The model `nope` does not exist") as caught:
        make(model="nope").chat("hi")
    assert caught.value.status == 400 and sleeps == []


def test_a_wrong_path_is_a_request_error(make_openai, server: FakeLLMServer):
    with pytest.raises(LLMRequestError, match="Not found: /chat/completions"):
        make_openai(base_url=server.url).chat("hi")  # without /v1


def test_a_reply_that_is_not_json_is_a_bad_response(make, server: FakeLLMServer, sleeps):
    server.script(Raw(200, b"<html><body>Welcome to nginx</body></html>", "text/html"))
    with pytest.raises(LLMBadResponse, match="not JSON: '<html><body>Welcome to nginx") as caught:
        make().chat("hi")
    assert caught.value.status == 200 and sleeps == []


def test_an_html_gateway_error_is_retried_and_reported_with_its_text(make, server: FakeLLMServer):
    server.script(*[Raw(502, b"<html>502 Bad Gateway</html>", "text/html")] * 2)
    with pytest.raises(LLMServerError, match="502 Bad Gateway"):
        make(max_retries=1).chat("hi")
    assert server.hits == 2


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"[1, 2]", "JSON but not an object: list"),
        (b'{"choices": [], "content": "nope"}', "not a (openai|anthropic) answer"),
        (
            b'{"choices": [{"message": "hi"}], "content": [{"type": "text", "text": 3}]}',
            "not a (openai|anthropic) answer",
        ),
    ],
)
def test_json_of_the_wrong_shape_is_a_bad_response(make, server: FakeLLMServer, body, problem):
    server.script(Raw(200, body))
    with pytest.raises(LLMBadResponse, match=problem):
        make().chat("hi")


def test_a_declared_20_mb_reply_is_refused_before_it_is_read(make, server: FakeLLMServer):
    server.script(Huge(20 * MB, declared=True))
    with pytest.raises(LLMReplyTooLarge, match="declares 20971520 bytes"):
        make().chat("hi")


def test_a_20_mb_reply_is_refused_while_it_streams_in(make, server: FakeLLMServer):
    """The server sends 11 MB of a chunked 20 MB body and then stalls: only a client that checks
    the size as the bytes arrive can answer before its 5 s timeout."""
    server.script(Huge(20 * MB, declared=False, stall_after=11 * MB))
    started = time.monotonic()
    with pytest.raises(LLMReplyTooLarge, match="larger than the cap of 10485760 bytes"):
        make().chat("hi")
    assert time.monotonic() - started < 4


def test_the_cap_is_an_option(make, server: FakeLLMServer):
    server.script(Text("x" * 5000))
    with pytest.raises(LLMReplyTooLarge):
        make(max_reply_bytes=2000).chat("hi")


def test_a_slow_reply_is_a_timeout_and_not_retried(make, server: FakeLLMServer, sleeps):
    server.script(Slow(3), Text("too late"))
    started = time.monotonic()
    with pytest.raises(LLMTimeout, match="no reply within 0.3s"):
        make(timeout=0.3).chat("hi")
    assert time.monotonic() - started < 2
    assert server.hits == 1 and sleeps == []


def test_the_timeout_bounds_the_whole_reply_not_each_read(make, server: FakeLLMServer):
    server.script(Trickle("slowly", every=0.15, pieces=10), Trickle("in time", every=0.01, pieces=10))
    client = make(timeout=0.6)
    with pytest.raises(LLMTimeout, match="no complete reply within 0.6s"):
        client.chat("hi")
    assert client.chat("hi").text == "in time"


def test_no_retries_when_asked_for_none(make, server: FakeLLMServer):
    server.script(Fail(500, "boom"))
    with pytest.raises(LLMServerError):
        make(max_retries=0).chat("hi")
    assert server.hits == 1


def test_a_key_in_the_url_is_not_shown(server: FakeLLMServer):
    client = OpenAIChat(f"http://user:{KEY}@127.0.0.1:9/v1", None, "m", max_retries=0)
    with pytest.raises(LLMConnectionError) as caught:
        client.chat("hi")
    assert KEY not in str(caught.value) and KEY not in repr(client)
    assert repr(client) == "OpenAIChat(base_url='http://127.0.0.1:9/v1', model='m')"


def test_a_server_error_with_retry_after_is_retried_when_it_says(make, server: FakeLLMServer, sleeps):
    server.script(Fail(503, "Service Unavailable", retry_after="0.5"), Text("fine"))
    make().chat("hi")
    assert sleeps == [0.5]


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),  # the finer one wins
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after": formatdate(time.time() - 60, usegmt=True)}, 0.0),  # a date past
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_headers_are_read(headers, seconds):
    assert retry_after(httpx.Headers(headers)) == seconds


def test_the_password_of_a_base_url_is_in_no_error_or_log(caplog):
    """The URL's user:password authenticates (Basic) and is shown nowhere, not even by httpx's
    own request log; a reply of the wrong shape named the URL with it before toolkiln.http."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"choices": "not a list"})

    base = "http://ada:pw-do-not-print-5150@127.0.0.1:9/v1"
    client = OpenAIChat(base, None, "m", transport=httpx.MockTransport(answer))
    with caplog.at_level(logging.DEBUG), pytest.raises(LLMBadResponse) as caught:
        client.chat("hi")
    assert seen[0].url == "http://127.0.0.1:9/v1/chat/completions" and "Authorization" in seen[0].headers
    assert caught.value.url == "http://127.0.0.1:9/v1/chat/completions"
    shown = [str(caught.value), str(caught.value.to_dict()), repr(client), caplog.text]
    assert not [text for text in shown if "pw-do-not-print-5150" in text]
