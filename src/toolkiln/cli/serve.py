"""`toolkiln serve [--registry DIR] [--state-dir DIR] [--host 127.0.0.1] [--port 8765] [--allow
CAPABILITY]`: the registry over HTTP. A server grants its tools nothing beyond the sandbox unless
`--allow` says. The server's tokens, web secret and request log are in its state folder, never
in the registry folder (toolkiln.server.state).

FastAPI and uvicorn are imported when the command runs, not when the parser is built.
"""

from __future__ import annotations

import argparse
import errno
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, UsageError
from toolkiln.cli.tools import open_registry, registry_option
from toolkiln.diagnostics import codes
from toolkiln.registry.postgres.urls import without_password

if TYPE_CHECKING:
    from toolkiln.registry.capabilities import Capabilities
    from toolkiln.registry.registry import Registry


def add_serve_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser(
        "serve",
        help="serve the registry over HTTP (REST API with tokens)",
        description="Serve the registry's REST API (docs/server.md). Every route but /health needs a token "
        "from `toolkiln tokens create`.",
    )
    registry_option(serve)
    state_dir_option(serve)
    listening_options(serve, port=8765)
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
        "always recorded in requests.jsonl in the state folder)",
    )
    serve.set_defaults(handler=cmd_serve)


def state_dir_option(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """`--state-dir DIR`: where a server of the registry keeps its tokens, web secret and log."""
    parser.add_argument(
        "--state-dir",
        metavar="DIR",
        type=Path,
        default=argparse.SUPPRESS,
        help="the server's private folder for tokens, web secret and request log (default: one per "
        "registry under $TOOLKILN_STATE_DIR, else $XDG_STATE_HOME/toolkiln, in servers/)",
    )
    return parser


def state_dir(args: argparse.Namespace) -> Path | None:
    found: Path | None = getattr(args, "state_dir", None)
    return found


def listening_options(parser: argparse.ArgumentParser, port: int) -> None:
    """--host, --port and --rate-limit, for the commands that listen on HTTP."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=port_number, default=port, help=f"1 to 65535 (default {port})")
    parser.add_argument(
        "--rate-limit",
        default=None,
        metavar="LIMITS",
        help='requests per token, e.g. "600/minute" (the default) or "10/second;1000/hour"; "" for none',
    )
    parser.add_argument(
        "--max-concurrent-runs",
        type=positive_whole,
        default=4,
        metavar="N",
        help="tools run at once; more requests wait for a slot (default 4: what runs add to the "
        "server's memory stays under 4 x 32 MB)",
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="CAPABILITY",
        help="grant a capability to the tools an admin person creates: network, unsandboxed, "
        "executables=DIR (repeat for more; none by default: docs/security.md)",
    )
    parser.add_argument(
        "--approve-calls",
        action="append",
        default=[],
        metavar="RULE",
        help="calls that wait for a person's approval: parts risk=, capability=, principal= joined by "
        'commas, each must hold (e.g. "principal=model,capability=network"; "all"; repeat for more: '
        "docs/approvals.md)",
    )
    parser.add_argument(
        "--call-expiry",
        type=positive_whole,
        default=None,
        metavar="SECONDS",
        help="a call nobody approved within this is denied as expired (default 3600)",
    )


def port_number(text: str) -> int:
    """--port's type: a TCP port, 1 to 65535 (uvicorn would take 99999 as 99999 mod 65536)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1 to 65535)") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (1 to 65535)")
    return port


def positive_whole(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return int(text)


def granted(args: argparse.Namespace) -> Capabilities:
    """The capabilities of --allow; a UsageError for a word it does not know."""
    from toolkiln.registry.capabilities import Capabilities

    try:
        return Capabilities.parse(args.allow)
    except ValueError as error:
        raise UsageError(f"--allow: {error}") from None


def with_call_rules(registry: Registry, args: argparse.Namespace) -> None:
    """The registry's policy with the calls of --approve-calls waiting for a person; a
    UsageError for a rule it cannot read."""
    from dataclasses import replace

    from toolkiln.registry.call_rules import CallRule

    try:
        rules = tuple(CallRule.parse(text) for text in args.approve_calls)
    except ValueError as error:
        raise UsageError(f"--approve-calls: {error}") from None
    expiry = registry.policy.call_expiry_seconds if args.call_expiry is None else float(args.call_expiry)
    registry.policy = replace(registry.policy, call_rules=rules, call_expiry_seconds=expiry)


def rate_limit(args: argparse.Namespace) -> str:
    """--rate-limit as given, or the default; a UsageError when `limits` cannot read it (or the
    server extra is missing)."""
    try:
        from limits import parse_many

        from toolkiln.server.ratelimit import DEFAULT_RATE_LIMIT
    except ImportError:
        raise UsageError(
            "this command needs the server extra: pip install -e '.[server]' in a clone of toolkiln, "
            "or the wheel with [server] (docs/getting-started.md); a release: pip install 'toolkiln[server]'"
        ) from None
    limit: str = DEFAULT_RATE_LIMIT if args.rate_limit is None else args.rate_limit
    try:
        if limit.strip():
            parse_many(limit)
    except ValueError:
        raise UsageError(f"--rate-limit {limit!r}: write it like 600/minute or 10/second;1000/hour") from None
    return limit


def cmd_serve(args: argparse.Namespace) -> int:
    limit = rate_limit(args)
    import uvicorn

    from toolkiln.server.app import create_app
    from toolkiln.server.services import DEFAULT_MAX_BODY_BYTES, Settings
    from toolkiln.server.state import StateFolderError

    if args.max_body_bytes is not None and args.max_body_bytes < 1:
        raise UsageError("--max-body-bytes must be at least 1")
    capabilities = granted(args)
    registry = served_registry(args, capabilities)
    if registry is None:
        return EXIT_FAILED
    with_call_rules(registry, args)
    settings = Settings(
        registry=registry.path,
        rate_limit=limit,
        max_body_bytes=args.max_body_bytes or DEFAULT_MAX_BODY_BYTES,
        capabilities=capabilities,
        state_dir=state_dir(args),
        max_concurrent_runs=args.max_concurrent_runs,
    )
    try:
        app = create_app(settings, registry)
    except StateFolderError as error:
        print(f"error[{error.code}]: {error.message}\n  = hint: {error.hint}", file=sys.stderr)
        return EXIT_FAILED
    listener = listening_socket(args.host, args.port)
    if listener is None:
        return EXIT_FAILED
    print(f"toolkiln serve: capabilities granted: {', '.join(capabilities.words()) or 'none'}", file=sys.stderr)
    if registry.policy.call_rules:
        rules = "; ".join(rule.described() for rule in registry.policy.call_rules)
        print(f"toolkiln serve: calls that wait for a person's approval: {rules}", file=sys.stderr)
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"toolkiln serve: listening on http://{shown_host}:{args.port} (Ctrl+C stops it)", file=sys.stderr)
    if not app.state.services.tokens.entries(None):  # (any tenant's)
        print(no_tokens_hint(args), file=sys.stderr)
    from toolkiln.server.http_protocol import http_protocol

    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="info",
        access_log=args.access_log,
        timeout_graceful_shutdown=30,
        http=http_protocol(),  # (its 400 for a request it cannot parse: problem details, R0532)
    )
    uvicorn.Server(config).run(sockets=[listener])
    return EXIT_OK


