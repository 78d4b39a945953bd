"""GET /health: for load balancers and `toolkiln serve` scripts; the only route without a token."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from toolkiln.server.responses import ExactJSONResponse
from toolkiln.server.schemas import Health
from toolkiln.server.services import services_of
from toolkiln.version import __version__

router = APIRouter(tags=["health"], default_response_class=ExactJSONResponse)


@router.get("/health", response_model=Health, summary="Is the server up (no token needed)")
def health(request: Request) -> Any:
    # (the default tenant's count, as before tenants: no other tenant's is told without a token)
    reg = services_of(request).registries.default
    return ExactJSONResponse({"status": "ok", "version": __version__, "tools": len(reg)})
