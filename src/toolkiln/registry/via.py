"""Through what a change reaches the registry, for its audit line: a server names the token
of the request (`token ci-bot`), so that the log says which key made each change, not only
whether a user or a model asked for it. Context-local: concurrent requests in one process
(threads or tasks) each stamp their own."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

VIA: ContextVar[str | None] = ContextVar("toolkiln_registry_via", default=None)


@contextmanager
def acting_through(via: str) -> Iterator[None]:
    """Stamp `via` on the audit line of every change made inside the block."""
    token = VIA.set(via)
    try:
        yield
    finally:
        VIA.reset(token)