def served_registry(args: argparse.Namespace, capabilities: Capabilities) -> Registry | None:
    """The registry a server serves; None once a database that does not answer, refuses the
    login or is at another schema version (R0306-R0308) is said in one coded line."""
    from toolkiln.registry.errors import RegistryError

    try:
        return open_registry(args, capabilities)
    except RegistryError as error:
        hint = f"\n  = hint: {error.hint}" if error.hint else ""
        print(f"error[{error.code}]: {error.message}{hint}", file=sys.stderr)
        return None


def listening_socket(host: str, port: int) -> socket.socket | None:
    """The server's socket, bound before the app starts: a port in use or an address this
    machine does not have is one coded line (R0531) and exit 1, not a startup log and errno 98."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family)
    except OSError as error:
        reason = (
            "is in use by another program"
            if error.errno == errno.EADDRINUSE
            else f"cannot be used: {error.strerror or error}"
        )
        print(
            f"error[{codes.CANNOT_LISTEN.code}]: {host}:{port} {reason}\n"
            "  = hint: stop the other server, or choose another port with --port",
            file=sys.stderr,
        )
        return None


def no_tokens_hint(args: argparse.Namespace) -> str:
    registry = getattr(args, "registry", None)
    shown = f"'{without_password(registry)}'" if isinstance(registry, str) else registry  # (fill in the password)
    named = {"--registry": shown, "--state-dir": state_dir(args)}
    folder = "".join(f" {option} {value}" for option, value in named.items() if value is not None)
    return (
        "toolkiln serve: no tokens yet, so nobody can sign in (every route but /health answers 401); "
        f"create one: toolkiln tokens create NAME --kind person --scope admin{folder}"
    )
