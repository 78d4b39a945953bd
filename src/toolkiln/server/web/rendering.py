"""Jinja2 templates of the web page, autoescaped: a tool's name, description or definition is
text on the page, never markup, whatever it holds."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from starlette.requests import Request
from starlette.responses import HTMLResponse

from toolkiln.registry.secrets import may_manage_secrets
from toolkiln.server.responses import utf8
from toolkiln.server.web.access import Visitor, pending_count
from toolkiln.server.web.sessions import CSRF_FIELD, CSRF_HEADER
from toolkiln.server.web.tool_view import type_words
from toolkiln.version import __version__

TEMPLATES = Path(__file__).parent / "templates"
STATUS_LABELS = {
    "active": "Active",
    "disabled": "Disabled",
    "pending_approval": "Pending approval",
    "rejected": "Rejected",
}


@cache
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,  # every template: all of them are HTML
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(
        status_labels=STATUS_LABELS,
        csrf_field=CSRF_FIELD,
        csrf_header=CSRF_HEADER,
        may_manage_secrets=may_manage_secrets,  # (the header's link to the secrets)
        toolkiln_version=__version__,  # not `version`: a page's own context has one (a rollback's)
    )
    env.filters["type_words"] = type_words
    return env


def render_text(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def render(
    request: Request,
    template: str,
    visitor: Visitor | None,
    *,
    status_code: int = 200,
    pending: int | None = None,
    **context: Any,
) -> HTMLResponse:
    """A page (or an htmx fragment) for `visitor`, with the pending count of the header badge
    (counted here unless the caller counted it already)."""
    if pending is None:
        pending = pending_count(request, visitor)
    html = render_text(template, request=request, visitor=visitor, pending=pending, **context)
    return HTMLResponse(utf8(html), status_code=status_code)
