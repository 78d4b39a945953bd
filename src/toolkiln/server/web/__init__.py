"""The management web page of `toolkiln serve`: review, approve, test and edit tools.

Server-rendered HTML (Jinja2 templates, autoescaped) with htmx for the live parts, served
from files in this package (static/: htmx, CSS, a few lines of script); nothing is loaded
from another site and there is no build step. Signed in with a token of the REST API; every
action goes through the same registry calls as the API, as the session's token.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response

from toolkiln.server.services import Services
from toolkiln.server.web import actions, calls, editor, pages, pins, secrets, sign_in, trials
from toolkiln.server.web.access import SignInNeeded, sign_in_redirect
from toolkiln.server.web.error_pages import WebErrorPages
from toolkiln.server.web.sessions import Signer, load_secret

STATIC = Path(__file__).parent / "static"


def install(app: FastAPI) -> None:
    """Add the page's routes (`/`, `/ui/...`) and its error pages to the REST server's app.
    Call it last: its error pages wrap every other middleware (the body limit's 413 too)."""
    found: Services = app.state.services
    found.tokens.ensure_folder()
    app.state.web_signer = Signer(load_secret(found.tokens.folder))
    app.mount("/ui/static", StaticFiles(directory=STATIC), name="web-static")
    routers = (
        sign_in.router,
        editor.router,
        trials.router,
        actions.router,
        calls.router,
        secrets.router,
        pins.router,
        pages.router,
    )
    for router in routers:
        app.include_router(router)

    async def to_sign_in(request: Request, error: Exception) -> Response:
        assert isinstance(error, SignInNeeded)
        return sign_in_redirect(request, error.notice)

    app.add_exception_handler(SignInNeeded, to_sign_in)
    app.add_middleware(WebErrorPages)
