"""Signing in with a REST token (a session cookie), and out."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from toolkiln.diagnostics import codes
from toolkiln.server.services import services_of
from toolkiln.server.web.access import SIGN_IN_PATH, Posted, Viewer, signer_of
from toolkiln.server.web.rendering import render
from toolkiln.server.web.sessions import SESSION_COOKIE, SESSION_SECONDS, SIGN_IN_COOKIE, SIGN_IN_SECONDS

router = APIRouter(include_in_schema=False)
NOTICES = {c.code: c for c in (codes.SESSION_EXPIRED, codes.SESSION_TAMPERED)}


def safe_next(target: str | None) -> str:
    """Only a page of ours: an open redirect would send a signed-in person anywhere."""
    if target and target.startswith("/ui/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/ui/tools"


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"  # plain HTTP on 127.0.0.1 cannot keep a Secure cookie


def _sign_in_page(
    request: Request, next_page: str, *, error: str | None = None, notice: str | None = None, status_code: int = 200
) -> Response:
    cookie, csrf = signer_of(request).new_sign_in()
    code = NOTICES.get(notice or "")
    response = render(
        request,
        "sign_in.html",
        None,
        status_code=status_code,
        csrf=csrf,
        next_page=safe_next(next_page),
        error=error,
        notice=code,
    )
    response.set_cookie(
        SIGN_IN_COOKIE,
        cookie,
        max_age=SIGN_IN_SECONDS,
        httponly=True,
        samesite="strict",
        secure=_secure(request),
        path=SIGN_IN_PATH,
    )
    return response


@router.get(SIGN_IN_PATH)
def sign_in_form(request: Request, next: str = "/ui/tools", notice: str | None = None) -> Response:  # noqa: A002
    return _sign_in_page(request, next, notice=notice)


@router.post(SIGN_IN_PATH)
def sign_in(
    request: Request,
    token: Annotated[str, Form(max_length=200)] = "",
    acting_as: Annotated[str, Form()] = "user",
    next_page: Annotated[str, Form(alias="next")] = "/ui/tools",
    csrf_token: Annotated[str, Form()] = "",
) -> Response:
    signer = signer_of(request)
    if not signer.sign_in_matches(request.cookies.get(SIGN_IN_COOKIE), csrf_token):
        return _sign_in_page(
            request,
            next_page,
            error=f"{codes.CSRF_FAILED.code}: the sign-in form was posted without its CSRF token; try again",
            status_code=403,
        )
    found = services_of(request).tokens.authenticate(token.strip()) if token.strip() else None
    if found is None:
        return _sign_in_page(
            request,
            next_page,
            error=f"{codes.SIGN_IN_FAILED.code}: that token is unknown or revoked",
            status_code=401,
        )
    # Acting as can only narrow: any token may act as a model, none as more than its kind.
    _, cookie = signer.new_session(found, "llm" if acting_as == "llm" else found.principal.actor)
    response = RedirectResponse(safe_next(next_page), status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        cookie,
        max_age=SESSION_SECONDS,
        httponly=True,
        samesite="strict",
        secure=_secure(request),
        path="/",
    )
    response.delete_cookie(SIGN_IN_COOKIE, path=SIGN_IN_PATH)
    return response


@router.post("/ui/sign-out")
def sign_out(_: Posted, visitor: Viewer) -> Response:
    response = RedirectResponse(SIGN_IN_PATH, status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response
