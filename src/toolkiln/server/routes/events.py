"""/api/v1/events: the registry's tool events as Server-Sent Events (RustyClaw's `/ws` feed).

An event is a line of the registry's audit log (created, updated, approved, deleted, run
unsandboxed, ...), whoever wrote it: this server, another one, the CLI. Its id is its position
in the log (1, 2, ...), which only grows, so `Last-Event-ID` resumes after the last one seen.
Runs are not audit lines (a line per run would grow the log with every call): an `executed`
event says how many runs a tool had since the last poll, from the run counts every process
keeps; it has no id, so a resumed stream does not replay runs.
A stream is bounded: at most MAX_STREAMS at once per server (R0519, 503 past it), one event
at a time waits on the client's socket (a slow reader holds back only its own stream), a
heartbeat comment when idle, and the stream ends when its client goes. Only what the read
scope may list is sent: no audit note, no token names.
"""

from __future__ import annotations

import contextlib
import itertools
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from functools import partial
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Header, Request, WebSocket, WebSocketDisconnect
from starlette.requests import HTTPConnection
from starlette.responses import StreamingResponse

from toolkiln.diagnostics import codes
from toolkiln.registry.errors import InvalidRequest
from toolkiln.registry.models import AuditEntry
from toolkiln.registry.registry import Registry
from toolkiln.semantics.values import to_json
from toolkiln.server.auth import Reader, authorize, pin_tenant
from toolkiln.server.problems import ServerProblem
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.services import Reg, services_of

MAX_STREAMS = 8
POLL_SECONDS = 0.5  # how soon a change anywhere on the registry folder is sent
HEARTBEAT_SECONDS = 15.0  # idle streams send a comment, so proxies keep them and dead ones end
RETRY_AFTER_SECONDS = 5

router = APIRouter(prefix="/events", tags=["events"], responses=PROBLEMS)


class StreamSlots:
    """The open streams of one server; a slot is freed when its stream ends, even one that
    never started (its generator is dropped unread)."""

    def __init__(self, limit: int) -> None:
        self.limit, self.open, self._numbers = limit, set[int](), itertools.count()

    def take(self) -> int:
        if len(self.open) >= self.limit:
            raise ServerProblem(
                503,
                codes.TOO_MANY_EVENT_STREAMS,
                f"this server already streams events to {self.limit} clients",
                hint="close a stream you no longer read, or retry later",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        slot = next(self._numbers)
        self.open.add(slot)
        return slot

    def free(self, slot: int) -> None:
        self.open.discard(slot)


def slots_of(connection: HTTPConnection) -> StreamSlots:
    found: StreamSlots | None = getattr(connection.app.state, "event_streams", None)
    if found is None:
        found = connection.app.state.event_streams = StreamSlots(MAX_STREAMS)
    return found


def event_json(entry: AuditEntry) -> dict[str, Any]:
    """What a client is told of an audit line: tool, version, action, who (a kind), when."""
    return {
        "tool": entry.tool,
        "action": entry.action,
        "version": entry.new_version if entry.new_version is not None else entry.old_version,
        "status": entry.new_status,
        "actor": entry.by,
        "at": iso(entry.at),
    }


def executed_events(before: RunCounts, now: RunCounts) -> list[dict[str, Any]]:
    """An `executed` event for each tool that ran between two readings of the run counts (a
    tool deleted and made again starts from zero: no event until it runs)."""
    return [
        {"tool": name, "action": "executed", "runs": count - before.get(name, (0, None))[0], "at": iso(last)}
        for name, (count, last) in now.items()
        if count > before.get(name, (0, None))[0]
    ]


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


RunCounts = dict[str, tuple[int, datetime | None]]
Line = tuple[int | None, dict[str, Any]] | None  # an event (with its id, if it has one), or a heartbeat


def sse(event_id: int | None, event: dict[str, Any]) -> bytes:
    field = "" if event_id is None else f"id: {event_id}\n"
    return f"{field}event: {event['action']}\ndata: {to_json(event)}\n\n".encode()


def resume_point(last_event_id: str | None, logged: int) -> int:
    """How many audit lines the client has seen: `Last-Event-ID`, else all (only new ones follow)."""
    if last_event_id is None:
        return logged
    if not last_event_id.isdigit() or len(last_event_id) > 18:
        raise InvalidRequest(
            f"Last-Event-ID {last_event_id[:40]!r} is not an event id", hint="send the `id:` of an event received"
        )
    return min(int(last_event_id), logged)


async def audit_lines(reg: Registry, after: int = 0) -> list[AuditEntry]:
    return await anyio.to_thread.run_sync(partial(reg.audit_log, after=after))


async def run_counts(reg: Registry) -> RunCounts:
    return await anyio.to_thread.run_sync(reg.run_counts)


async def event_lines(reg: Registry, seen: int, gone: Callable[[], Awaitable[bool]]) -> AsyncIterator[Line]:
    """(id, event) for every audit line after the first `seen`, as it is written, (None, event)
    for the tools that ran since the last poll, and None as a heartbeat when idle, until
    `gone()`. Each poll reads only the lines written since the last."""
    idle, counts = 0.0, await run_counts(reg)
    while not await gone():
        written = await audit_lines(reg, after=seen)
        for position, entry in enumerate(written, seen + 1):
            yield position, event_json(entry)  # waits while the client's socket is full
        seen += len(written)
        now = await run_counts(reg)
        ran, counts = executed_events(counts, now), now
        for event in ran:
            yield None, event
        idle = 0.0 if written or ran else idle + POLL_SECONDS
        if idle >= HEARTBEAT_SECONDS:
            idle = 0.0
            yield None
        await anyio.sleep(POLL_SECONDS)


async def stream(request: Request, reg: Registry, seen: int, release: Callable[[], None]) -> AsyncIterator[bytes]:
    """The Server-Sent Events of `event_lines` until the client goes; then `release` (the server
    cancels the stream when its client disconnects: the finally runs)."""
    try:
        yield b"retry: 2000\n\n"
        async for line in event_lines(reg, seen, request.is_disconnected):
            yield b": heartbeat\n\n" if line is None else sse(*line)
    finally:
        release()


@router.get(
    "",
    summary="Tool events as Server-Sent Events (text/event-stream)",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "one event per audit line"}},
)
async def events(
    request: Request,
    reg: Reg,
    _: Reader,
    last_event_id: Annotated[str | None, Header(max_length=64)] = None,
) -> StreamingResponse:
    seen = resume_point(last_event_id, len(await audit_lines(reg)))
    slots = slots_of(request)
    slot = slots.take()
    release = partial(slots.free, slot)
    body = stream(request, reg, seen, release)
    weakref.finalize(body, release)  # (a stream dropped before it started runs no finally)
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(body, media_type="text/event-stream", headers=headers)


