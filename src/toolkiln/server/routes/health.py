"""GET /health: for load balancers and `toolkiln serve` scripts; the only route without a token."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from toolkiln.server.responses import ExactJSONResponse
from toolkiln.server.schemas import Health
from toolkiln.server.services import Reg
from toolkiln.version import __version__

router = APIRouter(tags=["health"], default_response_class=ExactJSONResponse)


@router.get("/health", response_model=Health, summary="Is the server up (no token needed)")
def health(reg: Reg) -> Any:
    return ExactJSONResponse({"status": "ok", "version": __version__, "tools": len(reg)})
