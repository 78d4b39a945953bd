"""Which tenant a request is for: its token's, and only its token's (docs/tenants.md).

An API request (under /api/) is its bearer token's; a web page request is its session's. The
answer is pinned on the request (auth.pin_tenant), so the registry a route is handed and the
caller its scope was checked for cannot be of two tenants.
"""

from __future__ import annotations

from fastapi import Request

from toolkiln.server.auth import bearer_tenant, pin_tenant
from toolkiln.server.web.access import session_visitor

API_PATHS = "/api/"


def request_tenant(request: Request) -> str:
    """The tenant of the request's token: 401 without a valid bearer token on the API, the
    sign-in page without a session on the web page."""
    if request.url.path.startswith(API_PATHS):
        return bearer_tenant(request)
    return pin_tenant(request, session_visitor(request).token)