@router.websocket("")
async def events_socket(websocket: WebSocket) -> None:
    """The same events over a WebSocket (RustyClaw's `/ws`): one JSON text message each,
    `{"id", "event", "tool", ...}`, and `{"heartbeat": true}` when idle. The handshake carries
    the bearer token (read scope) and may carry `Last-Event-ID`; a refused one is answered with
    the route's problem (401, 403, 503) where the server can, else closed with 1008."""
    found = services_of(websocket)
    try:
        token = authorize(found.tokens, found.limiter, bearer_token(websocket.headers.get("authorization")), "read")
        pin_tenant(websocket, token)
        reg = found.registries.get(token.tenant)  # (the token's tenant's events only)
        seen = resume_point(websocket.headers.get("last-event-id"), len(await audit_lines(reg)))
        slot = slots_of(websocket).take()
    except (ServerProblem, InvalidRequest) as refused:
        await refuse(websocket, refused)
        return
    try:
        await websocket.accept()
        async with anyio.create_task_group() as group:
            group.start_soon(close_when_gone, websocket, group.cancel_scope)
            async for line in event_lines(reg, seen, still_here):
                await websocket.send_text(to_json({"heartbeat": True} if line is None else socket_event(*line)))
    finally:
        slots_of(websocket).free(slot)


def socket_event(event_id: int | None, event: dict[str, Any]) -> dict[str, Any]:
    numbered = {} if event_id is None else {"id": event_id}
    return {**numbered, "event": event["action"], **event}


def bearer_token(authorization: str | None) -> str | None:
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


async def still_here() -> bool:
    return False  # (a WebSocket's going is seen by close_when_gone)


async def close_when_gone(websocket: WebSocket, scope: anyio.CancelScope) -> None:
    """Read the client's messages (it has nothing to say) until it disconnects, then end the stream."""
    with contextlib.suppress(WebSocketDisconnect):
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass
    scope.cancel()


async def refuse(websocket: WebSocket, refused: ServerProblem | InvalidRequest) -> None:
    if isinstance(refused, InvalidRequest):
        refused = ServerProblem(400, codes.INVALID_REQUEST, refused.message, refused.hint)
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(refused.response(websocket.url.path))
    else:
        await websocket.close(code=1008, reason=f"{refused.code.code}: {refused.detail}"[:120])
