"""`toolkiln serve [--registry DIR] [--host 127.0.0.1] [--port 8765]`: the registry over HTTP.

FastAPI and uvicorn are imported when the command runs, not when the parser is built.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from toolkiln.cli.common import EXIT_OK, UsageError
from toolkiln.cli.tools import open_registry


def add_serve_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser(
        "serve",
        help="serve the registry over HTTP (REST API with tokens)",
        description="Serve the registry's REST API (docs/server.md). Every route but /health needs a token "
        "from `toolkiln tokens create`.",
    )
    registry_option(serve)
    serve.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this machine only)"
    )
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument(
        "--rate-limit",
        default=None,
        metavar="LIMITS",
        help='requests per token, e.g. "600/minute" (the default) or "10/second;1000/hour"; "" for none',
    )
    serve.add_argument(
        "--max-body-bytes",
        type=int,
        default=None,
        metavar="N",
        help="larger request bodies are refused (413; default 1 MiB)",
    )
    serve.add_argument(
        "--access-log",
        action="store_true",
        help="log every request (off by default: it costs a third of a small request; writes are "
        "always recorded in <registry>/.server/requests.jsonl)",
    )
    serve.set_defaults(handler=cmd_serve)


def registry_option(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--registry DIR, as the `tools` commands take it (also after a subcommand: SUPPRESS)."""
    where = "the registry folder (default: $TOOLKILN_HOME, else ./.toolkiln)"
    parser.add_argument("--registry", metavar="DIR", type=Path, default=argparse.SUPPRESS, help=where)
    return parser


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn
        from limits import parse_many
    except ImportError:
        raise UsageError("the server needs its extra: pip install 'toolkiln[server]'") from None

    from toolkiln.server.app import create_app
    from toolkiln.server.services import Settings

    settings = Settings(registry=Path("."))
    rate_limit = settings.rate_limit if args.rate_limit is None else args.rate_limit
    if rate_limit.strip():
        try:
            parse_many(rate_limit)
        except ValueError:
            raise UsageError(f"--rate-limit {rate_limit!r}: write it like 600/minute or 10/second;1000/hour") from None
    if args.max_body_bytes is not None and args.max_body_bytes < 1:
        raise UsageError("--max-body-bytes must be at least 1")
    registry = open_registry(args)
    settings = Settings(
        registry=registry.path,
        rate_limit=rate_limit,
        max_body_bytes=args.max_body_bytes or settings.max_body_bytes,
    )
    uvicorn.run(
        create_app(settings, registry),
        host=args.host,
        port=args.port,
        log_level="info",
        access_log=args.access_log,
        timeout_graceful_shutdown=30,
    )
    return EXIT_OK
