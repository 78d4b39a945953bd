"""The rate limiter and the body limit, in-process."""

from __future__ import annotations

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
