"""`toolkiln mcp [--registry DIR] [--tenant NAME] [--http [--host H] [--port N] [--rate-limit L]]`:
the registry (or one tenant's) as an MCP server, over stdio or streamable HTTP (docs/server.md#mcp).

The `mcp` SDK is imported when the command runs, not when the parser is built.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, UsageError
from toolkiln.cli.serve import (
    granted,
    listening_options,
    listening_socket,
    rate_limit,
    served_registry,
    state_dir,
    state_dir_option,
    with_call_rules,
)
from toolkiln.cli.tools import registry_option, registry_where

if TYPE_CHECKING:
    from toolkiln.registry.capabilities import Capabilities
    from toolkiln.registry.registry import Registry
    from toolkiln.server.tokens import TokenStore


def add_mcp_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = commands.add_parser(
        "mcp",
        help="serve the registry to MCP clients (stdio, or HTTP with a token)",
        description="Serve the registry's active tools, the meta-tools and run_custom_tool to MCP clients, "
        "over standard input and output or, with --http, streamable HTTP at /mcp (a `write` token needed); "
        "clients are told when the tools change (docs/server.md#mcp).",
    )
    registry_option(mcp)
    mcp.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    mcp.add_argument(
        "--tenant",
        help="serve only this tenant's tools (docs/tenants.md); over HTTP only its tokens pass (default: default)",
    )
    state_dir_option(mcp)
    listening_options(mcp, port=8766)
    mcp.add_argument(
        "--poll-seconds", type=float, default=0.5, help="how often tool changes are looked for (default 0.5)"
    )
    mcp.set_defaults(handler=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    limit = rate_limit(args)  # refuses a bad --rate-limit, or a missing extra, first
    if not args.poll_seconds > 0:
        raise UsageError("--poll-seconds must be above 0")
    import anyio

    from toolkiln.registry.tenants import DEFAULT_TENANT
    from toolkiln.server.mcp_server import RegistryMCP
    from toolkiln.server.ratelimit import TokenRateLimiter
    from toolkiln.server.state import StateFolderError, legacy_warning

    root, tenant = _tenant(args)
    opened = _open(args, granted(args), tenant)
    if opened is None:
        return EXIT_FAILED
    with opened as registry:
        with_call_rules(registry, args)  # (--approve-calls: a held call waits for a person's decision)
        server = RegistryMCP(registry, poll_seconds=args.poll_seconds, max_concurrent_runs=args.max_concurrent_runs)
        if not args.http:
            anyio.run(server.run_stdio)
            return EXIT_OK
        try:
            tokens = _tokens(registry, root if tenant else None, state_dir(args))
        except StateFolderError as error:
            raise UsageError(f"error[{error.code}]: {error.message} (hint: {error.hint})") from None
        warning = legacy_warning(registry.location)
        if warning is not None:
            print(f"warning: {warning}", file=sys.stderr)
        listener = listening_socket(args.host, args.port)
        if listener is None:
            return EXIT_FAILED
        print(f"toolkiln mcp: listening on http://{args.host}:{args.port}/mcp", file=sys.stderr)
        anyio.run(
            server.run_http, args.host, args.port, tokens, TokenRateLimiter(limit), listener, tenant or DEFAULT_TENANT
        )
    return EXIT_OK


def _tokens(registry: Registry, root: Path | str | None, state: Path | None) -> TokenStore:
    """The server's tokens: the registry's own (`root` None), else its root's, which hold
    every tenant's (a database's root store, a folder's state folder)."""
    from toolkiln.registry.locations import open_store
    from toolkiln.registry.postgres.urls import without_password
    from toolkiln.server.db_tokens import tokens_for

    if root is None:
        return tokens_for(registry._store, registry.location, state)
    if isinstance(root, str):
        return tokens_for(open_store(root, lock_timeout=30.0), without_password(root), state)
    return tokens_for(registry._store, str(root), state)


def _tenant(args: argparse.Namespace) -> tuple[Path | str | None, str | None]:
    """The registry (folder or URL) and the tenant of --tenant (None, None without it); a name that is
    none (R0750) or a tenant never created (R0751) is a usage error."""
    if args.tenant is None:
        return None, None
    from toolkiln.registry.errors import RegistryError, UnknownTenant
    from toolkiln.registry.tenants import check_tenant_name, tenant_exists

    root = registry_where(args)
    try:
        name = check_tenant_name(args.tenant)
        if not tenant_exists(root, name):
            raise UnknownTenant(f"there is no tenant {name!r}", hint=f"toolkiln tenants create {name}")
    except RegistryError as error:
        hint = f" (hint: {error.hint})" if error.hint else ""
        raise UsageError(f"error[{error.code}]: {error.message}{hint}") from None
    return root, name


def _open(args: argparse.Namespace, capabilities: Capabilities, tenant: str | None) -> Registry | None:
    """The registry served: --registry's, or its tenant's folder with --tenant (None: it
    cannot be opened, said in one coded line)."""
    if tenant is None:
        return served_registry(args, capabilities)
    from toolkiln.registry.registry import Registry
    from toolkiln.registry.tenants import tenant_location

    return Registry(tenant_location(registry_where(args), tenant), capabilities=capabilities)
