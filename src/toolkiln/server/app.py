"""The ASGI app of `toolkiln serve`: routers, error answers, the body limit and the write audit.

The registry is opened when the app starts and flushed (usage counts) when it stops; it
notices other processes' changes before every call, so a tool created anywhere on the same
folder is listed, exported and run here at once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from toolkiln.registry.registry import Registry
from toolkiln.registry.tenants import TenantRegistries
from toolkiln.server import problems
from toolkiln.server.auth import Reader
from toolkiln.server.guards import BodySizeLimit, WriteAudit
from toolkiln.server.routes import (
    calls,
    check,
    events,
    exports,
    health,
    ownpilot,
    pins,
    reviews,
    runs,
    secrets,
    seed,
    tokens,
    tools,
    workflows,
)
from toolkiln.server.services import Services, Settings
from toolkiln.server.tenancy import request_tenant
from toolkiln.server.web import install as install_web_page
from toolkiln.version import __version__

API_PREFIX = "/api/v1"


def create_app(settings: Settings, registry: Registry | None = None) -> FastAPI:
    """The app over the registry in `settings.registry` (or `registry`, already open)."""
    # (`is None`: a Registry with no tools is falsy, and the one given carries the policy)
    opened = registry if registry is not None else Registry(settings.registry, capabilities=settings.capabilities)
    # (the default tenant is `opened`; a database's tenants are opened with the URL as given)
    registries = TenantRegistries(opened, capabilities=settings.capabilities, url=str(settings.registry))
    found = Services(settings, registries, request_tenant)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        found.run_slots.close()
        registries.close()  # the run counts not written yet

    app = FastAPI(
        title="toolkiln",
        version=__version__,
        summary="Create, check, run and export safe, typed tools over HTTP",
        lifespan=lifespan,
        openapi_url=None,  # served below, behind a token like every route but /health
        docs_url=None,
        redoc_url=None,
    )
    app.state.services = found
    # Fixed paths (/tools/definitions, /tools/stats, /tools/test, /tools/validate) before /tools/{name}.
    # Each router straight under the app: FastAPI walks every level of nesting on each request.
    for router in (exports.router, runs.router, tools.router, check.router, workflows.router, tokens.router):
        app.include_router(router, prefix=API_PREFIX)
    app.include_router(events.router, prefix=API_PREFIX)  # (tool events as Server-Sent Events)
    app.include_router(calls.router, prefix=API_PREFIX)  # (approval of each call: its own paths)
    app.include_router(reviews.router, prefix=API_PREFIX)  # (what approving a version means)
    app.include_router(pins.router, prefix=API_PREFIX)  # (a person moves a caller's pinned versions)
    app.include_router(secrets.router, prefix=API_PREFIX)  # (write-only values, admin persons and services)
    app.include_router(ownpilot.router, prefix=API_PREFIX)  # (OwnPilot's create body: /custom-tools)
    app.include_router(seed.router)
    app.include_router(health.router)

    @app.get("/openapi.json", include_in_schema=False)
    async def openapi(_: Reader) -> JSONResponse:
        return JSONResponse(app.openapi())

    problems.install(app)
    found.tokens.ensure_folder()  # the request log goes there too
    app.add_middleware(WriteAudit, path=found.tokens.folder / "requests.jsonl")
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)  # before anything reads
    install_web_page(app)  # the page at / and /ui/ (its error pages wrap the body limit too)
    return app
