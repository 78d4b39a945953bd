"""ASGI middleware that does not need a route: the body size limit, the audit of writes, and
the bearer token in front of an app that has no routes of ours (MCP over HTTP)."""

from __future__ import annotations

import json
import logging
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolkiln.diagnostics import codes
from toolkiln.registry.principals import Scope as TokenScope
from toolkiln.registry.tenants import DEFAULT_TENANT
from toolkiln.server.auth import WRITE_SCOPES, authorize
from toolkiln.server.problems import ServerProblem, diagnostic, problem
from toolkiln.server.ratelimit import TokenRateLimiter
from toolkiln.server.state import open_private
from toolkiln.server.tokens import TokenStore


class BodySizeLimit:
    """Answer 413 (R0505) to a body over `max_bytes`, reading no further than the limit: a
    declared Content-Length is refused before a byte is read; a streamed body when it passes."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(scope, send)
            return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._refuse(scope, send)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        detail = f"the request body is larger than {self.max_bytes} bytes"
        response = problem(
            413,
            codes.REQUEST_TOO_LARGE.code,
            detail,
            [diagnostic(codes.REQUEST_TOO_LARGE, detail, hint="send a smaller body")],
            instance=scope.get("path"),
            headers={"Connection": "close"},
        )
        await response(scope, _no_body, send)


class _TooLarge(Exception):
    pass


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


def _subject(scope: Scope) -> dict[str, str]:
    """What a route says it changed when its path does not (a form's secret): `subject`."""
    subject = scope.get("state", {}).get("subject")
    return {"subject": subject} if isinstance(subject, str) else {}


class WriteAudit:
    """One JSON line in `path` (requests.jsonl in the server's state folder) per request made
    with a write or admin route: when, which token, the method, path and status (and the
    subject a route names in `request.state.subject`, e.g. a secret set by a form). The
    registry's own audit.jsonl says what changed; this log says who asked for it. The file is
    opened without following a link: one in its place is never written through, nor created."""

    def __init__(self, app: ASGIApp, path: Path) -> None:
        self.app, self.path = app, path
        self._mutex = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def audited_send(message: Message) -> None:
            # Written before the answer starts: a client that has its answer finds the line.
            caller = scope.get("state", {}).get("caller")
            if message["type"] == "http.response.start" and caller is not None and caller.needed in WRITE_SCOPES:
                self._append(
                    {
                        "at": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                        "token": caller.token.key,
                        "scope": caller.token.scope,
                        "method": scope["method"],
                        "path": scope["path"],
                        "status": message["status"],
                        **_subject(scope),
                    }
                )
            await send(message)

        await self.app(scope, receive, audited_send)

    def _append(self, entry: dict[str, Any]) -> None:
        line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
        with self._mutex:  # one write per line, O_APPEND: lines from several processes never mix
            try:
                fd = open_private(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            except OSError as error:  # (the answer still goes out: the log says why it lacks a line)
                logging.getLogger("toolkiln.server").error("request not logged: %s: %s", self.path, error)
                return
            try:
                os.write(fd, line)
            finally:
                os.close(fd)


TOKEN_STATE = "toolkiln_token"


class BearerGuard:
    """Let through only requests with a token of scope `needed` (auth.authorize: 401, 429,
    403 as problem details otherwise). The token is left in the request's state
    (`TOKEN_STATE`), where the MCP server reads who acts. It serves the one registry it was
    given, so only tokens of its tenant pass (`default`, unless `toolkiln mcp --tenant`): a
    token of another tenant is refused like an unknown one."""

    def __init__(
        self,
        app: ASGIApp,
        tokens: TokenStore,
        limiter: TokenRateLimiter,
        needed: TokenScope,
        tenant: str = DEFAULT_TENANT,
    ) -> None:
        self.app, self.tokens, self.limiter, self.needed, self.tenant = app, tokens, limiter, needed, tenant

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        kind, _, presented = header.partition(" ")
        try:
            token = authorize(self.tokens, self.limiter, presented if kind.lower() == "bearer" else None, self.needed)
            if token.tenant != self.tenant:  # (it serves one registry: another tenant's token is nobody here)
                raise ServerProblem(401, codes.INVALID_TOKEN, "the bearer token is unknown or revoked")
        except ServerProblem as refused:
            await refused.response(scope.get("path"))(scope, receive, send)
            return
        scope.setdefault("state", {})[TOKEN_STATE] = token
        await self.app(scope, receive, send)
