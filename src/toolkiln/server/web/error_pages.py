"""Errors on the web page are pages: a problem+json answer to a page request (a refused
action, a 404, the body limit's 413) becomes HTML with the same status, code and message,
and every page gets the headers that keep other sites and injected markup out."""

from __future__ import annotations

import json
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolkiln.diagnostics import codes
from toolkiln.server.problems import MEDIA_TYPE
from toolkiln.server.responses import utf8
from toolkiln.server.web.access import SignInNeeded, Visitor, pending_count, session_visitor
from toolkiln.server.web.rendering import render_text

# Scripts and styles from this server only (htmx and our CSS are files): no inline script, so
# a name or description that slipped through escaping still could not run.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


def is_page_path(path: str) -> bool:
    return path == "/" or path == "/ui" or path.startswith("/ui/")


class WebErrorPages:
    """For the page's paths: problem details as an HTML page (a fragment for htmx), and the
    security headers on every answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_page_path(scope["path"]):
            await self.app(scope, receive, send)
            return
        fragment = any(k == b"hx-request" for k, _ in scope["headers"])
        held: Message | None = None
        body = b""

        async def paged_send(message: Message) -> None:
            nonlocal held, body
            if message["type"] == "http.response.start":
                headers = MutableHeaders(raw=message["headers"])
                for key, value in SECURITY_HEADERS.items():
                    headers.setdefault(key, value)
                if headers.get("content-type", "").startswith(MEDIA_TYPE):
                    held = message  # the problem's body follows: turned into HTML below
                    return
                await send(message)
                return
            if held is None:
                await send(message)
                return
            body += message.get("body", b"")
            if message.get("more_body"):
                return
            problem = json.loads(body or b"{}")
            html = utf8(error_fragment(problem) if fragment else error_page(problem, Request(scope)))
            headers = MutableHeaders(raw=held["headers"])
            headers["content-type"] = "text/html; charset=utf-8"
            headers["content-length"] = str(len(html))
            await send(held)
            await send({"type": "http.response.body", "body": html})

        await self.app(scope, receive, paged_send)


def error_fragment(problem: dict[str, Any]) -> str:
    return render_text("_problem.html", show_title=True, **_said_once(problem))


def error_page(problem: dict[str, Any], request: Request) -> str:
    """The whole page, with the header and navigation of the signed-in visitor (when there is
    one: the sign-in page's own errors have none)."""
    try:
        visitor: Visitor | None = session_visitor(request)
    except SignInNeeded:
        visitor = None
    pending = pending_count(request, visitor)
    return render_text("error.html", visitor=visitor, pending=pending, show_title=False, **_said_once(problem))


def _said_once(problem: dict[str, Any]) -> dict[str, Any]:
    """The problem's parts, each said once: a diagnostic that only repeats the detail gives
    its hint and is not listed again."""
    detail = str(problem.get("detail", ""))
    diagnostics = [d for d in problem.get("diagnostics") or [] if isinstance(d, dict)]
    repeats = [d for d in diagnostics if d.get("message") == detail and not d.get("path") and not d.get("line")]
    return {
        "status": problem.get("status", 500),
        "code": str(problem.get("code", codes.INTERNAL_ERROR.code)),
        "title": problem.get("title", "Error"),
        "detail": detail,
        "hint": next((d["hint"] for d in repeats if d.get("hint")), problem.get("hint")),
        "diagnostics": [d for d in diagnostics if d not in repeats],
    }
