"""/api/v1/secrets: the registry's secrets, for an admin person or service (as `toolkiln
secrets`). Values are write-only: no route returns one. A model's token is refused whatever its
scope (R0201): a model may declare that a tool needs a secret, never read or set one."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi import Path as PathParam
from pydantic import BaseModel, ConfigDict, Field

from toolkiln.registry.errors import SecretNotFound
from toolkiln.registry.secrets import MAX_VALUE_CHARS, refuse_unless_secret_admin
from toolkiln.server.auth import Admin, Caller
from toolkiln.server.responses import ExactJSONResponse
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.services import Reg

Name = Annotated[str, PathParam(max_length=64, description="an environment variable's name, e.g. WEATHER_API_KEY")]

router = APIRouter(prefix="/secrets", tags=["secrets"], responses=PROBLEMS, default_response_class=ExactJSONResponse)


class SecretValue(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: str = Field(max_length=MAX_VALUE_CHARS, description="the value (never shown again)")


class SecretOut(BaseModel):
    name: str
    updated_at: str


async def _not_a_model(caller: Admin) -> Caller:
    """An admin token that is no model's (checked before the body is read: a model learns nothing)."""
    refuse_unless_secret_admin(caller.acting_as())  # R0201
    return caller


SecretsAdmin = Annotated[Caller, Depends(_not_a_model)]


@router.get("", response_model=list[SecretOut], summary="List the secrets' names and dates (never a value)")
def list_secrets(reg: Reg, _: SecretsAdmin) -> Any:
    return ExactJSONResponse([info.__dict__ for info in reg.secret_store().names()])


@router.put("/{name}", response_model=SecretOut, summary="Set a secret (its value is never returned)")
def set_secret(name: Name, body: SecretValue, reg: Reg, _: SecretsAdmin) -> Any:
    store = reg.secret_store()
    store.set(name, body.value)  # R0740 (400): not a secret's name; R0744 (400): a NUL, empty
    (info,) = [info for info in store.names() if info.name == name]
    return ExactJSONResponse(info.__dict__)


@router.delete("/{name}", response_model=SecretOut, summary="Delete a secret")
def delete_secret(name: Name, reg: Reg, _: SecretsAdmin) -> Any:
    store = reg.secret_store()
    found = [info for info in store.names() if info.name == name]
    if not found or not store.delete(name):
        raise SecretNotFound(f"no secret {name[:64]!r}", hint="list the secrets to see their names")
    return ExactJSONResponse(found[0].__dict__)
