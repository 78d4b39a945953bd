"""GET /health: for load balancers and `toolkiln serve` scripts; the only route without a token."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from toolkiln.registry.registry import Registry
from toolkiln.server.responses import ExactJSONResponse
from toolkiln.server.schemas import Health
from toolkiln.server.services import registry
from toolkiln.version import __version__

router = APIRouter(tags=["health"], default_response_class=ExactJSONResponse)


@router.get("/health", response_model=Health, summary="Is the server up (no token needed)")
def health(reg: Annotated[Registry, Depends(registry)]) -> Any:
    return ExactJSONResponse({"status": "ok", "version": __version__, "tools": len(reg)})
