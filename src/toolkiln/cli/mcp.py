"""`toolkiln mcp [--registry DIR]`: the registry as an MCP server over stdio (docs/server.md#mcp).

The `mcp` SDK is imported when the command runs, not when the parser is built.
"""

from __future__ import annotations

import argparse

from toolkiln.cli.common import EXIT_OK, UsageError
from toolkiln.cli.serve import registry_option
from toolkiln.cli.tools import open_registry


def add_mcp_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = commands.add_parser(
        "mcp",
        help="serve the registry to MCP clients over stdio",
        description="Serve the registry's active tools, the meta-tools and run_custom_tool to an MCP client "
        "over standard input and output; clients are told when the tools change (docs/server.md#mcp).",
    )
    registry_option(mcp)
    mcp.add_argument(
        "--poll-seconds", type=float, default=0.5, help="how often tool changes are looked for (default 0.5)"
    )
    mcp.set_defaults(handler=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    try:
        import anyio

        from toolkiln.server.mcp_server import RegistryMCP
    except ImportError:
        raise UsageError("the MCP server needs its extra: pip install 'toolkiln[server]'") from None
    if not args.poll_seconds > 0:
        raise UsageError("--poll-seconds must be above 0")
    with open_registry(args) as registry:
        anyio.run(RegistryMCP(registry, poll_seconds=args.poll_seconds).run_stdio)
    return EXIT_OK
