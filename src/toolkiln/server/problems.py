"""Errors as RFC 9457 problem details (`application/problem+json`), never a stack trace.

Every 4xx and 5xx answer has `type`, `title`, `status`, `detail`, `instance`, the stable
`code` and a `diagnostics` list in the JSON form of `toolkiln check --format json`, so a
client repairs a request the way a model repairs a definition. Registry errors keep their
R01xx-R04xx codes; the server's own are R05xx.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.details import ErrorDetails
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError, Error, RunError, error_details
from toolkiln.registry import errors as registry_errors
from toolkiln.registry.outcome import Outcome
from toolkiln.semantics.values import to_json
from toolkiln.server.responses import utf8
from toolkiln.server.tokens import TokenError

MEDIA_TYPE = "application/problem+json"
log = logging.getLogger("toolkiln.server")

# The HTTP status of each registry error; a subclass not listed takes its parent's (the first
# listed that it is one of: a subclass with its own status comes before its parent).
_REGISTRY_STATUS: dict[type[registry_errors.RegistryError], int] = {
    registry_errors.TooManyPendingCalls: 429,
    registry_errors.CallTooLarge: 413,
    registry_errors.InvalidName: 400,
    registry_errors.InvalidRequest: 400,
    registry_errors.ToolNotFound: 404,
    registry_errors.SecretNotFound: 404,
    registry_errors.DuplicateTool: 409,
    registry_errors.DependencyCycle: 409,
    registry_errors.ToolInUse: 409,
    registry_errors.PermissionDenied: 403,
    registry_errors.InvalidTransition: 409,
    registry_errors.CallPending: 202,  # (not run yet: it waits for a person's approval)
    registry_errors.CallDenied: 403,
    registry_errors.ToolNotActive: 409,
    registry_errors.BrokenTool: 409,
    registry_errors.CheckTooSlow: 422,
    registry_errors.WorkflowNameTaken: 409,
    registry_errors.WorkflowNotDeployed: 409,
    registry_errors.StoreError: 503,
    registry_errors.SecretUnreadable: 503,  # (a key this server was not given: the server's, not the call's)
    registry_errors.N8nNotConfigured: 503,
    registry_errors.N8nFailure: 502,
    registry_errors.RegistryError: 500,
}
_TOKEN_STATUS = {
    codes.TOKEN_EXISTS.code: 409,
    codes.TOKEN_NOT_FOUND.code: 404,
    codes.TOKEN_NAME_INVALID.code: 400,
}


class ServerProblem(Exception):
    """Raised by the server's own checks (auth, scopes, limits): an R05xx problem."""

    def __init__(
        self, status: int, code: codes.Code, detail: str, hint: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail, self.hint, self.headers = status, code, detail, hint, headers

    def response(self, instance: str | None) -> Response:
        found = [diagnostic(self.code, self.detail, self.hint)]
        return problem(self.status, self.code.code, self.detail, found, instance=instance, headers=self.headers)


class NotFound(Exception):
    """A 404 whose reasons are diagnostics of their own (an unknown template: E0801)."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics[0].message)
        self.diagnostics = diagnostics


def problem(
    status: int,
    code: str,
    detail: str,
    diagnostics: list[dict[str, Any]],
    *,
    instance: str | None = None,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> Response:
    """Problem details (RFC 9457); `extra`: members of this problem's own."""
    entry = codes.CODES.get(code)
    body = {
        "type": f"urn:toolkiln:error:{code}",
        "title": entry.title if entry else "Error",
        "status": status,
        "detail": detail,
        "instance": instance,
        "code": code,
        "diagnostics": diagnostics,
        **(extra or {}),
    }
    return Response(utf8(to_json(body)), status_code=status, media_type=MEDIA_TYPE, headers=headers)


def diagnostic(code: codes.Code, message: str, hint: str | None = None, path: str | None = None) -> dict[str, Any]:
    """A server problem in the one shape of an error (`ErrorDetails`), with a hint (the code's
    explanation where the server gives none)."""
    return ErrorDetails.coded(code, message, hint, path=path).explained().to_dict()


def _registry_status(code: str) -> int | None:
    """The HTTP status of a registry error known by its code (a subclass takes its parent's)."""
    kinds = [registry_errors.RegistryError]
    while kinds:
        kind = kinds.pop()
        if kind.code == code:
            return next(s for listed, s in _REGISTRY_STATUS.items() if issubclass(kind, listed))
        kinds.extend(kind.__subclasses__())
    return None


def failed(outcome: Outcome, instance: str | None) -> Response:
    """A failed Outcome (`Registry.invoke`, `Registry.apply`) as problem details: the status of
    its first error's code (a registry refusal's; 503 when no sandbox is at hand; else 422, the
    call's fault), its message as the detail."""
    code = outcome.errors[0].code
    status = _registry_status(code) or (503 if code == codes.SANDBOX_UNAVAILABLE.code else 422)
    fixes = {"fixes_applied": list(outcome.fixes)} if outcome.fixes else None  # what a created definition had fixed
    return problem(status, code, outcome.message, outcome.error_dicts, instance=instance, extra=fixes)


def explained(error: Error) -> list[dict[str, Any]]:
    """An error a route raised, as the diagnostics of a problem: each with a hint, as an
    Outcome's (`ErrorDetails.explained`)."""
    return [e.explained().to_dict() for e in error_details(error)]


def broken_json(error: dict[str, Any], body: Any) -> dict[str, Any]:
    """A body that is not JSON: where it breaks as line and column of the body (pydantic's
    `loc` is ("body", character offset), which read as a path looked like a field `body.10`)."""
    loc = error.get("loc", ())
    offset = loc[-1] if loc and isinstance(loc[-1], int) else None
    reason = str((error.get("ctx") or {}).get("error", "")) or "not JSON"
    found = diagnostic(codes.INVALID_BODY, f"the body is not JSON: {reason}", hint="send one JSON object", path="body")
    if offset is not None and isinstance(body, str | bytes):
        before = (body if isinstance(body, str) else body.decode("utf-8", "replace"))[:offset]  # a character offset
        line = before.count("\n") + 1
        found.update(line=line, column=offset - (before.rfind("\n") + 1) + 1)
        found["message"] += f" at line {line}, column {found['column']}"
    return found


def _by_an_admin(request: Request) -> bool:
    caller = getattr(request.state, "caller", None)
    token = caller.token if caller is not None else getattr(request.state, "identified", None)
    return token is not None and bool(token.allows("admin"))


def _store_failed(error: registry_errors.StoreError, instance: str) -> Response:
    """A store that cannot be used, as a caller without the admin scope is told it: that it
    failed, with its code, never where it is (a database's host, name and user, a folder's path)."""
    detail = "the registry's store cannot be used now"
    hint = "retry in a moment; a token with the admin scope is told why"
    return problem(503, error.code, detail, [diagnostic(codes.CODES[error.code], detail, hint)], instance=instance)


def install(app: FastAPI) -> None:
    """Answer every error the routes and FastAPI raise as problem details."""

    def where(request: Request) -> str:
        return request.url.path

    async def server_problem(request: Request, error: Exception) -> Response:
        assert isinstance(error, ServerProblem)
        return error.response(where(request))

    async def not_found(request: Request, error: Exception) -> Response:
        assert isinstance(error, NotFound)
        first = error.diagnostics[0]
        found = [d.to_dict() for d in error.diagnostics]
        return problem(404, first.code, first.message, found, instance=where(request))

    async def registry_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, registry_errors.RegistryError)
        if isinstance(error, registry_errors.StoreError) and not _by_an_admin(request):
            return _store_failed(error, where(request))
        status = next(s for kind, s in _REGISTRY_STATUS.items() if isinstance(error, kind))
        found = explained(error)
        return problem(status, error.code, error.message, found, instance=where(request))

    async def compile_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, CompileError)
        found = explained(error)
        first = next((d for d in error.diagnostics if d.is_error), None)
        code = first.code if first else codes.REGISTRY_ERROR.code
        detail = f"the definition does not check: {sum(d.is_error for d in error.diagnostics)} error(s)"
        return problem(422, code, detail, found, instance=where(request))

    async def run_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, RunError)
        status = 503 if error.code == codes.SANDBOX_UNAVAILABLE.code else 422  # the server's fault, not the call's
        found = explained(error)
        return problem(status, error.code, error.message, found, instance=where(request))

    async def token_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, TokenError)
        status = _TOKEN_STATUS.get(error.code, 500)
        code = codes.CODES[error.code]
        return problem(status, error.code, error.message, [diagnostic(code, error.message, error.hint)])

    async def invalid_body(request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        found = [
            broken_json(e, error.body)
            if e.get("type") == "json_invalid"
            else diagnostic(
                codes.INVALID_BODY, str(e.get("msg", "invalid")), path=".".join(str(p) for p in e.get("loc", ()))
            )
            for e in error.errors()
        ]
        detail = f"the request does not match the route: {len(found)} problem(s)"
        return problem(422, codes.INVALID_BODY.code, detail, found, instance=where(request))

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, StarletteHTTPException)
        code = codes.NO_SUCH_ROUTE if error.status_code in (404, 405) else codes.INVALID_BODY
        detail = str(error.detail)
        return problem(
            error.status_code,
            code.code,
            detail,
            [diagnostic(code, detail)],
            instance=where(request),
            headers=getattr(error, "headers", None),
        )

    async def other_error(request: Request, error: Exception) -> Response:
        """A toolkiln.Error the routes do not expect is the request's fault (422); anything
        else is a bug: logged here, answered without a trace."""
        if isinstance(error, Error):
            detail = str(error)[:500]
            return problem(422, codes.INVALID_BODY.code, detail, [diagnostic(codes.INVALID_BODY, detail)])
        log.exception("internal error on %s %s", request.method, request.url.path)
        detail = "the server failed; its log has the details"
        return problem(500, codes.INTERNAL_ERROR.code, detail, [diagnostic(codes.INTERNAL_ERROR, detail)])

    app.add_exception_handler(ServerProblem, server_problem)
    app.add_exception_handler(NotFound, not_found)
    app.add_exception_handler(registry_errors.RegistryError, registry_error)
    app.add_exception_handler(CompileError, compile_error)
    app.add_exception_handler(RunError, run_error)
    app.add_exception_handler(TokenError, token_error)
    app.add_exception_handler(RequestValidationError, invalid_body)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, other_error)
