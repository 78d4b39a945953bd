"""One router per resource. Each route names the scope it needs (auth.require)."""

from __future__ import annotations

from typing import Any

from toolkiln.server.schemas import ProblemOut

_PROBLEM_STATUSES = {
    400: "a bad name or request",
    401: "no token, or an unknown or revoked one",
    403: "the token's scope, or the registry's policy, forbids it",
    404: "no such tool, version, template or token",
    409: "the tool's state does not allow it (lifecycle, duplicate, in use)",
    413: "the body is too large",
    422: "the body does not match, or the definition does not check, or the run failed",
    429: "over the token's rate limit (see Retry-After)",
    502: "n8n failed",
    503: "the registry's storage or n8n is not available",
}

# Every authenticated route documents its problem answers, so clients and schemathesis know them.
PROBLEMS: dict[int | str, dict[str, Any]] = {
    status: {
        "model": ProblemOut,
        "description": description,
        "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/ProblemOut"}}},
    }
    for status, description in _PROBLEM_STATUSES.items()
}
