"""Who acts: a person, a model or a service, with the scope their credential carries.

A principal is never read from a request body or a file: a server builds it from the bearer
token (or the web page's signed session), the CLI and the Python API act as the local user.
Every registry call that changes something takes one, and its audit line names it.

    Principal("person", "local user")                 # the CLI, Python: LOCAL_USER
    Principal("model", "agent-1", "write", "token agent-1")

A request may narrow who it acts as (a person acting as a model: `narrowed_to("llm")`), never
widen it. The registry's records keep the older two-word actor (`"user"`, `"llm"`) plus
`"service"`: `actor` maps a principal onto it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, get_args

from toolkiln.diagnostics import codes
from toolkiln.registry.errors import InvalidRequest, PermissionDenied
from toolkiln.registry.models import Actor

PrincipalKind = Literal["person", "model", "service"]
PRINCIPAL_KINDS: tuple[PrincipalKind, ...] = get_args(PrincipalKind)
Scope = Literal["read", "run", "write", "admin"]
SCOPES: tuple[Scope, ...] = get_args(Scope)  # each includes the ones before it
ACTOR_OF: dict[PrincipalKind, Actor] = {"person": "user", "model": "llm", "service": "service"}


class CannotActAs(PermissionDenied, code=codes.CANNOT_ACT_AS):
    """A request asked to act as more than its credential allows."""


@dataclass(frozen=True)
class Principal:
    kind: PrincipalKind
    name: str  # the token's name, or "local user"
    scope: Scope = "admin"
    via: str | None = None  # what the audit line says the change came through ("token ci-bot")

    @property
    def actor(self) -> Actor:
        """The word a tool record and an audit line keep for who acted."""
        return ACTOR_OF[self.kind]

    def allows(self, needed: Scope) -> bool:
        return SCOPES.index(self.scope) >= SCOPES.index(needed)

    @property
    def is_admin_person(self) -> bool:
        return self.kind == "person" and self.scope == "admin"

    def narrowed_to(self, actor: str | None) -> Principal:
        """This principal acting as `actor` ("user", "llm", "service"; None: as it is). Only
        narrowing is allowed: anyone may act as a model; only a person acts as a person."""
        if actor is None or actor == self.actor:
            return self
        if actor == "llm":
            return replace(self, kind="model")
        raise CannotActAs(
            f"{self.described} cannot act as {actor!r}",
            hint="leave the field out to act as the token says; a token's kind is set when it is created",
        )

    def require_admin_person(self, refused: str, hint: str) -> None:
        """PermissionDenied ("<who> cannot <refused>") unless this is a person with the admin
        scope: a person's decision, never a model's or a service's whatever their scope."""
        if not self.is_admin_person:
            raise PermissionDenied(f"{self.described} cannot {refused}", hint=hint)

    @property
    def described(self) -> str:
        return f"{self.kind} {self.name!r} ({self.scope})"


LOCAL_USER = Principal("person", "local user")
LOCAL_MODEL = LOCAL_USER.narrowed_to("llm")  # the local user's model: the factory, the agent loops


def principal_of(value: object, what: str = "created_by") -> Principal:
    """A registry call's `by`/`created_by`: a Principal, or the local user's word for who acts
    ("user" the local user, "llm" a model of the local user's)."""
    if isinstance(value, Principal):
        return value
    if value == "user":
        return LOCAL_USER
    if value == "llm":
        return LOCAL_MODEL
    raise InvalidRequest(
        f'{what} must be a Principal, "user" or "llm", not {value!r}',
        hint='"user" is the local person, "llm" a model acting through tools',
    )
