"""What the routes work with: the registry of the caller's tenant, the tokens, the limiter, the
server's settings, and the run slots that bound how many tools run at once.

A route gets its registry only from `registry(request)` (`reg: Reg`): the registry of the
tenant of the request's own token, resolved by the server's `tenant_of` (installed by the app:
the bearer token's for /api, the session's for the web page). There is no server-wide registry
to reach for, so a route cannot forget to filter by tenant."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from starlette.requests import HTTPConnection

from toolkiln.registry.capabilities import NONE, Capabilities
from toolkiln.registry.registry import Registry
from toolkiln.registry.tenants import TenantRegistries
from toolkiln.server.db_tokens import tokens_for
from toolkiln.server.ratelimit import DEFAULT_RATE_LIMIT, TokenRateLimiter
from toolkiln.server.run_slots import RunSlots
from toolkiln.server.state import legacy_warning
from toolkiln.server.tokens import TokenStore

T = TypeVar("T")

DEFAULT_MAX_BODY_BYTES = 1024 * 1024
# Runs at once: a run with default limits builds at most 32 MB (docs/budgets.md), so four bound
# what runs add to the server to 128 MB; more would not run faster (one interpreter lock).
DEFAULT_MAX_CONCURRENT_RUNS = 4


@dataclass(frozen=True)
class Settings:
    registry: Path
    rate_limit: str = DEFAULT_RATE_LIMIT
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    capabilities: Capabilities = NONE  # what the operator granted (`--allow`): nothing by default
    state_dir: Path | None = None  # the server's state folder; None: the default (state.py)
    max_concurrent_runs: int = DEFAULT_MAX_CONCURRENT_RUNS


@dataclass
class Services:
    settings: Settings
    registries: TenantRegistries
    tenant_of: Callable[[Request], str]  # the tenant of a request's token (or 401, or sign in)
    tokens: TokenStore = field(init=False)
    limiter: TokenRateLimiter = field(init=False)
    run_slots: RunSlots = field(init=False)

    def __post_init__(self) -> None:
        default = self.registries.default
        self.tokens = tokens_for(default._store, default.location, self.settings.state_dir)
        self.limiter = TokenRateLimiter(self.settings.rate_limit)
        self.run_slots = RunSlots(self.settings.max_concurrent_runs)
        warning = legacy_warning(self.registries.default.location)
        if warning is not None:  # said once, when the server starts
            logging.getLogger("toolkiln.server").warning("%s", warning)


def services_of(connection: HTTPConnection) -> Services:
    found: Services = connection.app.state.services
    return found


# Dependencies are coroutines on purpose: FastAPI runs a plain `def` dependency in a worker
# thread, and a thread hop costs more than all they do.


async def registry(request: Request) -> Registry:
    """The registry of the tenant of the request's token: the only way a route reaches one."""
    found = services_of(request)
    return found.registries.get(found.tenant_of(request))


async def token_store(request: Request) -> TokenStore:
    return services_of(request).tokens


async def in_run_slot(request: Request, run: Callable[[], T]) -> T:
    """`run()` in one of the server's run slots (run_slots.py): past them the request waits in
    the event loop, holding no thread."""
    return await services_of(request).run_slots.run(run)


# What a route's parameter says to get the registry, or the token store; a route that runs a
# tool runs it with `await in_run_slot(request, ...)`.
Reg = Annotated[Registry, Depends(registry)]
Tokens = Annotated[TokenStore, Depends(token_store)]
