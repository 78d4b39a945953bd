"""/api/v1/tokens: the admin's view of the tokens (as `toolkiln tokens`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from fastapi import Path as PathParam

from toolkiln.registry.principals import ACTOR_OF
from toolkiln.server.auth import Admin
from toolkiln.server.responses import ExactJSONResponse
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.schemas import CreateToken, NewToken, TokenOut
from toolkiln.server.services import Tokens

router = APIRouter(prefix="/tokens", tags=["tokens"], responses=PROBLEMS, default_response_class=ExactJSONResponse)


@router.get("", response_model=list[TokenOut], summary="List the tokens (never the tokens themselves)")
def list_tokens(store: Tokens, caller: Admin) -> Any:
    return ExactJSONResponse([t.public() for t in store.entries(caller.token.tenant)])  # (its tenant's only)


@router.post("", response_model=NewToken, status_code=201, summary="Create a token (shown once)")
def create_token(body: CreateToken, store: Tokens, caller: Admin) -> Any:
    caller.acting_as(ACTOR_OF[body.kind])  # R0702: a token never makes one for a wider kind than its own
    token, info = store.create(body.name, body.scope, body.kind, caller.token.tenant)  # (in its own tenant)
    return ExactJSONResponse({**info.public(), "token": token}, status_code=201)


@router.delete("/{name}", response_model=TokenOut, summary="Revoke a token (at once, on every server)")
def revoke_token(name: Annotated[str, PathParam(max_length=200)], store: Tokens, caller: Admin) -> Any:
    return ExactJSONResponse(store.revoke(name, caller.token.tenant).public())  # R0510 (404): none in its tenant
