"""`toolkiln mcp`: the registry as a Model Context Protocol server (the official `mcp` SDK),
over stdio, or streamable HTTP behind a bearer token of scope `write` (the meta-tools create
and delete tools).

Tools and calls are mcp_tools.py's. A watcher compares the active tools with what clients were
last told (mcp_tools.fingerprint, every `poll_seconds`) and, when another process or a call
changed them, tells every client to refetch: clients of the 2026-07-28 protocol through their
`subscriptions/listen` stream (the SDK's subscription bus), older ones with a
`notifications/tools/list_changed` on the connection.
"""

from __future__ import annotations

import socket
import time
from dataclasses import replace
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.shared.subscriptions import ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolkiln.registry.call_approvals import RUN_GRACE_SECONDS, WAIT_POLL_SECONDS
from toolkiln.registry.principals import LOCAL_MODEL, Principal
from toolkiln.registry.registry import Registry
from toolkiln.registry.tenants import DEFAULT_TENANT
from toolkiln.server import mcp_tools
from toolkiln.server.guards import TOKEN_STATE, BearerGuard
from toolkiln.server.ratelimit import TokenRateLimiter
from toolkiln.server.tokens import TokenInfo, TokenStore
from toolkiln.version import __version__

POLL_SECONDS = 0.5


class RegistryMCP:
    """One MCP server over one registry."""

    def __init__(self, registry: Registry, *, poll_seconds: float = POLL_SECONDS, max_concurrent_runs: int = 4) -> None:
        self.registry = registry
        self.poll_seconds = poll_seconds
        self.max_concurrent_runs = max_concurrent_runs
        self._run_slots: anyio.CapacityLimiter | None = None  # made in the event loop
        self.bus = InMemorySubscriptionBus()
        # A handshake-era client hears of changes on its connection, which any of its requests'
        # sessions reaches: the last one of each connection is kept, by the connection's
        # `initialize` parameters (one object per connection).
        self._handshake_sessions: dict[int, ServerSession] = {}
        self.server = Server(
            "toolkiln",
            version=__version__,
            instructions=mcp_tools.INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self.bus),
        )

    async def run_stdio(self) -> None:
        options = self.server.create_initialization_options(
            notification_options=NotificationOptions(tools_changed=True)
        )
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._watch)
            async with stdio_server() as (read, write):
                await self.server.run(read, write, options)
            tasks.cancel_scope.cancel()

    async def run_http(
        self,
        host: str,
        port: int,
        tokens: TokenStore,
        limiter: TokenRateLimiter,
        listener: socket.socket | None = None,
        tenant: str = DEFAULT_TENANT,
    ) -> None:
        """Serve streamable HTTP at http://host:port/mcp until SIGTERM or Ctrl-C; on
        `listener` when given (a socket the caller bound, so a port in use was its error).
        Only tokens of `tenant` (the one whose registry this serves) pass."""
        app = BearerGuard(self.server.streamable_http_app(host=host), tokens, limiter, "write", tenant)
        server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, access_log=False))
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._watch)
            await server.serve(sockets=None if listener is None else [listener])
            tasks.cancel_scope.cancel()

    async def _list_tools(self, ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        self._remember(ctx)
        listed = await anyio.to_thread.run_sync(mcp_tools.tool_list, self.registry)
        return types.ListToolsResult(tools=[types.Tool.model_validate(d) for d in listed])  # MCP's own JSON

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        self._remember(ctx)
        principal = _principal(ctx)
        if self._run_slots is None:  # calls past max_concurrent_runs wait, holding no thread
            self._run_slots = anyio.CapacityLimiter(self.max_concurrent_runs)
        outcome = await anyio.to_thread.run_sync(
            mcp_tools.call_tool, self.registry, params.name, params.arguments, principal, limiter=self._run_slots
        )
        if outcome.pending is not None:  # the client waits for a person's decision
            outcome = await self._decided(outcome)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text)],
            structured_content=outcome.payload,
            is_error=outcome.is_error,
        )

    async def _decided(self, held: mcp_tools.CallResult) -> mcp_tools.CallResult:
        """A held call's answer once a person decided it (or it expired): looked at every
        WAIT_POLL_SECONDS from the event loop, so a waiting client holds no thread and no run
        slot, for as long as the call may wait and an approved run may take."""
        limit = time.monotonic() + self.registry.policy.call_expiry_seconds + RUN_GRACE_SECONDS
        outcome = held
        while outcome.pending is not None and time.monotonic() < limit:
            await anyio.sleep(WAIT_POLL_SECONDS)
            outcome = await anyio.to_thread.run_sync(mcp_tools.settle, self.registry, outcome.pending, 0)
        return outcome

    def _remember(self, ctx: ServerRequestContext[Any]) -> None:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS and ctx.session.client_params is not None:
            self._handshake_sessions[id(ctx.session.client_params)] = ctx.session

    async def _watch(self) -> None:
        """Tell clients to refetch when the active tools change, whoever changed them."""
        told = await anyio.to_thread.run_sync(mcp_tools.fingerprint, self.registry)
        while True:
            await anyio.sleep(self.poll_seconds)
            now = await anyio.to_thread.run_sync(mcp_tools.fingerprint, self.registry)
            if now == told:
                continue
            told = now
            await self.bus.publish(ToolsListChanged())
            for key, session in list(self._handshake_sessions.items()):
                try:
                    await session.send_tool_list_changed()
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    del self._handshake_sessions[key]  # the client went away


def _principal(ctx: ServerRequestContext[Any]) -> Principal:
    """Who calls: over HTTP, the guard's token acting as a model (MCP clients are models);
    over stdio, the local user's model."""
    state = getattr(ctx.request, "scope", {}).get("state", {}) if ctx.request is not None else {}
    token: TokenInfo | None = state.get(TOKEN_STATE)
    if token is None:
        return LOCAL_MODEL
    return replace(token.principal.narrowed_to("llm"), via=f"token {token.name} (MCP)")
