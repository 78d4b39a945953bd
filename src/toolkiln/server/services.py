"""What the routes work with: the registry, the tokens, the limiter, the server's settings."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request

from toolkiln.registry.capabilities import NONE, Capabilities
from toolkiln.registry.registry import Registry
from toolkiln.server.ratelimit import DEFAULT_RATE_LIMIT, TokenRateLimiter
from toolkiln.server.state import legacy_warning, state_folder
from toolkiln.server.tokens import TokenStore

DEFAULT_MAX_BODY_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Settings:
    registry: Path
    rate_limit: str = DEFAULT_RATE_LIMIT
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    capabilities: Capabilities = NONE  # what the operator granted (`--allow`): nothing by default
    state_dir: Path | None = None  # the server's state folder; None: the default (state.py)


@dataclass
class Services:
    settings: Settings
    registry: Registry
    tokens: TokenStore = field(init=False)
    limiter: TokenRateLimiter = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = TokenStore(state_folder(self.registry.path, self.settings.state_dir))
        self.limiter = TokenRateLimiter(self.settings.rate_limit)
        warning = legacy_warning(self.registry.path)
        if warning is not None:  # said once, when the server starts
            logging.getLogger("toolkiln.server").warning("%s", warning)


def services_of(request: Request) -> Services:
    found: Services = request.app.state.services
    return found


# Dependencies are coroutines on purpose: FastAPI runs a plain `def` dependency in a worker
# thread, and a thread hop costs more than all they do.


async def registry(request: Request) -> Registry:
    return services_of(request).registry


async def token_store(request: Request) -> TokenStore:
    return services_of(request).tokens


# What a route's parameter says to get the registry, or the token store.
Reg = Annotated[Registry, Depends(registry)]
Tokens = Annotated[TokenStore, Depends(token_store)]
