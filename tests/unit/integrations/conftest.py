"""The agent-framework adapters' tests: no traffic leaves this machine (a framework that phones
home at import or per call, such as a tracing exporter or a data download, fails the test that
caused it), and a registry with a tool whose result has trailing digits."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from unit.integrations.framework_support import PRICE

from toolkiln import Registry

# What frameworks read to send traces or telemetry somewhere: unset, and tracing off where a
# switch exists (the OpenAI Agents SDK exports its traces to OpenAI unless told not to).
_TRACING_VARIABLES = ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGSMITH_API_KEY", "LANGCHAIN_API_KEY")


@pytest.fixture(autouse=True)
def only_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection to an address off this machine fails the test (it is never attempted)."""
    for name in _TRACING_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex

    def guarded(method):
        def call(self: socket.socket, address, *args):
            if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
                raise AssertionError(f"a framework tried to connect to {address!r}")
            return method(self, address, *args)

        return call

    monkeypatch.setattr(socket.socket, "connect", guarded(connect))
    monkeypatch.setattr(socket.socket, "connect_ex", guarded(connect_ex))


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    """A registry with `price` (x * 1.10: 2.20 for 2, its digits as computed)."""
    with Registry(tmp_path / "reg", durable=False) as reg:
        reg.create(PRICE)
        yield reg
