"""Who is looking at the page, and may they: the session, its token's scope, the CSRF check.

A page route takes `visitor: Viewer` (signed in, any scope) and asks `visitor.need(...)` for
more; a form route takes `form: Posted`, which also checks the form's CSRF token. No session
(or an expired or tampered one) sends the browser to the sign-in page; htmx requests get an
`HX-Redirect` there instead of a page fragment.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated
from urllib.parse import quote

from fastapi import Depends, Request
from starlette.datastructures import FormData
from starlette.responses import RedirectResponse, Response

from toolkiln.diagnostics import codes
from toolkiln.registry.principals import Principal, Scope
from toolkiln.server.auth import Caller, check_rate, check_scope, pin_tenant
from toolkiln.server.problems import ServerProblem
from toolkiln.server.services import services_of
from toolkiln.server.tokens import TokenInfo
from toolkiln.server.web.sessions import CSRF_FIELD, CSRF_HEADER, SESSION_COOKIE, Session, SessionError, Signer

SIGN_IN_PATH = "/ui/sign-in"


class SignInNeeded(Exception):
    """No valid session: go to the sign-in page (with `notice`, the reason, when there was one)."""

    def __init__(self, notice: codes.Code | None) -> None:
        super().__init__(notice.code if notice else "no session")
        self.notice = notice


@dataclass(frozen=True)
class Visitor:
    session: Session
    token: TokenInfo
    csrf: str

    def may(self, scope: Scope) -> bool:
        return self.token.allows(scope)

    @property
    def principal(self) -> Principal:
        """Who acts: the token's principal as the session narrowed it at sign-in, named on the
        audit line as through the web page."""
        own = self.token.principal.narrowed_to(self.session.actor)
        return replace(own, via=f"token {self.token.name} (web page)")

    def need(self, request: Request, scope: Scope) -> None:
        """403 (R0503) unless the session's token has `scope`; a write is logged with its token
        in requests.jsonl, like a write through the REST API."""
        check_scope(self.token, scope)
        request.state.caller = Caller(self.token, scope)


def pending_count(request: Request, visitor: Visitor | None) -> int:
    """The calls waiting for approval in the visitor's tenant (the header's badge)."""
    registries = services_of(request).registries
    if visitor is None or not registries.exists(visitor.token.tenant):
        return 0
    return len(registries.get(visitor.token.tenant).list(status="pending_approval"))


def signer_of(request: Request) -> Signer:
    found: Signer = request.app.state.web_signer
    return found


def session_visitor(request: Request) -> Visitor:
    """The visitor the request's session names; SignInNeeded when there is none (or it is
    expired, tampered with, or its token revoked). Counts nothing."""
    cookie = request.cookies.get(SESSION_COOKIE)
    if not cookie:
        raise SignInNeeded(None)
    signer = signer_of(request)
    try:
        session = signer.read_session(cookie)
    except SessionError as error:
        raise SignInNeeded(codes.SESSION_EXPIRED if error.reason == "expired" else codes.SESSION_TAMPERED) from None
    # (names are unique within a tenant only: the fingerprint tells the session's token apart)
    tokens = services_of(request).tokens.entries(None)
    token = next((t for t in tokens if t.name == session.token and signer.fingerprint(t) == session.fingerprint), None)
    if token is None:
        raise SignInNeeded(codes.SESSION_EXPIRED)  # revoked since: its sessions end with it
    return Visitor(session, token, signer.csrf_for(session.sid))


async def visitor(request: Request) -> Visitor:
    """The signed-in visitor; SignInNeeded otherwise. Counts the request against the token's
    rate limit."""
    found = session_visitor(request)
    check_rate(services_of(request).limiter, found.token)
    pin_tenant(request, found.token)
    return found


Viewer = Annotated[Visitor, Depends(visitor)]


async def posted_form(request: Request, visitor: Viewer) -> FormData:
    """The posted form, once its CSRF token (field or header) is the session's; 403 otherwise."""
    form = await request.form()
    presented = form.get(CSRF_FIELD)
    if not isinstance(presented, str):
        presented = request.headers.get(CSRF_HEADER)
    if not signer_of(request).csrf_matches(visitor.session.sid, presented):
        raise ServerProblem(
            403,
            codes.CSRF_FAILED,
            "the form was posted without this session's CSRF token",
            hint="reload the page and post the form again",
        )
    return form


Posted = Annotated[FormData, Depends(posted_form)]


def sign_in_redirect(request: Request, notice: codes.Code | None) -> Response:
    """To the sign-in page, then back to where the visitor was going (a page of ours only)."""
    back = request.url.path if request.method == "GET" else "/ui/tools"
    target = f"{SIGN_IN_PATH}?next={quote(back, safe='/')}"
    if notice is not None:
        target += f"&notice={notice.code}"
    if request.headers.get("HX-Request"):
        response: Response = Response(status_code=200, headers={"HX-Redirect": target})
    else:
        response = RedirectResponse(target, status_code=303)
    if notice is not None:
        response.delete_cookie(SESSION_COOKIE, path="/")
    return response
