"""A deadline for a whole exchange. httpx bounds each connect, read and write by the request's
timeout, so a server that sends a byte just before each read would time out keeps a request
alive for ever. The connections of `pooled_transport()` wait at most until the deadline of the
request under way (`within(seconds)`, a context variable, so one pool serves many threads).
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

_DEADLINE: ContextVar[float | None] = ContextVar("toolkiln_http_deadline", default=None)


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Every wait of the pooled connections in this block ends `seconds` from now."""
    token = _DEADLINE.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def bounded(timeout: float | None, late: type[httpcore.TimeoutException]) -> float | None:
    """`timeout` cut to what is left of the deadline; `late` when nothing is."""
    at = _DEADLINE.get()
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise late("the deadline has passed")
    return left if timeout is None else min(timeout, left)


def pooled_transport() -> httpx.HTTPTransport:
    """httpx's own transport (pool, TLS, proxies from the environment), its connections bounded
    by the deadline. httpx takes no network backend, so the pool's is wrapped in place."""
    transport = httpx.HTTPTransport()
    pool = transport._pool  # private: httpx has no public way to take a network backend
    pool._network_backend = DeadlineBackend(pool._network_backend)
    return transport


class DeadlineBackend(httpcore.NetworkBackend):
    """Connections whose every wait ends by the deadline of `within`; with `pinned`, TCP
    connections to that address whatever host httpcore names (wget: the address it checked)."""

    def __init__(self, backend: httpcore.NetworkBackend, pinned: str | None = None) -> None:
        self.backend, self.pinned = backend, pinned

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        waited = bounded(timeout, httpcore.ConnectTimeout)
        stream = self.backend.connect_tcp(self.pinned or host, port, waited, local_address, socket_options)
        return DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        if self.pinned is not None:
            raise httpcore.UnsupportedProtocol("a pinned connection goes over TCP only")
        waited = bounded(timeout, httpcore.ConnectTimeout)
        return DeadlineStream(self.backend.connect_unix_socket(path, waited, socket_options))

    def sleep(self, seconds: float) -> None:
        self.backend.sleep(seconds)


class DeadlineStream(httpcore.NetworkStream):
    """A connection whose every wait ends by the deadline of `within` (wget wraps its pinned
    connections in it too)."""

    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self.stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.stream.read(max_bytes, bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.stream.write(buffer, bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.stream.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        waited = bounded(timeout, httpcore.ConnectTimeout)
        return DeadlineStream(self.stream.start_tls(ssl_context, server_hostname, waited))

    def get_extra_info(self, info: str) -> Any:
        return self.stream.get_extra_info(info)
