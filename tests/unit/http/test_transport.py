"""toolkiln.http: the one transport under the model clients and the n8n client."""

from __future__ import annotations

import gzip
import itertools
import logging
import socket
import threading
import time
import zlib
from collections.abc import Iterator

import httpx
import pytest

from toolkiln.http import errors
from toolkiln.http.transport import RetryPolicy, Transport
from toolkiln.http.urls import Scrubber

BASE = "http://127.0.0.1:9"


def transport(handler, *, retry: RetryPolicy | None = None, **options) -> tuple[Transport, list[float]]:
    sleeps: list[float] = []
    made = Transport(
        options.pop("base_url", BASE),
        name="test",
        timeout=5.0,
        retry=retry or RetryPolicy(max_retries=2, jitter=False),
        max_bytes=options.pop("max_bytes", 1000),
        transport=httpx.MockTransport(handler),
        sleep=sleeps.append,
        **options,
    )
    return made, sleeps


class Answers:
    def __init__(self, *answers):
        self.answers, self.requests = list(answers), []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


def streamed(size: int) -> httpx.Response:
    """A body of `size` bytes without Content-Length: only counting as it arrives finds it too big."""
    return httpx.Response(200, content=iter([b"x" * 100] * (size // 100)))


@pytest.mark.parametrize(
    ("answer", "why"),
    [(httpx.Response(200, content=b"x" * 5000), "declares 5000 bytes"), (streamed(5000), "larger than the cap")],
)
def test_an_answer_over_the_cap_is_refused(answer, why):
    http, _ = transport(Answers(answer))
    with pytest.raises(errors.TooLarge, match=why) as caught:
        http.request("GET", "/big")
    assert caught.value.status == 200 and caught.value.url == f"{BASE}/big"


def test_an_answer_within_the_cap_is_read_whole_whatever_its_status():
    http, _ = transport(Answers(httpx.Response(404, content=b"x" * 900)))
    response = http.request("GET", "/small")
    assert (response.status, len(response.content), response.attempts) == (404, 900, 1)


def test_only_what_never_reached_the_server_is_sent_again_by_default():
    answers = Answers(httpx.ConnectError("refused"), httpx.ReadError("reset"), httpx.Response(200))
    http, sleeps = transport(answers)
    with pytest.raises(errors.ConnectionLost, match="ReadError: reset") as caught:
        http.request("POST", "/run", body={"n": 1})
    assert len(answers.requests) == 2 and sleeps == [0.5] and caught.value.attempts == 2


def test_with_resend_a_lost_connection_and_a_5xx_are_sent_again():
    answers = Answers(httpx.ReadError("reset"), httpx.Response(503), httpx.Response(200, json={"ok": True}))
    http, sleeps = transport(answers, retry=RetryPolicy(max_retries=2, jitter=False, resend=True))
    response = http.request("POST", "/chat", body={"n": 1})
    assert response.status == 200 and response.attempts == 3 and sleeps == [0.5, 1.0]


def test_without_resend_a_5xx_is_the_answer():
    answers = Answers(httpx.Response(503))
    http, sleeps = transport(answers)
    assert http.request("POST", "/run").status == 503 and sleeps == [] and len(answers.requests) == 1


def test_a_retry_after_longer_than_the_policy_waits_for_is_not_waited_for():
    answers = Answers(httpx.Response(429, headers={"Retry-After": "120"}))
    http, sleeps = transport(answers, retry=RetryPolicy(max_retries=2, max_retry_after=60, resend=True))
    assert http.request("POST", "/chat").status == 429 and sleeps == [] and len(answers.requests) == 1


def test_credentials_of_the_url_go_as_auth_and_show_nowhere(caplog):
    answers = Answers(httpx.ConnectError("refused"))
    http, _ = transport(answers, base_url="http://ada:pw-9999@127.0.0.1:9", secrets=["sk-1234"])
    with caplog.at_level(logging.DEBUG), pytest.raises(errors.ConnectFailed) as caught:
        http.request("GET", "http://ada:pw-9999@127.0.0.1:9/a", headers={"X-Key": "sk-1234"})
    request = answers.requests[0]
    assert request.url == "http://127.0.0.1:9/a" and request.headers["Authorization"].startswith("Basic ")
    assert caught.value.url == "http://127.0.0.1:9/a" and "retry 1 of 2" in caplog.text
    assert "pw-9999" not in str(caught.value) + caplog.text


def test_a_secret_is_masked_as_a_whole_word_only():
    scrub = Scrubber(["x", "sk-1234", None])
    assert scrub("key x, box, x-large, sk-1234.") == "key ***, box, x-large, ***."


@pytest.mark.parametrize(
    ("options", "why"),
    [({"timeout": 0}, "timeout"), ({"max_bytes": 0}, "cap"), ({"base_url": "ftp://u:pw@h"}, "not an http")],
)
def test_bad_options_are_refused(options, why):
    settings = {"name": "t", "timeout": 1.0, "retry": RetryPolicy(), "max_bytes": 10, **options}
    with pytest.raises(errors.BadOption, match=why) as caught:
        Transport(settings.pop("base_url", BASE), **settings)
    assert "pw" not in str(caught.value)


def dripping_server(seconds: float) -> tuple[socket.socket, threading.Thread]:
    """A server that sends its status line a byte every 0.1 s for `seconds`: each read gets a
    byte well within any per-read timeout, so only a deadline on the whole exchange ends it."""
    listener = socket.create_server(("127.0.0.1", 0))

    def drip() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            ends = time.monotonic() + seconds
            for byte in itertools.cycle(b"HTTP/1.1 200 OK\r\nX-Slow: "):
                if time.monotonic() > ends:
                    break
                try:
                    connection.sendall(bytes([byte]))
                except OSError:  # the client gave up
                    break
                time.sleep(0.1)

    thread = threading.Thread(target=drip, daemon=True)
    thread.start()
    return listener, thread


def test_a_server_that_drips_its_headers_is_cut_off_at_the_deadline():
    listener, thread = dripping_server(seconds=6)
    port = listener.getsockname()[1]
    http = Transport(
        f"http://127.0.0.1:{port}", name="t", timeout=0.8, retry=RetryPolicy(max_retries=0), max_bytes=1000
    )
    started = time.monotonic()
    try:
        with pytest.raises(errors.TimedOut, match="no reply within 0.8s"):
            http.request("GET", "/")
        elapsed = time.monotonic() - started
    finally:
        http.close()
        listener.close()
        thread.join(timeout=10)
    assert elapsed < 2.0  # the deadline is the feature: without it the drip lasts 6 s


def _gzipped(data: bytes, layers: int = 1) -> Iterator[bytes]:
    """`data` in `layers` of gzip, streamed in chunks of 1,000 bytes as a server sends it."""
    for _ in range(layers):
        data = gzip.compress(data)
    return iter([data[i : i + 1000] for i in range(0, len(data), 1000)])


def test_a_compressed_answer_is_capped_as_it_decompresses_and_stacked_encodings_are_refused():
    # 10 MB of zeros in two gzip layers is 10 KB on the wire: httpx decoded each layer whole,
    # past any cap (200 MB in one step for a 494-byte answer).
    stacked = httpx.Response(200, headers={"Content-Encoding": "gzip, gzip"}, content=_gzipped(b"\0" * 10**7, 2))
    bomb = httpx.Response(200, headers={"Content-Encoding": "gzip"}, content=_gzipped(b"\0" * 10**7))
    fine = httpx.Response(200, headers={"Content-Encoding": "gzip"}, content=_gzipped(b"x" * 900))
    answers = Answers(stacked, bomb, fine)
    http, _ = transport(answers, retry=RetryPolicy(max_retries=0), max_bytes=100_000)
    with pytest.raises(errors.RequestFailed, match="encoded as 'gzip, gzip'"):
        http.request("GET", "/stacked")
    decoded_sizes = []
    real_decompress = zlib.decompressobj

    def measured(*args):  # what each step of decompressing hands over
        inflate = real_decompress(*args)

        class Measured:
            unconsumed_tail = b""

            def decompress(self, data, limit):
                out = inflate.decompress(data, limit)
                self.unconsumed_tail = inflate.unconsumed_tail
                decoded_sizes.append(len(out))
                return out

            def flush(self):
                return inflate.flush()

        return Measured()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(zlib, "decompressobj", measured)
        with pytest.raises(errors.TooLarge, match="larger than the cap"):
            http.request("GET", "/bomb")
    assert max(decoded_sizes) <= 100_001
    assert http.request("GET", "/fine").content == b"x" * 900
    assert answers.requests[0].headers["Accept-Encoding"] == "gzip, deflate"
