from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from unit.llm.fake_llm_server import KEY, FakeLLMServer

from toolkiln.llm import AnthropicMessages, HTTPChatClient, OpenAIChat

Make = Callable[..., HTTPChatClient]


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake
    assert not fake.rejected, f"the fake refused a request as the real API would: {fake.rejected}"


@pytest.fixture
def sleeps() -> list[float]:
    """The waits a client asked for: passed as its `sleep`, so retry tests do not wait."""
    return []


def _maker(
    cls: type[HTTPChatClient], server: FakeLLMServer, sleeps: list[float], request: pytest.FixtureRequest
) -> Make:
    url = server.url if cls is AnthropicMessages else server.openai_url
    made: list[HTTPChatClient] = []
    request.addfinalizer(lambda: [client.close() for client in made])

    def make(**options: Any) -> HTTPChatClient:
        options.setdefault("sleep", sleeps.append)
        options.setdefault("timeout", 5.0)
        client = cls(
            options.pop("base_url", url), options.pop("api_key", KEY), options.pop("model", "test-model"), **options
        )
        made.append(client)
        return client

    return make


@pytest.fixture(params=[OpenAIChat, AnthropicMessages], ids=["openai", "anthropic"])
def make(request: pytest.FixtureRequest, server: FakeLLMServer, sleeps: list[float]) -> Make:
    """A client factory for each provider, pointed at the fake server."""
    return _maker(request.param, server, sleeps, request)


@pytest.fixture
def make_openai(request: pytest.FixtureRequest, server: FakeLLMServer, sleeps: list[float]) -> Make:
    return _maker(OpenAIChat, server, sleeps, request)


@pytest.fixture
def make_anthropic(request: pytest.FixtureRequest, server: FakeLLMServer, sleeps: list[float]) -> Make:
    return _maker(AnthropicMessages, server, sleeps, request)
