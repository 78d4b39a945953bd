"""Who is calling, and may they: a bearer token, its scope, and its rate limit.

A route declares the scope it needs with a parameter `_: Reader` (Runner, Writer, Admin); the
scopes grow read < run < write < admin. Failures are problem details: 401 (R0501 no token,
R0502 an unknown or revoked one), 429 (R0504, with Retry-After), 403 (R0503, a scope too
narrow). The caller is left in `request.state` for the audit of writes (guards.WriteAudit).
Who acts is the token's principal (its kind and scope): a route passes `caller.acting_as(...)`
to the registry, which names it on its audit line; a request body can only narrow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPBearer
from starlette.requests import HTTPConnection

from toolkiln.diagnostics import codes
from toolkiln.registry.principals import Principal, Scope
from toolkiln.server.problems import ServerProblem
from toolkiln.server.ratelimit import TokenRateLimiter
from toolkiln.server.services import services_of
from toolkiln.server.tokens import TokenInfo, TokenStore

_CHALLENGE = {"WWW-Authenticate": "Bearer"}
WRITE_SCOPES: tuple[Scope, ...] = ("write", "admin")


@dataclass(frozen=True)
class Caller:
    token: TokenInfo
    needed: Scope  # what the route asked for: the audit log records writes

    @property
    def name(self) -> str:
        return self.token.name

    def acting_as(self, actor: str | None = None) -> Principal:
        """Who acts: the token's principal, narrowed to `actor` when the request asks (R0702
        when it asks for more)."""
        return self.token.principal.narrowed_to(actor)


def authorize(tokens: TokenStore, limiter: TokenRateLimiter, presented: str | None, needed: Scope) -> TokenInfo:
    """The token `presented` (a bearer token, or None) if it may use a route needing `needed`;
    else the ServerProblem to answer with."""
    token = identify(tokens, presented)
    check_rate(limiter, token)
    check_scope(token, needed)
    return token


def identify(tokens: TokenStore, presented: str | None) -> TokenInfo:
    """The token `presented` names (its scope unchecked, nothing counted); 401 otherwise."""
    if not presented:
        raise ServerProblem(
            401,
            codes.MISSING_TOKEN,
            "this route needs a bearer token",
            hint="send `Authorization: Bearer <token>`; create one with `toolkiln tokens create`",
            headers=_CHALLENGE,
        )
    token = tokens.authenticate(presented)
    if token is None:
        raise ServerProblem(
            401,
            codes.INVALID_TOKEN,
            "the bearer token is unknown or revoked",
            hint="create a new token with `toolkiln tokens create`",
            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )
    return token


def pin_tenant(request: HTTPConnection, token: TokenInfo) -> str:
    """Fix the request's tenant to `token`'s: the registry a route is handed (services.registry())
    and the caller it acts as are one tenant's, whichever was resolved first (401 if not)."""
    pinned = getattr(request.state, "tenant", None)
    if pinned is not None and pinned != token.tenant:
        raise ServerProblem(401, codes.INVALID_TOKEN, "the request names two tenants", headers=_CHALLENGE)
    if pinned is None and not services_of(request).registries.exists(token.tenant):
        raise ServerProblem(401, codes.INVALID_TOKEN, f"the tenant of token {token.name!r} is gone", headers=_CHALLENGE)
    request.state.tenant = token.tenant
    return token.tenant


def bearer_tenant(request: HTTPConnection) -> str:
    """The tenant of the request's bearer token (401 without a valid one); the token is kept
    for the route's scope check, which counts it against the rate limit."""
    token = getattr(request.state, "identified", None)
    if token is None:
        scheme, _, presented = request.headers.get("authorization", "").partition(" ")
        token = identify(services_of(request).tokens, presented.strip() if scheme.lower() == "bearer" else None)
        request.state.identified = token
    return pin_tenant(request, token)


def check_rate(limiter: TokenRateLimiter, token: TokenInfo) -> None:
    """Count a request of `token`; 429 (R0504) when it is over the rate limit."""
    wait = limiter.retry_after(token.key)
    if wait is not None:
        raise ServerProblem(
            429,
            codes.RATE_LIMITED,
            f"token {token.name!r} is over the rate limit; retry in {wait} s",
            hint="slow down, or raise `--rate-limit`",
            headers={"Retry-After": str(wait)},
        )


def check_scope(token: TokenInfo, needed: Scope) -> None:
    """403 (R0503) unless `token` has `needed` or a wider scope."""
    if not token.allows(needed):
        raise ServerProblem(
            403,
            codes.INSUFFICIENT_SCOPE,
            f"this route needs scope {needed!r}; token {token.name!r} has {token.scope!r}",
            hint="use a token with a wider scope",
            headers={"WWW-Authenticate": f'Bearer error="insufficient_scope", scope="{needed}"'},
        )


class ScopedBearer(HTTPBearer):
    """The dependency of a route that needs `needed` (or a wider scope): the bearer token, read
    and checked in one dependency (FastAPI's cost per request grows with each dependency), that
    OpenAPI still describes as the one `HTTPBearer` scheme."""

    def __init__(self, needed: Scope) -> None:
        description = "a token from `toolkiln tokens create NAME --kind ... --scope ...`"
        super().__init__(auto_error=False, scheme_name="HTTPBearer", description=description)
        self.needed = needed

    async def __call__(self, request: Request) -> Caller:  # type: ignore[override]  # a coroutine: no thread hop
        credentials = await super().__call__(request)
        found = services_of(request)
        token = getattr(request.state, "identified", None)  # (by the route's registry, resolved first)
        if token is None:
            token = identify(found.tokens, credentials.credentials if credentials is not None else None)
        check_rate(found.limiter, token)
        check_scope(token, self.needed)
        pin_tenant(request, token)
        caller = Caller(token, self.needed)
        request.state.caller = caller  # read by the request audit
        return caller


def require(needed: Scope) -> ScopedBearer:
    """The dependency of a route that needs `needed` (or a wider scope)."""
    return ScopedBearer(needed)


# What a route's parameter says to need a scope: `_: Reader`.
Reader = Annotated[Caller, Depends(require("read"))]
Runner = Annotated[Caller, Depends(require("run"))]
Writer = Annotated[Caller, Depends(require("write"))]
Admin = Annotated[Caller, Depends(require("admin"))]
