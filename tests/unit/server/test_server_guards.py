"""The rate limiter and the body limit, in-process."""

from __future__ import annotations

import threading

from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from starlette.responses import PlainTextResponse

from toolkiln.server.guards import BearerGuard, BodySizeLimit
from toolkiln.server.ratelimit import TokenRateLimiter
from toolkiln.server.tokens import TokenStore


def test_the_limiter_counts_per_token_and_says_how_long_to_wait():
    limiter = TokenRateLimiter("2/minute")
    assert [limiter.retry_after("a"), limiter.retry_after("a")] == [None, None]
    wait = limiter.retry_after("a")
    assert wait is not None and 1 <= wait <= 60
    assert limiter.retry_after("b") is None


def test_an_empty_limit_never_limits():
    limiter = TokenRateLimiter("")
    assert all(limiter.retry_after("a") is None for _ in range(1000))


def test_several_limits_all_apply():
    limiter = TokenRateLimiter("100/minute;1/hour")
    assert limiter.retry_after("a") is None
    assert limiter.retry_after("a") > 60  # the hourly one


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_request_leaves_the_window_when_its_time_is_up_never_before():
    clock = Clock()
    limiter = TokenRateLimiter("3/second", clock=clock)
    for at in (1000.0, 1000.5, 1000.9):
        clock.now = at
        assert limiter.retry_after("a") is None
    clock.now = 1000.95
    assert limiter.retry_after("a") == 1  # (0.05 s, in whole seconds)
    clock.now = 1000.999
    assert limiter.retry_after("a") == 1  # the first request is still in the window
    clock.now = 1001.001
    assert limiter.retry_after("a") is None  # it left; the refused ones were not counted
    assert limiter.retry_after("a") is not None  # 1000.5, 1000.9 and this one fill the window


def test_a_request_refused_by_one_limit_is_counted_by_none():
    clock = Clock()
    limiter = TokenRateLimiter("2/second;3/hour", clock=clock)
    assert [limiter.retry_after("a"), limiter.retry_after("a")] == [None, None]
    assert limiter.retry_after("a") == 1  # the second's limit refuses: the hour's does not count it
    clock.now += 1.5
    assert limiter.retry_after("a") is None  # the third of the hour
    clock.now += 1.5
    assert limiter.retry_after("a") > 3000


def test_counting_starts_no_thread_and_keeps_a_bounded_memory(monkeypatch):
    started: list[threading.Thread] = []
    start = threading.Thread.start

    def counted(thread: threading.Thread) -> None:
        started.append(thread)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", counted)
    clock = Clock()
    limiter = TokenRateLimiter("1000000/minute", clock=clock)
    for n in range(30_000):
        clock.now = 1000 + n * 0.001  # 30 s of requests, 1,000 a second
        assert limiter.retry_after("a") is None
    assert started == []  # (limits' MemoryStorage started a timer thread every 10 ms)
    (window,) = limiter.windows
    assert window.by_token["a"].count == 30_000
    assert len(window.by_token["a"].groups) <= 51  # a group per 0.6 s, not an entry per request


def test_a_token_with_nothing_left_in_the_window_is_forgotten():
    clock = Clock()
    limiter = TokenRateLimiter("5/minute", clock=clock)
    limiter.retry_after("revoked")
    clock.now += 61
    limiter.retry_after("other")
    assert list(limiter.windows[0].by_token) == ["other"]


def echo_app(max_bytes: int) -> TestClient:
    app = FastAPI()

    @app.post("/echo")
    async def echo(request: Request) -> dict[str, int]:
        return {"read": len(await request.body())}

    app.add_middleware(BodySizeLimit, max_bytes=max_bytes)
    return TestClient(app)


def test_a_declared_length_over_the_limit_is_refused_unread():
    response = echo_app(10).post("/echo", content=b"x" * 11)
    assert response.status_code == 413 and response.json()["code"] == "R0505"
    assert response.headers["content-type"] == "application/problem+json"


def test_a_streamed_body_is_refused_when_it_passes_the_limit():
    chunks = (b"x" * 6 for _ in range(3))  # no Content-Length: sent chunked
    response = echo_app(10).post("/echo", content=chunks)
    assert response.status_code == 413 and response.json()["code"] == "R0505"


def test_a_body_within_the_limit_passes():
    assert echo_app(10).post("/echo", content=b"x" * 10).json() == {"read": 10}


def test_the_mcp_guard_lets_only_the_default_tenants_tokens_through(tmp_path):
    """`toolkiln mcp --http` serves one registry: a token of another tenant is nobody there."""
    store = TokenStore(tmp_path / "state")
    own, _ = store.create("admin", "write", "person")
    other, _ = store.create("admin", "admin", "person", "acme")
    guarded = BearerGuard(PlainTextResponse("served"), store, TokenRateLimiter(""), "write")
    client = TestClient(guarded)
    assert client.get("/mcp", headers={"Authorization": f"Bearer {own}"}).text == "served"
    refused = client.get("/mcp", headers={"Authorization": f"Bearer {other}"})
    assert refused.status_code == 401 and refused.json()["code"] == "R0502"
