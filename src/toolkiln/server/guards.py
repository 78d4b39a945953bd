"""ASGI middleware that does not need a route: the body size limit and the audit of writes."""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolkiln.diagnostics import codes
from toolkiln.server.auth import WRITE_SCOPES
from toolkiln.server.problems import diagnostic, problem


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


class WriteAudit:
    """One JSON line in `path` per request made with a write or admin route: when, which
    token, the method, path and status. The registry's own audit.jsonl says what changed;
    this log says who asked for it."""

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
                        "token": caller.name,
                        "scope": caller.token.scope,
                        "method": scope["method"],
                        "path": scope["path"],
                        "status": message["status"],
                    }
                )
            await send(message)

        await self.app(scope, receive, audited_send)

    def _append(self, entry: dict[str, Any]) -> None:
        line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
        with self._mutex:  # one write per line, O_APPEND: lines from several processes never mix
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
