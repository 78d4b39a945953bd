"""The secrets on the web page, for an admin person or service: their names and dates, a form
that sets one (the value is a write-only field: no page ever shows a value) and a delete button
on each. A visitor who may not manage secrets (a narrower token, or a session acting as a
model) does not see the link and is refused the page (R0503, R0201). Each change is a line
of the request log naming the token and the secret, never its value."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from toolkiln.registry.errors import SecretNotFound
from toolkiln.registry.secrets import MAX_VALUE_CHARS, Secrets, check_secret_name, refuse_unless_secret_admin
from toolkiln.server.services import Reg
from toolkiln.server.web.access import Posted, Viewer, Visitor
from toolkiln.server.web.rendering import render

router = APIRouter(include_in_schema=False)
DONE = {"set": "Secret set.", "deleted": "Secret deleted."}


def _store(request: Request, reg: Reg, visitor: Visitor) -> Secrets:
    visitor.need(request, "admin")  # R0503 for a narrower token
    refuse_unless_secret_admin(visitor.principal)  # R0201 for a model
    return reg.secret_store()


@router.get("/ui/secrets")
def list_secrets(request: Request, reg: Reg, visitor: Viewer, done: str = "") -> Response:
    secrets = _store(request, reg, visitor).names()
    return render(request, "secrets.html", visitor, secrets=secrets, done=DONE.get(done, ""), max_value=MAX_VALUE_CHARS)


@router.post("/ui/secrets")
def set_secret(request: Request, reg: Reg, visitor: Viewer, form: Posted) -> Response:
    store = _store(request, reg, visitor)
    name = check_secret_name(str(form.get("name", "")).strip())  # R0740
    request.state.subject = f"secret {name}"  # (the request log names it: the path does not)
    store.set(name, str(form.get("value", "")))  # R0744
    return RedirectResponse("/ui/secrets?done=set", status_code=303)


@router.post("/ui/secrets/{name}/delete")
def delete_secret(request: Request, reg: Reg, visitor: Viewer, form: Posted, name: str) -> Response:
    if not _store(request, reg, visitor).delete(check_secret_name(name)):
        raise SecretNotFound(f"no secret {name} is set", hint="the list shows the secrets that are set")
    return RedirectResponse("/ui/secrets?done=deleted", status_code=303)
